#pragma once
// The CUDA backend's kernels run on the host: each kernel's thread function (cuda_threads.hpp)
// called for every thread index in turn, on host copies of the buffers, as the device would
// run it. Only the launch (blocks and threads) and CUDA's memory calls are left out.
#include <memory>

#include "backends/cuda/kernel_place.hpp"

namespace peconform::cuda {

std::unique_ptr<KernelPlace> make_host_place();

}  // namespace peconform::cuda
