#pragma once
// The constants of each storage format that an error bound is written in, and the format each
// storage dtype computes in: fp64 in double; fp32, fp16 and bf16 in float (DESIGN.md section 2).
#include <limits>

#include "spec/spec.hpp"

namespace peconform {

// What the error model needs of a binary format: its unit roundoff, the spacing of its
// subnormals (the absolute error of a rounding that underflows) and its largest finite value.
struct FormatConstants {
  double unit;
  double subnormal_spacing;
  double largest;
};

inline FormatConstants format_constants(Dtype dtype) {
  switch (dtype) {
    case Dtype::fp64: return {0x1p-53, 0x1p-1074, std::numeric_limits<double>::max()};
    case Dtype::fp32: return {0x1p-24, 0x1p-149, std::numeric_limits<float>::max()};
    case Dtype::fp16: return {0x1p-11, 0x1p-24, 65504.0};
    case Dtype::bf16: return {0x1p-8, 0x1p-133, 0x1.fep127};
  }
  return {0, 0, 0};
}

// The format each storage dtype computes in.
inline Dtype compute_dtype(Dtype storage) { return storage == Dtype::fp64 ? Dtype::fp64 : Dtype::fp32; }

}  // namespace peconform
