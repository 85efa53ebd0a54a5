#include "backends/plugin/cuda_device_memory.hpp"

#include <cuda_runtime_api.h>
#include <dlpack/dlpack.h>
#include <fmt/format.h>
#include <memory>
#include <stdexcept>
#include <string>

#include "spec/spec_error.hpp"

namespace peconform::plugin {
namespace {

// A failed runtime call once the device is open: the device's fault or the kernel's, an error
// verdict for the case.
void check(cudaError_t status, const char* call) {
  if (status != cudaSuccess) throw std::runtime_error(fmt::format("{}: {} ({})", call, cudaGetErrorName(status), cudaGetErrorString(status)));
}

void* cuda_malloc(std::size_t bytes) {
  void* memory = nullptr;
  check(cudaMalloc(&memory, bytes), "cudaMalloc");
  return memory;
}

class CudaAllocation final : public DeviceAllocation {
 public:
  // The memory is owned from the moment it exists, so that a copy or synchronisation that
  // throws frees it.
  CudaAllocation(cudaStream_t stream, const void* host, std::size_t bytes)
      : stream_(stream), memory_(cuda_malloc(bytes)), bytes_(bytes) {
    check(cudaMemcpyAsync(memory_.get(), host, bytes, cudaMemcpyHostToDevice, stream_), "cudaMemcpyAsync");
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  }

  void* handle() const override { return memory_.get(); }
  void copy_out(void* host) const override {
    check(cudaMemcpyAsync(host, memory_.get(), bytes_, cudaMemcpyDeviceToHost, stream_), "cudaMemcpyAsync");
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  }

 private:
  struct CudaFree {
    void operator()(void* memory) const noexcept { cudaFree(memory); }
  };
  cudaStream_t stream_;
  std::unique_ptr<void, CudaFree> memory_;
  std::size_t bytes_;
};

class CudaMemory final : public DeviceMemory {
 public:
  explicit CudaMemory(int device) : device_(device) {
    check(cudaSetDevice(device_), "cudaSetDevice");
    cudaDeviceProp properties{};
    check(cudaGetDeviceProperties(&properties, device_), "cudaGetDeviceProperties");
    name_ = properties.name;
    check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  }
  ~CudaMemory() override { cudaStreamDestroy(stream_); }
  CudaMemory(const CudaMemory&) = delete;
  CudaMemory& operator=(const CudaMemory&) = delete;

  std::int32_t device_type() const override { return kDLCUDA; }
  std::int32_t device_id() const override { return device_; }
  std::string description() const override { return fmt::format("CUDA device {} ({})", device_, name_); }
  void* stream() const override { return stream_; }
  std::unique_ptr<DeviceAllocation> copy_in(const void* host, std::size_t bytes) override {
    return std::make_unique<CudaAllocation>(stream_, host, bytes);
  }
  void synchronize() override { check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize"); }

 private:
  int device_;
  std::string name_;
  cudaStream_t stream_ = nullptr;
};

}  // namespace

std::unique_ptr<DeviceMemory> open_cuda_memory(std::optional<int> device) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status == cudaErrorInsufficientDriver || status == cudaErrorNoDevice || status == cudaErrorInitializationError) {
    int driver = 0;
    cudaDriverGetVersion(&driver);
    std::string why;
    if (driver == 0)
      why = "the NVIDIA driver (libcuda.so.1) is not installed or not loadable";
    else if (status == cudaErrorInsufficientDriver)
      why = fmt::format("the NVIDIA driver supports CUDA {}.{}, older than this build's runtime", driver / 1000, driver % 1000 / 10);
    else if (status == cudaErrorNoDevice)
      why = "the NVIDIA driver sees no CUDA device (is CUDA_VISIBLE_DEVICES set to none, or to indices this machine lacks?)";
    else
      why = "the NVIDIA driver is loaded but failed to initialise CUDA (nvidia-smi may say why)";
    throw SpecError(fmt::format("no CUDA device for a kDLCUDA kernel: cudaGetDeviceCount: {} ({}); {}", cudaGetErrorName(status),
                                cudaGetErrorString(status), why));
  }
  if (status != cudaSuccess)
    throw SpecError(fmt::format("no CUDA device for a kDLCUDA kernel: cudaGetDeviceCount: {} ({})", cudaGetErrorName(status),
                                cudaGetErrorString(status)));
  if (count == 0) throw SpecError("no CUDA device for a kDLCUDA kernel: the CUDA runtime finds none");
  const int chosen = device.value_or(0);
  if (chosen < 0 || chosen >= count)
    throw SpecError(fmt::format("CUDA device {} does not exist: valid indices are 0 to {}", chosen, count - 1));
  return std::make_unique<CudaMemory>(chosen);
}

}  // namespace peconform::plugin
