// What a plugin's kernel is shown of each family's buffers (DLPack axes), and how a device type
// is named in the refusals a plugin call gets: each family and each device the ABI serves, by
// hand (issue 38's mutation run left both uncovered).
#include <gtest/gtest.h>

#include "backends/plugin/device_memory.hpp"
#include "backends/plugin/dl_tensor_view.hpp"
#include "spec/spec_error.hpp"

namespace peconform::plugin {
namespace {

TEST(PluginViews, EachFamilyShowsItsOwnAxes) {
  using Axes = std::vector<int>;
  for (const Family family : {Family::rope, Family::xpos, Family::mrope, Family::rope2d}) EXPECT_EQ(shown_axes(family, false), (Axes{0, 1, 2, 3}));
  EXPECT_EQ(shown_axes(Family::learned, true), (Axes{2, 3}));
  EXPECT_EQ(shown_axes(Family::learned, false), (Axes{0, 1, 3}));
  EXPECT_EQ(shown_axes(Family::sinusoidal, false), (Axes{1, 3}));
  EXPECT_EQ(shown_axes(Family::xl, false), (Axes{1, 3}));
  EXPECT_EQ(shown_axes(Family::alibi, false), (Axes{1, 2, 3}));
  EXPECT_EQ(shown_axes(Family::t5, false), (Axes{2, 3}));
  EXPECT_EQ(shown_axes(Family::shaw, false), (Axes{2, 3}));
}

TEST(PluginViews, DeviceTypesAreNamedAsDlpackNamesThem) {
  EXPECT_EQ(device_type_name(kDLCPU), "kDLCPU");
  EXPECT_EQ(device_type_name(kDLCUDA), "kDLCUDA");
  EXPECT_EQ(device_type_name(kDLCUDAHost), "kDLCUDAHost");
  EXPECT_EQ(device_type_name(kDLOpenCL), "kDLOpenCL");
  EXPECT_EQ(device_type_name(kDLVulkan), "kDLVulkan");
  EXPECT_EQ(device_type_name(kDLMetal), "kDLMetal");
  EXPECT_EQ(device_type_name(kDLROCM), "kDLROCM");
  EXPECT_EQ(device_type_name(12345), "an unknown device type");
}

// A kernel declared kDLOpenCL gets device memory, or a refusal naming what is missing, and never
// the host's buffers, which only a kDLCPU kernel gets (issue 38: a mutant that served OpenCL
// kernels host memory survived).
TEST(PluginViews, OnlyACpuKernelIsGivenHostBuffers) {
  EXPECT_EQ(open_device_memory(kDLCPU, std::nullopt), nullptr);
  if (const std::string why = unserved_device_type(kDLOpenCL); !why.empty()) GTEST_SKIP() << why;
  try {
    const std::unique_ptr<DeviceMemory> memory = open_device_memory(kDLOpenCL, std::nullopt);
    ASSERT_NE(memory, nullptr);
    EXPECT_EQ(memory->device_type(), kDLOpenCL);
  } catch (const SpecError& error) {
    EXPECT_NE(std::string(error.what()).find("OpenCL"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace peconform::plugin
