#pragma once
// Device memory for kDLCUDA kernels through the CUDA runtime API (libcudart_static): cudaMalloc'd
// buffers on the selected device and a stream of its own as pec_call.stream.
#include <memory>
#include <optional>

#include "backends/plugin/device_memory.hpp"

namespace peconform::plugin {

// Throws SpecError when the runtime finds no usable driver or device (naming the CUDA error, and
// the NVIDIA driver when it is the driver that is missing) or there is no device `device`.
std::unique_ptr<DeviceMemory> open_cuda_memory(std::optional<int> device);

}  // namespace peconform::plugin
