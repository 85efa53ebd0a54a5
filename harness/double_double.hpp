#pragma once
// Double-double arithmetic for the screening references (screened_cos_sin.cpp, xpos_factor.cpp):
// error-free sums and products in double (one fma each) instead of binary128 soft float.
//
// Every file that includes this one must be compiled with -ffp-contract=off
// (harness/CMakeLists.txt): the error-free transformations are exact only if no product is
// fused into the sum that follows it.
#include <cmath>

#include "backends/implementation.hpp"

namespace peconform::harness {

// An unevaluated sum hi + lo.
struct DoubleDouble {
  double hi = 0, lo = 0;
};

// Knuth's TwoSum: a + b = hi + lo exactly, whatever the magnitudes, with hi = a + b rounded (so
// |lo| <= 2^-53 |hi|).
inline DoubleDouble two_sum(double a, double b) {
  const double hi = a + b;
  const double b_part = hi - a;
  return {hi, (a - (hi - b_part)) + (b - b_part)};
}

// Dekker's Fast2Sum: a + b = hi + lo exactly where |a| >= |b| (or a is 0).
inline DoubleDouble fast_two_sum(double a, double b) {
  const double hi = a + b;
  return {hi, b - (hi - a)};
}

// a b = hi + lo exactly, where the product's low part is not below double's normal range.
inline DoubleDouble two_product(double a, double b) {
  const double hi = a * b;
  return {hi, std::fma(a, b, -hi)};
}

// sum + x, exact but for the rounding of the two low parts' sum: at most
// 2^-106 (|sum.hi| + |sum.hi + x|) (each low part is at most 2^-53 of its high part).
inline DoubleDouble plus(const DoubleDouble& sum, double x) {
  const DoubleDouble head = two_sum(sum.hi, x);
  return two_sum(head.hi, head.lo + sum.lo);
}

// A binary128 value as three doubles, value = hi + mid + lo exactly: each rest is exact in
// binary128, and the last has at most 113 - 2 53 bits.
struct SplitWide {
  double hi = 0, mid = 0, lo = 0;
};

inline SplitWide split_wide(const Wide& value) {
  SplitWide split;
  split.hi = static_cast<double>(value);
  const Wide rest = value - Wide(split.hi);
  split.mid = static_cast<double>(rest);
  split.lo = static_cast<double>(rest - Wide(split.mid));
  return split;
}

}  // namespace peconform::harness
