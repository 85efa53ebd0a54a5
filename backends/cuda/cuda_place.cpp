#include "backends/cuda/cuda_place.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <stdexcept>

#include "backends/cuda/cuda_devices.hpp"
#include "backends/cuda/cuda_tensor_backend.hpp"
#include "spec/spec_error.hpp"

namespace peconform::cuda {
namespace {

void check(cudaError_t error, const char* what) {
  if (error != cudaSuccess) throw std::runtime_error(fmt::format("CUDA backend: {} failed: {}", what, cudaGetErrorString(error)));
}

// A kernel that failed to launch, or faulted while it ran (an illegal address): the kernel's
// failure, reported for its call. A fault is sticky: it leaves the process's CUDA context
// broken, so every later call of the backend fails with it, each a harness error, and the
// campaign's results after the first fault say nothing about the kernels. Kernels suspected of
// faulting are for `peconform run --isolate` (and one case at a time, --replay: its worker
// serves on after a thrown failure, in the same broken context).
void finish(int launch_error, const char* kernel) {
  if (launch_error != cudaSuccess)
    throw KernelFailure("crash", fmt::format("the CUDA {} kernel failed to launch: {}", kernel,
                                             cudaGetErrorString(static_cast<cudaError_t>(launch_error))));
  if (const cudaError_t error = cudaDeviceSynchronize(); error != cudaSuccess)
    throw KernelFailure("crash", fmt::format("the CUDA {} kernel failed: {}", kernel, cudaGetErrorString(error)));
}

class CudaPlace final : public KernelPlace {
 public:
  void* allocate(std::size_t bytes) const override {
    void* data = nullptr;
    check(cudaMalloc(&data, bytes), "cudaMalloc");
    return data;
  }
  void release(void* data) const noexcept override { cudaFree(data); }
  void upload(void* to, const void* from, std::size_t bytes) const override {
    check(cudaMemcpy(to, from, bytes, cudaMemcpyHostToDevice), "cudaMemcpy to the device");
  }
  void download(void* to, const void* from, std::size_t bytes) const override {
    check(cudaMemcpy(to, from, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy from the device");
  }
  void rotary(Storage storage, const DeviceRotaryPlan& plan, const RotaryOperands& operands, const DeviceIds& ids) const override {
    finish(launch_rotary(storage, plan, operands, ids), "rotary");
  }
  void sinusoid(Storage storage, const DeviceSinusoidPlan& plan, void* out, std::int64_t row_stride,
                std::int64_t element_stride) const override {
    finish(launch_sinusoid(storage, plan, out, row_stride, element_stride), "sinusoid");
  }
  void alibi(Storage storage, const DeviceAlibiPlan& plan, void* out, const BiasStrides& stride) const override {
    finish(launch_alibi(storage, plan, out, stride), "alibi");
  }
  void relative_index(const DeviceRelativeIndexPlan& plan, std::int32_t* out, const BiasStrides& stride) const override {
    finish(launch_relative_index(plan, out, stride), plan.t5 ? "t5" : "shaw");
  }
  void gather(const DeviceGather& gather, const DeviceIds& ids) const override { finish(launch_gather(gather, ids), "gather"); }
};

}  // namespace

std::unique_ptr<KernelPlace> make_cuda_place(int device) {
  check(cudaSetDevice(device), "cudaSetDevice");
  return std::make_unique<CudaPlace>();
}

std::unique_ptr<TensorBackend> make_cuda_tensor_backend(std::optional<int> index) {
  const CudaDevices found = cuda_devices();
  if (found.devices.empty()) throw SpecError("--backend cuda: no CUDA device to run on: " + found.unavailable);
  const int chosen = index.value_or(0);
  if (chosen < 0 || chosen >= static_cast<int>(found.devices.size()))
    throw SpecError(fmt::format("--backend cuda: there is no CUDA device {}; this machine has devices 0..{}", chosen,
                                found.devices.size() - 1));
  const CudaDevice& device = found.devices[static_cast<std::size_t>(chosen)];
  return make_placed_tensor_backend("cuda", make_cuda_place(device.index), device.memory_bytes);
}

}  // namespace peconform::cuda
