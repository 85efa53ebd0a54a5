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

// The DLTensor a kernel is handed: the shown axes' extents and strides (in elements), the data
// at the buffer's origin, a CPU device numbered 0 (DLPack's id for the host), the storage dtype
// (int32 for T5 and Shaw indices), no byte offset.
TEST(PluginViews, ATensorViewIsTheBuffersShownAxesOnTheHost) {
  Buffer buffer;
  buffer.type = ElementType::fp16;
  buffer.shape = {2, 3, 4, 8};
  buffer.stride = {200, 64, 10, 1};
  buffer.bytes.resize(static_cast<std::size_t>(buffer.origin + 400 + 2 * kGuardElements) * 2);
  TensorView view;
  view_of(view, buffer, Dtype::fp16, {1, 3});
  EXPECT_EQ(view.tensor.data, buffer.data());
  EXPECT_EQ(view.tensor.device.device_type, kDLCPU);
  EXPECT_EQ(view.tensor.device.device_id, 0);
  EXPECT_EQ(view.tensor.ndim, 2);
  EXPECT_EQ(view.tensor.shape[0], 3);
  EXPECT_EQ(view.tensor.shape[1], 8);
  EXPECT_EQ(view.tensor.strides[0], 64);
  EXPECT_EQ(view.tensor.strides[1], 1);
  EXPECT_EQ(view.tensor.byte_offset, 0u);
  EXPECT_EQ(view.tensor.dtype.code, kDLFloat);
  EXPECT_EQ(view.tensor.dtype.bits, 16);
  Buffer indices;
  indices.type = ElementType::int32;
  indices.shape = {1, 1, 2, 2};
  indices.stride = {4, 4, 2, 1};
  indices.bytes.resize(static_cast<std::size_t>(indices.origin + 4 + 2 * kGuardElements) * 4);
  view_of(view, indices, Dtype::bf16, {2, 3});
  EXPECT_EQ(view.tensor.dtype.code, kDLInt);
  EXPECT_EQ(view.tensor.dtype.bits, 32);
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
