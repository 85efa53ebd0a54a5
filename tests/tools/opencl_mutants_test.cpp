// GPU bugs planted in the OpenCL example plugin's kernel (tests/plugins/opencl/opencl_mutants.c,
// labels opencl and mutants), run on PoCL: `peconform run --plugin --profile ci --max-failures 1`
// must catch each with the verdict kind the bug gives, its twin NAME.correct (the unchanged
// program, the same patterns and calls) must pass the very cases the mutant ran and the case it
// was shrunk to, as tests/tools/mutant_plugins_test.cpp holds the CPU mutants.
#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backends/opencl/opencl_runtime.hpp"
#include "support/scratch_dir.hpp"

namespace peconform {
namespace {

struct Mutant {
  const char* name;
  std::vector<std::string> kinds;  // the verdict kinds the bug can give
  bool isolate = false;            // a write far out of bounds needs a worker process
};

void PrintTo(const Mutant& mutant, std::ostream* out) { *out << mutant.name; }

const Mutant kMutants[] = {
    // cos and sin off, both (the value, its sign just past the bound) and as a vector (the norm,
    // where the angle itself is past fp32-angle's horizon).
    {"native-sin-cos-under-fp32-angle", {"numeric", "sign", "norm"}},
    {"float32-angle-claimed-exact", {"numeric", "sign"}},
    // Out of place the tail keeps its unwritten sentinels; in place it keeps its input, a wrong
    // value wherever the rotation is not the identity.
    {"partial-work-group-skipped", {"unwritten", "numeric", "sign"}},
    // Rows of batch b >= 1 read and written at b seq + s sequence strides: another token's
    // values, padding or a guard (out-of-bounds), and their own left unwritten; or, where the
    // sequence axis is the outermost (order sbhd), far past the buffer's end, which on PoCL, a
    // CPU device, is the host's own memory: a worker process holds that crash (seed 1 does it).
    {"batch-stride-ignored", {"unwritten", "out-of-bounds", "numeric", "sign", "nan", "crash"}, true},
    // Caught only because the device's copy of the input comes back.
    {"input-written", {"input-modified"}},
};

ToolRun run(const std::string& arguments) {
  return run_tool(fmt::format("timeout 600 {} run --plugin {} {}", PECONFORM_BINARY, OPENCL_MUTANTS, arguments));
}

class OpenClMutants : public ::testing::TestWithParam<Mutant> {
 protected:
  void SetUp() override {
    ASSERT_FALSE(opencl::list_devices().empty()) << "no OpenCL device: install pocl-opencl-icd (scripts/install-deps.sh)";
  }
};

TEST_P(OpenClMutants, TheCiProfileCatchesTheBugAndTheTwinPassesTheSameCases) {
  const Mutant& mutant = GetParam();
  const ScratchDir dir;
  const std::string common =
      fmt::format("--profile ci --no-save --no-properties --quiet --regressions {}/corpus{}", dir.path().string(),
                  mutant.isolate ? " --isolate --case-timeout 60" : "");

  const ToolRun caught =
      run(fmt::format("--kernel {} --max-failures 1 {} --out {}/mutant", mutant.name, common, dir.path().string()));
  ASSERT_EQ(caught.exit_code, 1) << mutant.name << " was not caught by --profile ci:\n" << caught.output;
  const nlohmann::json report = nlohmann::json::parse(dir.read("mutant/report.json"));
  ASSERT_EQ(report.at("failures").size(), 1u) << caught.output;
  const nlohmann::json& failure = report.at("failures")[0];
  const std::string kind = failure.at("first_failure").at("kind");
  EXPECT_NE(std::find(mutant.kinds.begin(), mutant.kinds.end(), kind), mutant.kinds.end())
      << mutant.name << " failed as '" << kind << "', expected one of " << fmt::format("{}", mutant.kinds) << ":\n"
      << caught.output;
  const std::string replay = failure.at("replay");
  const std::string replay_prefix = fmt::format("peconform run --plugin {} --kernel {} --replay '", OPENCL_MUTANTS, mutant.name);
  EXPECT_EQ(replay.rfind(replay_prefix, 0), 0u) << replay;
  const std::uint64_t cases = failure.at("case_index");
  ASSERT_GE(cases, 1u);

  // The shrunk case, replayed: the mutant still fails it, the twin passes it.
  const std::string shrunk = failure.at("case");
  const ToolRun replayed_mutant =
      run(fmt::format("--kernel {} --replay {} {} --out {}/replay-mutant", mutant.name, shell_quote(shrunk), common, dir.path().string()));
  EXPECT_EQ(replayed_mutant.exit_code, 1) << mutant.name << " passed its own shrunk case " << shrunk << ":\n" << replayed_mutant.output;
  const std::string twin = fmt::format("{}.correct", mutant.name);
  const ToolRun replayed =
      run(fmt::format("--kernel {} --replay {} {} --out {}/replay", twin, shell_quote(shrunk), common, dir.path().string()));
  EXPECT_EQ(replayed.exit_code, 0) << twin << " failed the shrunk case " << shrunk << ":\n" << replayed.output;

  // The twin runs cases 1..cases of the same campaign: the case the mutant failed and every one
  // before it, and at least a whole cycle of the pattern's cells.
  constexpr std::uint64_t kTwinCases = 8;
  const std::uint64_t twin_cases = std::max(cases, kTwinCases);
  const ToolRun passed = run(fmt::format("--kernel {} --cases {} {} --out {}/twin", twin, twin_cases, common, dir.path().string()));
  EXPECT_EQ(passed.exit_code, 0) << twin << " failed the cases " << mutant.name << " ran:\n" << passed.output;
  const nlohmann::json twin_report = nlohmann::json::parse(dir.read("twin/report.json"));
  EXPECT_EQ(twin_report.at("failures").size(), 0u);
  EXPECT_EQ(twin_report.at("run").at("cases_run"), twin_cases);
}

INSTANTIATE_TEST_SUITE_P(Corpus, OpenClMutants, ::testing::ValuesIn(kMutants), [](const auto& info) {
  std::string name = info.param.name;
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
});

// Every kernel of the library is a mutant of the table or its twin, each served on kDLOpenCL.
TEST(OpenClMutantsLibrary, EveryMutantHasARowAndATwin) {
  ASSERT_FALSE(opencl::list_devices().empty()) << "no OpenCL device: install pocl-opencl-icd (scripts/install-deps.sh)";
  const ToolRun info = run_tool(fmt::format("{} plugin-info --json {} 2>/dev/null", PECONFORM_BINARY, OPENCL_MUTANTS));
  ASSERT_EQ(info.exit_code, 0) << info.output;
  const nlohmann::json json = nlohmann::json::parse(info.output);
  EXPECT_EQ(json.at("library"), "opencl-mutants");
  std::vector<std::string> declared, expected;
  for (const nlohmann::json& kernel : json.at("kernels")) {
    EXPECT_EQ(kernel.at("served"), true) << kernel.dump();
    EXPECT_EQ(kernel.at("device"), "kDLOpenCL") << kernel.dump();
    declared.push_back(kernel.at("name"));
  }
  for (const Mutant& mutant : kMutants) {
    expected.push_back(mutant.name);
    expected.push_back(fmt::format("{}.correct", mutant.name));
  }
  std::sort(declared.begin(), declared.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(declared, expected);
}

}  // namespace
}  // namespace peconform
