#pragma once
// The CUDA devices this process can use, for `peconform devices` and for the backend's own
// message when there are none.
#include <cstdint>
#include <string>
#include <vector>

namespace peconform::cuda {

struct CudaDevice {
  int index = 0;
  std::string name;
  int major = 0, minor = 0;  // compute capability
  std::int64_t memory_bytes = 0;
};

struct CudaDevices {
  std::vector<CudaDevice> devices;
  // Why `devices` is empty: the build has no CUDA, or the runtime's error (no driver, no
  // device) as cudaGetDeviceCount reports it. Empty when devices were found.
  std::string unavailable;
};

CudaDevices cuda_devices();

}  // namespace peconform::cuda
