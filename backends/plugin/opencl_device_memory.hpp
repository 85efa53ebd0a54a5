#pragma once
// Device memory for kDLOpenCL kernels: buffers in a context of the selected OpenCL device, its
// in-order queue as pec_call.stream (backends/opencl/opencl_runtime.hpp).
#include <memory>
#include <optional>

#include "backends/plugin/device_memory.hpp"

namespace peconform::plugin {

// Throws SpecError (OpenClUnavailable) when there is no OpenCL platform or no device `device`.
std::unique_ptr<DeviceMemory> open_opencl_memory(std::optional<int> device);

}  // namespace peconform::plugin
