#pragma once
// The DLPack dtype of each storage dtype, as the C ABI passes it (include/peconform/kernel_abi.h:
// pec_spec.dtype and every float tensor's dtype). Header-only, so that a plugin built from our
// kernels (backends/cpu/plugin/) reads tensors as the host writes them without linking the host.
#include "peconform/kernel_abi.h"
#include "spec/spec.hpp"

namespace peconform::plugin {

inline DLDataType dl_dtype(Dtype dtype) {
  switch (dtype) {
    case Dtype::fp64: return {kDLFloat, 64, 1};
    case Dtype::fp32: return {kDLFloat, 32, 1};
    case Dtype::fp16: return {kDLFloat, 16, 1};
    case Dtype::bf16: return {kDLBfloat, 16, 1};
  }
  return {kDLFloat, 32, 1};
}

}  // namespace peconform::plugin
