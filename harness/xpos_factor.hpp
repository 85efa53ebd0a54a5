#pragma once
// xPos's factor for one pair and token in double-double: the rotary verifier's per-token values
// log_factor = p lambda, factor = exp(p lambda) and amplitude = A exp(p lambda), where lambda is
// ln(zeta_i) / scale_base signed by role (reference/rotary.hpp) and A the attention factor.
//
// The verifier used to form them in binary128 (Wide(p) * lambda, libquadmath's expq, A times
// that, each rounded to double). That binary128 exp was 12% of the ci profile's time at one
// thread (tools/BENCHMARKS.md, "Third step"). Here the same three doubles come out of
// double-double arithmetic, within 2^-93.7 of the binary128 values (the proof is at the
// definition), and each is returned only where that much cannot change its rounding to double:
// where a value lies within 2^-80 of a point halfway between two doubles, `formed` is false and
// the caller takes the binary128 path. So every value returned is the double the binary128 path
// gives, bit for bit, and the campaign's reports stay the same.
#include <array>
#include <cstdint>
#include <optional>

#include "harness/double_double.hpp"

namespace peconform::harness {

struct RoundedXposFactor {
  double log_factor = 0, factor = 0, amplitude = 0;
  bool formed = false;      // all three
  bool log_formed = false;  // log_factor alone, also where |p lambda| > 600 leaves the others unformed
};

// lambda and A as split_wide gives them. Formed only for p != 0, |p| < 2^53, lambda nonzero and
// at least 2^-800 in magnitude, A in [2^-8, 2^8], |p lambda| <= 600 (but for log_factor), and
// away from the rounding boundaries as above.
RoundedXposFactor rounded_xpos_factor(std::int64_t position, const SplitWide& lambda, const SplitWide& attention);

// The constants `exponential`'s error bound rests on, each stated (and tested) to a precision
// that the bound's proof assumes: 1/n! for n = 0..12 as hi + lo, within 2^-107 relative; ln 2 as
// C1 + C2 + C3, within 2^-164.25.
const std::array<DoubleDouble, 13>& inverse_factorials();
const std::array<double, 3>& ln2_parts();

// exp(x) for |x.hi| <= 600 (else nothing), within 2^-97.3 of exp(x.hi + x.lo) relative, where
// |x.lo| <= 2^-53 |x.hi|.
std::optional<DoubleDouble> exponential(const DoubleDouble& x);

}  // namespace peconform::harness
