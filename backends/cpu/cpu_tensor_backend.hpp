#pragma once
// Our CPU kernels as a tensor backend: each call maps onto one kernel call on the call's own
// strided buffers. Its own library (peconform_cpu_tensor_backend), apart from the kernels', so
// that the kernels can be linked into a plugin without it.
#include <memory>

#include "backends/tensor_backend.hpp"

namespace peconform::cpu {

std::unique_ptr<TensorBackend> make_cpu_tensor_backend();

}  // namespace peconform::cpu
