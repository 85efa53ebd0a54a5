#pragma once
// Device memory owned on the host side (cudaMalloc'd, freed with its owner), and the check of a
// CUDA runtime call outside a kernel, whose failure is a harness failure, not the kernel's.
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <vector>

namespace peconform::cuda {

inline void check(cudaError_t error, const char* what) {
  if (error != cudaSuccess) throw std::runtime_error(fmt::format("CUDA backend: {} failed: {}", what, cudaGetErrorString(error)));
}

class DeviceMemory {
 public:
  explicit DeviceMemory(std::size_t bytes) : bytes_(bytes) {
    if (bytes_ > 0) check(cudaMalloc(&data_, bytes_), "cudaMalloc");
  }
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
  ~DeviceMemory() {
    if (data_ != nullptr) cudaFree(data_);
  }
  void* data() const { return data_; }
  std::size_t bytes() const { return bytes_; }
  void upload(const void* host) { check(cudaMemcpy(data_, host, bytes_, cudaMemcpyHostToDevice), "cudaMemcpy to the device"); }
  void download(void* host) const { check(cudaMemcpy(host, data_, bytes_, cudaMemcpyDeviceToHost), "cudaMemcpy from the device"); }

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

template <class T> std::unique_ptr<DeviceMemory> upload_vector(const std::vector<T>& values) {
  auto memory = std::make_unique<DeviceMemory>(values.size() * sizeof(T));
  if (!values.empty()) memory->upload(values.data());
  return memory;
}

}  // namespace peconform::cuda
