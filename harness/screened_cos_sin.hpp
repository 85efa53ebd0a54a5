#pragma once
// cos and sin of an exact angle in double, with a proven bound on their error: the screening
// reference of the campaign's verifier (Ziv's strategy, DESIGN.md section 6: decide fast where
// the bound allows, escalate to the exact tier where it does not).
//
// The angle p theta comes in binary128 from the fast tier's frequency (off by at most
// |phi| 2^-100, reference/tier_bounds.hpp), is reduced by 2 pi in binary128 (2^-113 relative
// per operation, so |phi| 2^-110 in all below 2^50 rad), split into double hi + lo, and
// evaluated as cos(hi) - sin(hi) lo and sin(hi) + cos(hi) lo with glibc's sin and cos, which
// glibc documents within 1 ulp (manual, "Known Maximum Errors in Math Functions"), at most 2^-53
// absolute for values in [-1, 1]; the correction's own rounding and its dropped lo^2/2 add 2^-53.
#include <cmath>

#include "backends/implementation.hpp"

namespace peconform::harness {

struct ScreenedCosSin {
  double cos = 0, sin = 0;
  double error = 0;  // bound on |cos - cos(phi)| and on |sin - sin(phi)|
  double magnitude = 0;  // |phi| rounded to double
};

ScreenedCosSin screened_cos_sin(const Wide& angle);

}  // namespace peconform::harness
