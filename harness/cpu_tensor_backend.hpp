#pragma once
// Our CPU kernels (backends/cpu/) as a tensor backend: each call maps onto one kernel call on
// the call's own strided buffers.
#include <memory>

#include "harness/tensor_backend.hpp"

namespace peconform::harness {

std::unique_ptr<TensorBackend> make_cpu_tensor_backend();

}  // namespace peconform::harness
