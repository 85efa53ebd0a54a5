#pragma once
// The CUDA device as a KernelPlace: cudaMalloc'd buffers, cudaMemcpy, the kernels of
// cuda_kernels.cu, each synchronised and checked.
#include <memory>

#include "backends/cuda/kernel_place.hpp"

namespace peconform::cuda {

// Selects CUDA device `device` for this process.
std::unique_ptr<KernelPlace> make_cuda_place(int device);

}  // namespace peconform::cuda
