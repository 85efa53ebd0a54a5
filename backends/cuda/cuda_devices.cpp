#include "backends/cuda/cuda_devices.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

namespace peconform::cuda {

CudaDevices cuda_devices() {
  CudaDevices found;
  int count = 0;
  // The runtime is linked statically and loads the driver (libcuda.so) here, so a machine
  // without one gets an error string rather than a process that cannot start.
  if (const cudaError_t error = cudaGetDeviceCount(&count); error != cudaSuccess) {
    found.unavailable = fmt::format("cudaGetDeviceCount failed: {} ({})", cudaGetErrorString(error), cudaGetErrorName(error));
    return found;
  }
  if (count == 0) {
    found.unavailable = "the CUDA runtime found no device";
    return found;
  }
  for (int index = 0; index < count; ++index) {
    cudaDeviceProp properties{};
    if (const cudaError_t error = cudaGetDeviceProperties(&properties, index); error != cudaSuccess) {
      found.unavailable = fmt::format("cudaGetDeviceProperties({}) failed: {}", index, cudaGetErrorString(error));
      found.devices.clear();
      return found;
    }
    found.devices.push_back({index, properties.name, properties.major, properties.minor,
                             static_cast<std::int64_t>(properties.totalGlobalMem)});
  }
  return found;
}

}  // namespace peconform::cuda
