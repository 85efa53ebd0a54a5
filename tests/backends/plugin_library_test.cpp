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

// Issue 51: the rows of tools/mutation/checklists/backends-calls.md that no test held. The
// plugins: declaration_edges.c (kernels at the edges of a declaration) and broken_library.c (a
// library whose declaration as a whole is wrong, or that declares no kernel). Their headers are
// included here, not at the top, so that the lines above keep the numbers other files cite.
#include <dlfcn.h>
#include <filesystem>
#include <fmt/format.h>

#include "backends/plugin/device_memory.hpp"
#include "harness/case_call.hpp"
#include "plugins/recorded_call.h"

namespace peconform::plugin {
namespace {

// The SpecError loading `path` gives, or "loaded".
std::string load_refusal(const std::string& path) {
  try {
    PluginLibrary::load(path);
  } catch (const SpecError& error) {
    return error.what();
  }
  return "loaded";
}

// The SpecError a plugin backend gives the call `text` names, or "no refusal".
std::string call_refusal(const TensorBackend& backend, const char* text) {
  KernelCall call = harness::materialize(harness::CaseDescription::parse(text));
  try {
    backend.run(call);
  } catch (const SpecError& error) {
    return error.what();
  }
  return "no refusal";
}

TEST(PluginLibrary, AKernelTakingNoIdsOrANegativeLargestCallIsRefused) {
  const auto edges = PluginLibrary::load(DECLARATION_EDGES_PLUGIN);
  EXPECT_EQ(refusal_of(*edges, 0), "takes neither PEC_TAKES_IDS32 nor PEC_TAKES_IDS64");
  EXPECT_EQ(refusal_of(*edges, 1), "largest_call_elements is -1; expected 0 (no limit) or a positive count");
}

// A NULL text is refused as NULL; a kernel without a readable name is listed by its index.
TEST(PluginLibrary, ANullTextIsRefusedAndANamelessKernelIsCalledByItsIndex) {
  const auto edges = PluginLibrary::load(DECLARATION_EDGES_PLUGIN);
  EXPECT_EQ(edges->kernels().at(3).name, "#3");
  EXPECT_EQ(refusal_of(*edges, 3), "kernel 3's name is NULL");
  EXPECT_EQ(refusal_of(*edges, 4), "kernel 'null-patterns': spec_patterns is NULL");
}

// Names become folder names: '_' and '.' are plain, as are 128 characters; ".", "..", the empty
// name and 129 characters are not.
TEST(PluginLibrary, PlainNamesAreOneTo128LettersDigitsDashesUnderscoresAndDots) {
  const auto edges = PluginLibrary::load(DECLARATION_EDGES_PLUGIN);
  for (const std::size_t plain : {5, 6, 11}) {
    EXPECT_TRUE(edges->kernels().at(plain).served()) << edges->kernels().at(plain).name << ": " << refusal_of(*edges, plain);
  }
  EXPECT_EQ(edges->kernels().at(11).name.size(), 128u);
  for (const std::size_t bad : {7, 8, 9, 10}) {
    const std::string& name = edges->kernels().at(bad).name;
    EXPECT_EQ(refusal_of(*edges, bad), fmt::format("kernel name '{}' must be 1 to 128 letters, digits, '_', '-' and '.'", name));
  }
  EXPECT_EQ(edges->kernels().at(10).name.size(), 129u);
}

// "limited" declares a largest call of 4096 elements and takes out-of-place calls with int64 ids
// only: the campaign draws no larger call and no other kind. A kernel that declares 0 is drawn
// the campaign's own largest, 2^32 (kernel_abi.h, largest_call_elements).
TEST(PluginTensorBackend, AKernelIsDrawnOnlyTheCallsItDeclares) {
  const std::shared_ptr<const PluginLibrary> edges = PluginLibrary::load(DECLARATION_EDGES_PLUGIN);
  EXPECT_EQ(edges->kernels().at(2).largest_call_elements, 4096);
  const BackendCapabilities limited = make_plugin_tensor_backend(edges, edges->index_of("limited"))->capabilities();
  EXPECT_EQ(limited.largest_call_elements, 4096);
  EXPECT_TRUE(limited.takes.out_of_place);
  EXPECT_FALSE(limited.takes.in_place);
  EXPECT_TRUE(limited.takes.ids64);
  EXPECT_FALSE(limited.takes.ids32);
  EXPECT_FALSE(limited.takes.strided);
  EXPECT_FALSE(limited.takes.key_operand);
  const std::shared_ptr<const PluginLibrary> declarations = PluginLibrary::load(DECLARATIONS_PLUGIN);
  EXPECT_EQ(make_plugin_tensor_backend(declarations, declarations->index_of("served"))->capabilities().largest_call_elements,
            std::int64_t{1} << 32);
}

// Every class the ABI can say (pec_precision) is drawn for a plugin, fp64-angle included.
TEST(PluginTensorBackend, APluginIsOfferedEveryDtypeAndPrecisionClass) {
  const std::shared_ptr<const PluginLibrary> declarations = PluginLibrary::load(DECLARATIONS_PLUGIN);
  const BackendCapabilities offered = make_plugin_tensor_backend(declarations, declarations->index_of("served"))->capabilities();
  EXPECT_EQ(offered.dtypes, (std::vector<Dtype>{Dtype::fp64, Dtype::fp32, Dtype::fp16, Dtype::bf16}));
  EXPECT_EQ(offered.precisions, (std::vector<PrecisionClass>{PrecisionClass::exact_angle, PrecisionClass::fp32_angle,
                                                             PrecisionClass::lowp_cache, PrecisionClass::fp64_angle}));
}

// kDLOpenCL and kDLCUDA kernels are served where the build has their runtime (the build says
// which through the test's compile definitions); a kDLCUDA kernel is then given CUDA memory, or
// a refusal naming CUDA where the machine has no device; any other device type has no memory.
TEST(PluginLibrary, DeviceKernelsAreServedWhereTheBuildHasTheirRuntime) {
  const auto edges = PluginLibrary::load(DECLARATION_EDGES_PLUGIN);
#ifdef PECONFORM_HAVE_OPENCL
  EXPECT_TRUE(edges->kernels().at(12).served()) << refusal_of(*edges, 12);
#else
  expect_contains(refusal_of(*edges, 12), "this build of peconform has no OpenCL");
#endif
#ifdef PECONFORM_HAVE_CUDA
  EXPECT_TRUE(edges->kernels().at(13).served()) << refusal_of(*edges, 13);
  try {
    const std::unique_ptr<DeviceMemory> memory = open_device_memory(kDLCUDA, std::nullopt);
    ASSERT_NE(memory, nullptr) << "a kDLCUDA kernel was given the host's buffers";
    EXPECT_EQ(memory->device_type(), kDLCUDA);
  } catch (const SpecError& error) {
    expect_contains(error.what(), "no CUDA device for a kDLCUDA kernel");
  }
#else
  expect_contains(refusal_of(*edges, 13), "this build of peconform has no CUDA runtime");
#endif
  try {
    open_device_memory(kDLVulkan, std::nullopt);
    ADD_FAILURE() << "kDLVulkan memory was opened";
  } catch (const SpecError& error) {
    EXPECT_STREQ(error.what(), "peconform drives kDLCPU (1), kDLOpenCL (4) and kDLCUDA (2) only");
  }
}

// A backend is made only of a served kernel whose device opens: else the refusal names the
// kernel, the plugin and why.
TEST(PluginTensorBackend, ARefusedKernelOrADeviceThatDoesNotOpenMakesNoBackend) {
  const std::shared_ptr<const PluginLibrary> declarations = PluginLibrary::load(DECLARATIONS_PLUGIN);
  try {
    make_plugin_tensor_backend(declarations, declarations->index_of("unknown-key"));
    ADD_FAILURE() << "a backend was made of a refused kernel";
  } catch (const SpecError& error) {
    expect_contains(error.what(), "kernel 'unknown-key' of plugin '" DECLARATIONS_PLUGIN "' is refused: pattern 'rope(d=64,flavour=spicy)': unknown key 'flavour' for rope");
  }
  const std::shared_ptr<const PluginLibrary> edges = PluginLibrary::load(DECLARATION_EDGES_PLUGIN);
  if (!edges->kernels().at(12).served()) GTEST_SKIP() << refusal_of(*edges, 12);
  try {
    make_plugin_tensor_backend(edges, edges->index_of("on-opencl"), 999);
    ADD_FAILURE() << "OpenCL device 999 was opened";
  } catch (const SpecError& error) {
    expect_contains(error.what(), "kernel 'on-opencl' of plugin '" DECLARATION_EDGES_PLUGIN "' runs on kDLOpenCL: ");
    expect_contains(error.what(), "999");
  }
}

// A device kernel's context and queue belong to the thread that made them: the campaign calls it
// from that thread alone. A host kernel may be called from any.
TEST(PluginTensorBackend, ADeviceKernelIsCalledFromOneThreadOnly) {
  const std::shared_ptr<const PluginLibrary> declarations = PluginLibrary::load(DECLARATIONS_PLUGIN);
  EXPECT_FALSE(make_plugin_tensor_backend(declarations, declarations->index_of("served"))->capabilities().calling_thread_only);
  const std::shared_ptr<const PluginLibrary> edges = PluginLibrary::load(DECLARATION_EDGES_PLUGIN);
  if (!edges->kernels().at(12).served()) GTEST_SKIP() << refusal_of(*edges, 12);
  std::unique_ptr<TensorBackend> on_opencl;
  try {
    on_opencl = make_plugin_tensor_backend(edges, edges->index_of("on-opencl"));
  } catch (const SpecError& error) {
    GTEST_SKIP() << error.what();
  }
  EXPECT_TRUE(on_opencl->capabilities().calling_thread_only);
}

// A call of a spec no pattern of the kernel admits is refused before the kernel sees it.
TEST(PluginTensorBackend, ASpecNoPatternAdmitsIsRefusedNamingThePatterns) {
  const std::shared_ptr<const PluginLibrary> declarations = PluginLibrary::load(DECLARATIONS_PLUGIN);
  const std::unique_ptr<TensorBackend> served = make_plugin_tensor_backend(declarations, declarations->index_of("served"));
  const char* d128 = "rope(d=128,base=10000,layout=half,dtype=fp32) | batch=1 seq=2 heads=1 place=out ids=int64 positions=run seed=1";
  EXPECT_EQ(call_refusal(*served, d128), fmt::format("kernel 'served' does not serve {}: it serves rope(d=64,layout=*,dtype=fp32|bf16)",
                                                     harness::materialize(harness::CaseDescription::parse(d128)).spec.canonical()));
}

// What a kernel is handed, as the "recorder" kernel saw it: the numeric spec, in_place, ids for
// rotary calls and none for a table, an in-place call's inputs the very buffers of its outputs,
// and no stream on the host. It refuses with an empty message, which reads "no message".
TEST(PluginTensorBackend, AKernelIsHandedTheSpecThePlaceAndIdsWhereItsFamilyTakesThem) {
  const std::shared_ptr<const PluginLibrary> edges = PluginLibrary::load(DECLARATION_EDGES_PLUGIN);
  const std::unique_ptr<TensorBackend> recorder = make_plugin_tensor_backend(edges, edges->index_of("recorder"));
  void* handle = dlopen(DECLARATION_EDGES_PLUGIN, RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(handle, nullptr);
  using LastCall = const recorded_call* (*)();
  const recorded_call& seen = *reinterpret_cast<LastCall>(dlsym(handle, "recorder_last_call"))();
  const int calls_before = seen.calls;
  const char* in_place = "rope(d=16,base=10000,layout=half,dtype=fp32) | batch=1 seq=3 heads=2 place=in ids=int64 positions=run seed=1";
  EXPECT_EQ(call_refusal(*recorder, in_place), "kernel 'recorder' refused the call: no message");
  EXPECT_EQ(seen.calls, calls_before + 1);
  EXPECT_EQ(seen.spec_d, 16);
  EXPECT_EQ(seen.in_place, 1);
  EXPECT_EQ(seen.inputs_are_outputs, 1);
  EXPECT_EQ(seen.ids_given, 1);
  EXPECT_EQ(seen.stream_given, 0);
  call_refusal(*recorder, "rope(d=16,base=10000,layout=half,dtype=fp32) | batch=1 seq=3 heads=2 place=out ids=int64 positions=run seed=1");
  EXPECT_EQ(seen.in_place, 0);
  EXPECT_EQ(seen.inputs_are_outputs, 0);
  call_refusal(*recorder, "sinusoidal(d=8,layout=half,dtype=fp32) | seq=5 seed=1");
  EXPECT_EQ(seen.spec_d, 8);
  EXPECT_EQ(seen.ids_given, 0);
  EXPECT_EQ(seen.calls, calls_before + 3);
  dlclose(handle);
}

// A kernel that fills its whole message buffer (1024 bytes) leaves no NUL: peconform ends the
// message at the buffer's last byte, 1023 characters of it.
TEST(PluginTensorBackend, AKernelsMessageEndsWithinItsBuffer) {
  const std::shared_ptr<const PluginLibrary> edges = PluginLibrary::load(DECLARATION_EDGES_PLUGIN);
  const std::unique_ptr<TensorBackend> no_nul = make_plugin_tensor_backend(edges, edges->index_of("no-nul"));
  EXPECT_EQ(call_refusal(*no_nul, "rope(d=16,base=10000,layout=half,dtype=fp32) | batch=1 seq=3 heads=2 place=out ids=int64 positions=run seed=1"),
            "kernel 'no-nul' refused the call: " + std::string(1023, 'x'));
}

TEST(PluginLibrary, ALibraryWhoseDeclarationIsWrongIsRefusedSayingWhy) {
  EXPECT_EQ(load_refusal(NEGATIVE_COUNT_PLUGIN), "plugin '" NEGATIVE_COUNT_PLUGIN "': kernel_count is -1; expected 0 to 4096");
  EXPECT_EQ(load_refusal(NULL_KERNELS_PLUGIN), "plugin '" NULL_KERNELS_PLUGIN "': kernel_count is 2 but kernels is NULL");
  EXPECT_EQ(load_refusal(NULL_DECLARATION_PLUGIN), "plugin '" NULL_DECLARATION_PLUGIN "': peconform_plugin_v1() returned NULL");
  EXPECT_EQ(load_refusal(NO_ENTRY_POINT_PLUGIN),
            "plugin '" NO_ENTRY_POINT_PLUGIN "' exports no peconform_plugin_v1 function (include/peconform/kernel_abi.h)");
}

TEST(PluginLibrary, ALibraryOfNoKernelsSaysItDeclaresNone) {
  const auto none = PluginLibrary::load(NO_KERNELS_PLUGIN);
  EXPECT_TRUE(none->kernels().empty());
  try {
    none->index_of("cpu");
    ADD_FAILURE() << "found a kernel in a library of none";
  } catch (const SpecError& error) {
    EXPECT_STREQ(error.what(), "plugin '" NO_KERNELS_PLUGIN "' declares no kernel 'cpu'; it declares: none");
  }
}

// A plugin named without a '/' is the file of that name in the working directory, never a
// library the loader finds on its search path: libm.so.6 is on it, and is not loaded from "/".
TEST(PluginLibrary, ABareNameIsOpenedInTheWorkingDirectoryNeverSearchedFor) {
  const std::filesystem::path plugin(NO_KERNELS_PLUGIN), was = std::filesystem::current_path();
  std::filesystem::current_path(plugin.parent_path());
  const std::string here = load_refusal(plugin.filename().string());
  std::filesystem::current_path("/");
  const std::string searched = load_refusal("libm.so.6");
  std::filesystem::current_path(was);
  EXPECT_EQ(here, "loaded");
  expect_contains(searched, "cannot load plugin 'libm.so.6': ");
}

// The library stays loaded while a holder (a backend, a copy) has it, and is closed after the last.
TEST(PluginLibrary, TheLibraryIsClosedWhenTheLastHolderLetsGo) {
  const auto loaded = [] {
    void* handle = dlopen(NO_KERNELS_PLUGIN, RTLD_NOW | RTLD_NOLOAD);
    if (handle != nullptr) dlclose(handle);
    return handle != nullptr;
  };
  ASSERT_FALSE(loaded());
  std::shared_ptr<const PluginLibrary> first = PluginLibrary::load(NO_KERNELS_PLUGIN), second = first;
  first.reset();
  EXPECT_TRUE(loaded());
  second.reset();
  EXPECT_FALSE(loaded());
}

}  // namespace
}  // namespace peconform::plugin
