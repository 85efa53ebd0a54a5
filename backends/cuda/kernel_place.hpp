#pragma once
// Where the CUDA backend's kernels run and its buffers live: on a CUDA device (cuda_place.cpp),
// or, for the tests of a machine without one, on the host, each thread's function
// (cuda_threads.hpp) run for every index (tests/backends/cuda/host_place.cpp). The backend's
// planning, checks and copies (cuda_tensor_backend.cpp) are the same for both.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "backends/cuda/cuda_kernels.hpp"

namespace peconform::cuda {

class KernelPlace {
 public:
  virtual ~KernelPlace() = default;
  // Failures of these are the harness's (std::runtime_error).
  virtual void* allocate(std::size_t bytes) const = 0;
  virtual void release(void* data) const noexcept = 0;
  virtual void upload(void* to, const void* from, std::size_t bytes) const = 0;
  virtual void download(void* to, const void* from, std::size_t bytes) const = 0;
  // Each runs its kernel to completion; a kernel that fails to launch or faults is a
  // KernelFailure("crash").
  virtual void rotary(Storage storage, const DeviceRotaryPlan& plan, const RotaryOperands& operands, const DeviceIds& ids) const = 0;
  virtual void sinusoid(Storage storage, const DeviceSinusoidPlan& plan, void* out, std::int64_t row_stride,
                        std::int64_t element_stride) const = 0;
  virtual void alibi(Storage storage, const DeviceAlibiPlan& plan, void* out, const BiasStrides& stride) const = 0;
  virtual void relative_index(const DeviceRelativeIndexPlan& plan, std::int32_t* out, const BiasStrides& stride) const = 0;
  virtual void gather(const DeviceGather& gather, const DeviceIds& ids) const = 0;
};

// Memory of a place, released with its owner.
class PlacedMemory {
 public:
  PlacedMemory(const KernelPlace& place, std::size_t bytes) : place_(place), bytes_(bytes) {
    if (bytes_ > 0) data_ = place_.allocate(bytes_);
  }
  PlacedMemory(const PlacedMemory&) = delete;
  PlacedMemory& operator=(const PlacedMemory&) = delete;
  ~PlacedMemory() {
    if (data_ != nullptr) place_.release(data_);
  }
  void* data() const { return data_; }
  void upload(const void* host) { place_.upload(data_, host, bytes_); }
  void download(void* host) const { place_.download(host, data_, bytes_); }

 private:
  const KernelPlace& place_;
  std::size_t bytes_ = 0;
  void* data_ = nullptr;
};

template <class T> std::unique_ptr<PlacedMemory> upload_vector(const KernelPlace& place, const std::vector<T>& values) {
  auto memory = std::make_unique<PlacedMemory>(place, values.size() * sizeof(T));
  if (!values.empty()) memory->upload(values.data());
  return memory;
}

}  // namespace peconform::cuda
