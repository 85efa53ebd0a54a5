#pragma once
// The OpenCL backend (`--backend opencl`): every family's kernels in OpenCL C, run on one
// OpenCL device, planned on the host by backends/cpu's plan code. Each call's host buffers
// travel whole (guards, padding and sentinels included) into device buffers and back, so an
// unwritten element or a write out of bounds by a device kernel is a verdict as on the host.
// This header needs no OpenCL headers: a build without them links opencl_unavailable.cpp,
// whose factory refuses with what to install.
#include <memory>
#include <optional>

#include "backends/tensor_backend.hpp"

namespace peconform::opencl {

// The backend on device `device` (the index `peconform devices` prints), else the one
// PECONFORM_OPENCL_DEVICE names, else device 0. Throws SpecError when the build has no
// OpenCL, when there is no such device, or when the device lacks cl_khr_fp64 (exact-angle
// forms and reduces its angles in double on the device).
std::unique_ptr<TensorBackend> make_opencl_tensor_backend(std::optional<int> device = std::nullopt);

}  // namespace peconform::opencl
