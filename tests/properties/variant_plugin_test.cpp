// Variant kernels through the variant ABI: loaded and run through the C++ API, and through
// `peconform properties --plugin` end to end (exit codes, text and JSON).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "backends/plugin/variant_plugin_library.hpp"
#include "spec/spec_error.hpp"
#include "support/scratch_dir.hpp"

namespace peconform {
namespace {

constexpr int kCases = 100;

ToolRun run(const std::string& arguments) { return run_tool(fmt::format("{} {}", PECONFORM_BINARY, arguments)); }

void expect_contains(const std::string& text, const std::string& needle) {
  EXPECT_NE(text.find(needle), std::string::npos) << "in: " << text << "\nmissing: " << needle;
}

TEST(VariantPlugin, DeclaredVariantsRunThroughTheCatalog) {
  const auto library = plugin::VariantPluginLibrary::load(VARIANT_PLUGIN);
  EXPECT_EQ(library->name(), "variant-examples");
  ASSERT_EQ(library->kernels().size(), 5u);
  const plugin::VariantPluginKernel rope = library->kernel("rope");
  EXPECT_EQ(rope.declaration().rot, 6);
  EXPECT_EQ(rope.declaration().axes, 1);  // declared 0, as a rebuilt version-1 declaration has it
  for (const VariantPropertyResult& result : run_variant_properties(rope, rope.declaration(), {7, kCases}))
    EXPECT_EQ(result.verdict, VariantVerdict::held) << result.name << ": " << result.reason << result.counterexample;
  const plugin::VariantPluginKernel squared = library->kernel("squared_angle");
  for (const VariantPropertyResult& result : run_variant_properties(squared, squared.declaration(), {7, kCases})) {
    const bool keeps = result.name == "rotationPreservesNormPerPair" || result.name == "rotationIsLinearInX" ||
                       result.name == "rotationAtPositionZeroIsTheIdentity" ||
                       result.name == "partialRotaryLeavesPassThroughDimsBitIdentical" ||
                       result.name == "distinctPositionsGiveDistinctRotations";
    EXPECT_EQ(result.verdict, keeps ? VariantVerdict::held : VariantVerdict::failed) << result.name;
  }
  const plugin::VariantPluginKernel table = library->kernel("sinusoid");
  for (const VariantPropertyResult& result : run_variant_properties(table, table.declaration(), {7, kCases}))
    EXPECT_EQ(result.verdict, VariantVerdict::held) << result.name << ": " << result.reason << result.counterexample;
  EXPECT_THROW(library->kernel("absent"), SpecError);
}

// Over two axes (issue 49): the axial 2-D RoPE holds every relation in every form; the one whose
// y axis reuses x's pairs is relative and composes, but fails reversibility with the colliding
// positions printed. The kernels refuse a call whose `axes` is not 2, so these also show that
// the declared axes reach the call.
TEST(VariantPlugin, TwoAxesReachTheKernelAndItsRelations) {
  const auto library = plugin::VariantPluginLibrary::load(VARIANT_PLUGIN);
  const plugin::VariantPluginKernel axial = library->kernel("axial_2d");
  EXPECT_EQ(axial.declaration().axes, 2);
  std::size_t forms = 0;
  for (const VariantPropertyResult& result : run_variant_properties(axial, axial.declaration(), {7, kCases})) {
    ++forms;
    const bool refused = result.name == "partialRotaryLeavesPassThroughDimsBitIdentical";
    EXPECT_EQ(result.verdict, refused ? VariantVerdict::refused : VariantVerdict::held) << result.name << ": " << result.counterexample;
  }
  // 8 relations, relative also along axes 0 and 1, composition along both and across (0, 1).
  EXPECT_EQ(forms, 8u + 2u + 3u);
  const plugin::VariantPluginKernel shared = library->kernel("shared_pairs_2d");
  for (const VariantPropertyResult& result : run_variant_properties(shared, shared.declaration(), {7, kCases})) {
    if (result.name == "distinctPositionsGiveDistinctRotations") {
      EXPECT_EQ(result.verdict, VariantVerdict::failed);
      expect_contains(result.counterexample, "the variant does not tell these positions apart");
    } else if (result.name.starts_with("innerProductDependsOnlyOnRelativePosition") || result.name.starts_with("rotationsCompose")) {
      EXPECT_EQ(result.verdict, VariantVerdict::held) << result.name << ": " << result.counterexample;
    }
  }
}

// A library built against variant ABI version 1 is read as it always was: one axis, whatever
// lies where version 2 keeps `axes` (it writes 5 there).
TEST(VariantPlugin, AVersionOneLibraryHasOneAxis) {
  const auto library = plugin::VariantPluginLibrary::load(VERSION_1_VARIANT_PLUGIN);
  ASSERT_EQ(library->kernels().size(), 3u);
  for (const plugin::VariantPluginKernel& kernel : library->kernels()) EXPECT_EQ(kernel.declaration().axes, 1) << kernel.name();
  const plugin::VariantPluginKernel rope = library->kernel("rope");
  for (const VariantPropertyResult& result : run_variant_properties(rope, rope.declaration(), {7, 20}))
    EXPECT_EQ(result.verdict, VariantVerdict::held) << result.name << ": " << result.counterexample;
}

TEST(VariantPlugin, CommandExitsZeroWhenEveryPropertyHoldsAndOneWhenOneFails) {
  const ToolRun held = run(fmt::format("properties --plugin {} --kernel rope --cases {} 2>&1", VARIANT_PLUGIN, kCases));
  EXPECT_EQ(held.exit_code, 0) << held.output;
  expect_contains(held.output, "rope variant(kind=rotary,d=8,rot=6,rot_at=first,pairing=half,dtype=fp32");
  expect_contains(held.output, "rotationPreservesNormPerPair: held");
  expect_contains(held.output, "partialRotaryLeavesPassThroughDimsBitIdentical: held");

  const ToolRun failed = run(fmt::format("properties --plugin {} --kernel squared_angle --cases {} 2>&1", VARIANT_PLUGIN, kCases));
  EXPECT_EQ(failed.exit_code, 1) << failed.output;
  expect_contains(failed.output, "rotationPreservesNormPerPair: held");
  expect_contains(failed.output, "innerProductDependsOnlyOnRelativePosition: failed");
  expect_contains(failed.output, "shrunk counterexample");
}

TEST(VariantPlugin, JsonListsEveryKernelsVerdicts) {
  // In a subshell, so that the failure message on stderr stays out of the JSON.
  const ToolRun result = run_tool(fmt::format("({} properties --plugin {} --cases 20 --json 2>/dev/null)", PECONFORM_BINARY, VARIANT_PLUGIN));
  EXPECT_EQ(result.exit_code, 1) << result.output;  // squared_angle fails
  const nlohmann::json json = nlohmann::json::parse(result.output);
  ASSERT_EQ(json.at("kernels").size(), 5u);
  EXPECT_EQ(json.at("kernels")[2].at("kernel"), "sinusoid");
  EXPECT_EQ(json.at("kernels")[2].at("properties").size(), 2u);
  EXPECT_EQ(json.at("kernels")[2].at("properties")[0].at("verdict"), "held");
}

TEST(VariantPlugin, BadDeclarationsAndLibrariesAreBadInput) {
  const ToolRun bad = run(fmt::format("properties --plugin {} 2>&1", BAD_VARIANT_PLUGIN));
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  expect_contains(bad.output, "variant kernel 'rope': rot: 9 is not in [0, d = 8]");
  const ToolRun none = run(fmt::format("properties --plugin {} 2>&1", CPU_PLUGIN));
  EXPECT_EQ(none.exit_code, 2) << none.output;
  expect_contains(none.output, "exports no peconform_variants_v1 function");
  const ToolRun absent = run(fmt::format("properties --plugin {} --kernel absent 2>&1", VARIANT_PLUGIN));
  EXPECT_EQ(absent.exit_code, 2) << absent.output;
  expect_contains(absent.output, "declares no variant kernel 'absent'; it declares: rope, squared_angle, sinusoid, axial_2d, "
                                 "shared_pairs_2d");
  const ToolRun no_axes = run(fmt::format("properties --plugin {} 2>&1", BAD_AXES_VARIANT_PLUGIN));
  EXPECT_EQ(no_axes.exit_code, 2) << no_axes.output;
  expect_contains(no_axes.output, "variant kernel 'rope': axes: 17 is not a count of position axes");
}

}  // namespace
}  // namespace peconform
