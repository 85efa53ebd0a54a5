// What a plugin's kernel is shown of each family's buffers (DLPack axes), and how a device type
// is named in the refusals a plugin call gets: each family and each device the ABI serves, by
// hand (issue 38's mutation run left both uncovered).
#include <gtest/gtest.h>

#include "backends/plugin/device_memory.hpp"
#include "backends/plugin/dl_tensor_view.hpp"

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

}  // namespace
}  // namespace peconform::plugin
