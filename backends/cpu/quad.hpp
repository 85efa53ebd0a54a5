#pragma once
// The scalar the CPU plans compute frequencies, attention factors and zeta in: IEEE binary128
// (GCC's __float128, libquadmath's expq/logq/powq).
//
// Why binary128 and not double-double: exact-angle promises p*theta with theta good to 2^-100
// relative (precision/error_model.hpp charges |phi| 2^-100). theta = base^(-2i/d) has condition
// number |(2i/d) ln base| in its exponent, up to ln(1e6) ~ 14 for the bases models use, so a
// double-double exp/log (about 2^-104 each) would need ln(base) in triple-double to stay under
// 2^-100 with margin. libquadmath's functions are within a few ulps of 2^-113, so theta comes
// out within about 14 * 2^-112 + 4 * 2^-113 < 2^-107 (frequency_plan.hpp), 2^7 below what the
// error model charges, and the plan is computed once per spec, off the hot loop, where
// binary128's cost does not matter. The kernels themselves never touch it.
#include <quadmath.h>

#include <string>

#include "backends/cpu/angle.hpp"
#include "spec/decimal.hpp"

namespace peconform::cpu {

__extension__ typedef __float128 Quad;

// A spec's exact decimal, correctly rounded to binary128 (strtoflt128 reads the text).
inline Quad quad_of(const Decimal& value) { return strtoflt128(value.text().c_str(), nullptr); }

inline Quad quad_pi() { return 4 * atanq(1); }

// theta as hi + lo, two doubles: lo is theta - hi rounded, so the pair holds theta to about 2^-106.
inline SplitFrequency split(Quad theta) {
  const double hi = static_cast<double>(theta);
  return {hi, static_cast<double>(theta - static_cast<Quad>(hi))};
}

}  // namespace peconform::cpu
