#include <gtest/gtest.h>

#include "backends/plugin/plugin_library.hpp"
#include "backends/plugin/plugin_tensor_backend.hpp"
#include "spec/spec_error.hpp"

namespace peconform::plugin {
namespace {

std::string refusal_of(const PluginLibrary& library, std::size_t index) { return library.kernels().at(index).refusal; }

void expect_contains(const std::string& text, const std::string& needle) {
  EXPECT_NE(text.find(needle), std::string::npos) << "in: " << text << "\nmissing: " << needle;
}

TEST(PluginLibrary, EachRefusedDeclarationSaysWhy) {
  const auto library = PluginLibrary::load(DECLARATIONS_PLUGIN);
  EXPECT_EQ(library->name(), "declarations");
  ASSERT_EQ(library->kernels().size(), 14u);
  EXPECT_TRUE(library->kernels()[0].served()) << refusal_of(*library, 0);
  expect_contains(refusal_of(*library, 1), "unknown key 'flavour' for rope");
  expect_contains(refusal_of(*library, 2), "pattern 'rope(d=64,dtype=fp8)': key 'dtype' expects one of fp64|fp32|fp16|bf16, found 'fp8'");
  // Two the declaration check lets through, for the campaign's check (pattern_problem) to refuse.
  EXPECT_TRUE(library->kernels()[3].served());
  EXPECT_TRUE(library->kernels()[4].served());
  expect_contains(refusal_of(*library, 5), "device type 7 (kDLVulkan) is not served: peconform drives kDLCPU (1), kDLOpenCL (4) and kDLCUDA (2) only");
  expect_contains(refusal_of(*library, 6), "neither PEC_TAKES_IN_PLACE nor PEC_TAKES_OUT_OF_PLACE");
  expect_contains(refusal_of(*library, 7), "bits no PEC_TAKES_* flag");
  expect_contains(refusal_of(*library, 8), "run is NULL");
  expect_contains(refusal_of(*library, 9), "'served' is declared twice");
  expect_contains(refusal_of(*library, 10), "kernel name 'bad/name'");
  // Issue 38: a mutant that said "longer than 65536 bytes" survived; no declaration was that long.
  EXPECT_EQ(refusal_of(*library, 11), "kernel 'overlong': spec_patterns is longer than 65535 bytes");
  // The two whose calls fail (plugin_cli_test.cpp) are declared as they should be.
  EXPECT_TRUE(library->kernels()[12].served() && library->kernels()[13].served());
}

// What a library says of itself is held to its limits: up to 4096 kernels load, one more is
// refused naming both counts, and a library name with a space is refused naming it.
TEST(PluginLibrary, TheKernelCountAndTheLibraryNameAreHeldToTheirLimits) {
  EXPECT_EQ(PluginLibrary::load(MOST_KERNELS_PLUGIN)->kernels().size(), 4096u);
  const auto refusal_of_library = [](const char* path) {
    try {
      PluginLibrary::load(path);
    } catch (const SpecError& error) {
      return std::string(error.what());
    }
    return std::string("loaded");
  };
  expect_contains(refusal_of_library(TOO_MANY_KERNELS_PLUGIN), "kernel_count is 4097; expected 0 to 4096");
  expect_contains(refusal_of_library(BAD_NAME_PLUGIN),
                  "library_name 'bad name' must be 1 to 128 letters, digits, '_', '-' and '.'");
}

TEST(PluginLibrary, AnotherAbiVersionIsRefusedNamingBoth) {
  try {
    PluginLibrary::load(OTHER_ABI_PLUGIN);
    ADD_FAILURE() << "loaded a library built against ABI version 99";
  } catch (const SpecError& error) {
    expect_contains(error.what(), "built against peconform ABI version 99; this peconform speaks version 1");
  }
}

TEST(PluginLibrary, WhatIsNoPluginIsRefused) {
  EXPECT_THROW(PluginLibrary::load("/nonexistent/libnothing.so"), SpecError);
  try {
    PluginLibrary::load(PECONFORM_BINARY);
    ADD_FAILURE() << "loaded an executable";
  } catch (const SpecError& error) {
    expect_contains(error.what(), "cannot load plugin");
  }
}

TEST(PluginLibrary, AKernelIsFoundByNameOrTheKnownOnesAreListed) {
  const auto library = PluginLibrary::load(DECLARATIONS_PLUGIN);
  EXPECT_EQ(library->kernels().at(library->index_of("on-vulkan")).device_type, kDLVulkan);
  try {
    library->index_of("missing");
    ADD_FAILURE();
  } catch (const SpecError& error) {
    expect_contains(error.what(), "declares no kernel 'missing'; it declares: served, unknown-key");
  }
}

// What the campaign draws for a plugin: each family its patterns name, in their order (issue 38:
// a mutant that offered no family at all survived every test).
TEST(PluginLibrary, APluginKernelOffersTheFamiliesOfItsPatterns) {
  const std::shared_ptr<const PluginLibrary> cpu = PluginLibrary::load(CPU_PLUGIN);
  EXPECT_EQ(make_plugin_tensor_backend(cpu, cpu->index_of("cpu"))->capabilities().families,
            (std::vector<Family>{Family::sinusoidal, Family::learned, Family::rope, Family::xpos, Family::mrope, Family::rope2d,
                                 Family::alibi, Family::t5, Family::shaw, Family::xl}));
  const std::shared_ptr<const PluginLibrary> declarations = PluginLibrary::load(DECLARATIONS_PLUGIN);
  EXPECT_EQ(make_plugin_tensor_backend(declarations, declarations->index_of("served"))->capabilities().families,
            std::vector<Family>{Family::rope});
}

}  // namespace
}  // namespace peconform::plugin
