#pragma once
// cos and sin of an exact angle in double, with a proven bound on their error: the screening
// reference of the campaign's verifier (Ziv's strategy, DESIGN.md section 6: decide fast where
// the bound allows, escalate to the exact tier where it does not).
//
// Both forms start from the fast tier's binary128 frequency theta, whose angle p theta is off
// the true one by at most |phi| 2^-100 (reference/tier_bounds.hpp). They reduce the angle by
// 2 pi to r, split it into double hi + lo, and evaluate cos(hi) - sin(hi) lo and
// sin(hi) + cos(hi) lo with glibc's sin and cos, which glibc documents within 1 ulp (manual,
// "Known Maximum Errors in Math Functions"): at most 2^-53 absolute for values in [-1, 1]. With
// |lo| <= 2^-50, the correction's product rounds by at most 2^-104, the other function's error
// times lo is 2^-103, the dropped lo^2/2 and the rest of the angle-sum formulas stay below
// 2^-101, and the final sum rounds by 2^-54: the evaluation adds at most 2^-53 + 2^-54 + 2^-100,
// counted as 2^-52, whose 2^-54 to spare covers the roundings of the error's own formula below.
//
// - screened_cos_sin(angle): the angle p theta formed and reduced in binary128 (2^-113 relative
//   per operation, |phi| 2^-110 in all below 2^50 rad). Error 2^-52 + |phi| 2^-100.
// - screened_cos_sin(p, frequency): the rotary verifier's per-token and the table verifier's
//   per-row path, in double-double arithmetic (one fma per error-free product) instead of
//   binary128 soft float (the ci profile verifies in 0.65 of the time, tools/BENCHMARKS.md),
//   and more accurate than that (it uses theta's 113 bits whole).
//   Error 2^-52 + 2^-99 + |phi| 2^-100; the proof is at its definition. Outside its range
//   (|p| >= 2^53, |phi| >= 2^50, theta below 2^-800) it takes the binary128 form.
#include <cmath>
#include <cstdint>

#include "backends/implementation.hpp"

namespace peconform::harness {

struct ScreenedCosSin {
  double cos = 0, sin = 0;
  double error = 0;  // bound on |cos - cos(phi)| and on |sin - sin(phi)|
  double magnitude = 0;  // |phi| rounded to double
};

ScreenedCosSin screened_cos_sin(const Wide& angle);

// A binary128 frequency as three doubles, theta = hi + mid + lo exactly (its 113 bits), made
// once per pair.
struct SplitFrequency {
  Wide frequency;
  double hi = 0, mid = 0, lo = 0;
  bool in_range = false;  // finite and 0 or at least 2^-800 in magnitude: the double-double path's domain
};

SplitFrequency split_frequency(const Wide& frequency);

// position * frequency less a whole number of turns 2 pi k, as hi + lo, in double-double; within
// 2^-100.09 + 2^-158.8 |phi| of the exact phi - 2 pi k where in_range (the proof is at the
// definition), not formed where not.
struct ReducedAngle {
  double hi = 0, lo = 0;
  double magnitude = 0;  // |phi| rounded to double
  bool in_range = false;
};

ReducedAngle reduce_angle(std::int64_t position, const SplitFrequency& frequency);

// reduce_angle's constants (reduced_angles.cpp performs it in vectors). 2 pi = C1 + C2 + C3 +
// 2.2e-49 (mpmath at 400 bits, each part the rest rounded to double); 1 / (2 pi) rounded to
// double; q + kTurnShift - kTurnShift is q rounded to the nearest integer; the angle is formed
// only where |p theta|'s head is below kLargestReducedAngle.
inline constexpr double kTwoPi1 = 0x1.921fb54442d18p+2, kTwoPi2 = 0x1.1a62633145c07p-52, kTwoPi3 = -0x1.f1976b7ed8fbcp-108;
inline constexpr double kInverseTwoPi = 0x1.45f306dc9c883p-3;
inline constexpr double kTurnShift = 0x1.8p52;
inline constexpr double kLargestReducedAngle = 0x1p50;

// cos and sin of position * frequency.frequency.
ScreenedCosSin screened_cos_sin(std::int64_t position, const SplitFrequency& frequency);
// The same from the angle's reduction `reduced` (reduce_angle's, or reduce_angles'), in
// binary128 where that is not formed.
ScreenedCosSin screened_cos_sin(std::int64_t position, const SplitFrequency& frequency, const ReducedAngle& reduced);

}  // namespace peconform::harness
