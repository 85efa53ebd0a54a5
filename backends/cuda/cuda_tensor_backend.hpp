#pragma once
// Our CUDA kernels (cuda_kernels.cu) as a tensor backend. Each call is planned on the host by the
// CPU backend's own plan code (make_rotary_plan, make_sinusoid_plan, ...), checked there the way
// the CPU kernels check it, and every host Buffer is copied whole to the device (guards,
// padding and sentinels included) and back, so that an unwritten element or a write out of
// bounds on the device shows in the campaign as it does on the host.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "backends/tensor_backend.hpp"

namespace peconform::cuda {

class KernelPlace;

// Throws SpecError naming what is missing when this build has no CUDA (nvcc was not found, or
// PECONFORM_CUDA=OFF) or when the CUDA runtime finds no usable device (no driver, no GPU):
// cudaGetDeviceCount's own error string, and for a `device` index no CUDA device has.
// Without `device`, CUDA device 0.
std::unique_ptr<TensorBackend> make_cuda_tensor_backend(std::optional<int> device = std::nullopt);

// The same backend with its kernels run at `place` (kernel_place.hpp), which has
// `memory_bytes` for a call's buffers.
std::unique_ptr<TensorBackend> make_placed_tensor_backend(std::string name, std::shared_ptr<const KernelPlace> place,
                                                          std::int64_t memory_bytes);

}  // namespace peconform::cuda
