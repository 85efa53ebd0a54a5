#include "harness/screened_cos_sin.hpp"

#include <boost/math/constants/constants.hpp>
#include <cmath>

#include "harness/double_double.hpp"

// Compiled with -ffp-contract=off (harness/double_double.hpp).

namespace peconform::harness {
namespace {

// round(x) (half away from zero), exactly as binary128's roundq gives it, through double where
// |x| < 2^52: d = x rounded to double lies within 1/2 of x there, so F = floor(|d|) lies in
// (|x| - 3/2, |x| + 1/2] and |x| - F, a multiple of x's ulp no larger than |x|, is exact in
// binary128 and lies in [-1/2, 3/2); the nearest integer is F + 1 when it is at least 1/2 (a tie,
// exactly 1/2, goes away from zero), else F. Elsewhere (and for NaN) roundq itself.
Wide nearest_integer(const Wide& x) {
  const Wide magnitude = abs(x);
  if (!(magnitude < Wide(0x1p52))) return round(x);
  const double floor = std::floor(static_cast<double>(magnitude));
  const Wide nearest = Wide(magnitude - Wide(floor) >= Wide(0.5) ? floor + 1 : floor);
  return x < 0 ? Wide(-nearest) : nearest;
}

// cos and sin of hi + lo, |lo| <= 2^-50 (screened_cos_sin.hpp).
ScreenedCosSin evaluate(double hi, double lo, double error, double magnitude) {
  const double s = std::sin(hi), c = std::cos(hi);
  return {c - s * lo, s + c * lo, error, magnitude};
}

}  // namespace

ScreenedCosSin screened_cos_sin(const Wide& angle) {
  static const Wide two_pi = 2 * boost::math::constants::pi<Wide>();
  static const Wide inverse_two_pi = 1 / two_pi;
  const Wide turns = nearest_integer(angle * inverse_two_pi);
  const Wide reduced = angle - turns * two_pi;
  const double hi = static_cast<double>(reduced);
  const double lo = static_cast<double>(reduced - Wide(hi));
  const double magnitude = std::abs(static_cast<double>(angle));
  return evaluate(hi, lo, 0x1p-52 + magnitude * 0x1p-100, magnitude);
}

SplitFrequency split_frequency(const Wide& frequency) {
  const SplitWide parts = split_wide(frequency);
  SplitFrequency split{frequency, parts.hi, parts.mid, parts.lo};
  const double magnitude = std::abs(split.hi);
  split.in_range = magnitude == 0 || (magnitude >= 0x1p-800 && std::isfinite(magnitude));
  return split;
}

// The double-double angle, theta = the binary128 frequency = hi + mid + lo, P = p in double
// (exact: |p| < 2^53), phi = P theta.
//
// The product: P hi = ah + al and P mid = bh + bl exactly (two_product: |theta| >= 2^-800 keeps
// both products and their low parts in double's normal range, since mid and lo are multiples of
// theta's binary128 ulp, at least 2^-912), and c = P lo rounded, off by 2^-53 |P lo| <=
// 2^-159 |phi|.
//
// The turns: where |ah| < 2^50, q = ah kInverseTwoPi rounded is within (1 + 2^-52)^2 of
// ah / (2 pi), and k = q rounded to the nearest integer (the 1.5 2^52 shift, exact below 2^51)
// satisfies |ah / (2 pi) - k| <= 1/2 + 2^47.35 2^-51.99 < 0.55; so |k| <= |phi| / 2^2.6 + 0.6,
// below 2^47.4.
//
// The reduction: k C1 = p1 + e1 and k C2 = p2 + e2 exactly (two_product), p3 = k C3 rounded (off
// by 2^-53 |k| 2^-107 <= 2^-162.6 |phi| + 2^-160.7), and 2 pi - C1 - C2 - C3 (2^-161.3) adds
// |k| 2^-161.3 at most. Hence
//   r = phi - 2 pi k = S + e,  S = ah - p1 + al - e1 + bh - p2 + bl - e2 + (c - p3),
//   |e| <= 2^-158.8 |phi| + 2^-108,
// counting c - p3's own rounding (|c| <= 2^-56, |p3| <= 2^-59: at most 2^-108), with
// cos(r) = cos(phi) and sin(r) = sin(phi).
//
// The sum S in double-double: ah - p1 exactly (two_sum), then seven `plus` steps. Its terms'
// magnitudes: |ah - p1| <= 2 pi 0.55 + |k| |2 pi - C1| + |e1| <= 3.46 + 0.05 + 0.125; |al|, |e1|,
// |bh| <= 2^-3; |p2| <= 0.05; the rest below 2^-55. Every partial sum is therefore below 4.2,
// each step errs by at most 2^-106 8.4 < 2^-102.9, and the seven by less than 2^-100.12.
//
// In all, the reduced angle hi + lo is within 2^-100.09 + 2^-158.8 |phi| of r (|lo| <= 2^-53 4.2
// < 2^-50), and r within |phi| 2^-100 of the true angle's reduction (the frequency's own error).
// cos and sin move by no more than the angle, so with the evaluation's 2^-52
// (screened_cos_sin.hpp) the error is at most 2^-52 + 2^-100.09 + |phi| (2^-100 + 2^-158.8);
// taking |phi| <= magnitude (1 + 2^-52) and |phi| < 2^50.1, the terms past 2^-52 +
// magnitude 2^-100 add at most 2^-100.09 + 2^-108.7 + 2^-101.9 < 2^-99.
//
// Outside |p| < 2^53, |theta| >= 2^-800 or 0, and |ah| < 2^50, nothing is formed and
// screened_cos_sin takes the binary128 path.
ReducedAngle reduce_angle(std::int64_t position, const SplitFrequency& frequency) {
  constexpr std::int64_t kExactInDouble = std::int64_t{1} << 53;
  if (!frequency.in_range || position >= kExactInDouble || position <= -kExactInDouble) return {};
  const double p = static_cast<double>(position);
  const DoubleDouble a = two_product(p, frequency.hi);
  if (!(std::abs(a.hi) < kLargestReducedAngle)) return {};
  const DoubleDouble b = two_product(p, frequency.mid);
  const double c = p * frequency.lo;
  const double k = (a.hi * kInverseTwoPi + kTurnShift) - kTurnShift;
  const DoubleDouble p1 = two_product(k, kTwoPi1), p2 = two_product(k, kTwoPi2);
  const double p3 = k * kTwoPi3;
  DoubleDouble sum = two_sum(a.hi, -p1.hi);
  for (const double term : {a.lo, -p1.lo, b.hi, -p2.hi, b.lo, -p2.lo, c - p3}) sum = plus(sum, term);
  return {sum.hi, sum.lo, std::abs(a.hi + (a.lo + b.hi)), true};
}

ScreenedCosSin screened_cos_sin(std::int64_t position, const SplitFrequency& frequency) {
  return screened_cos_sin(position, frequency, reduce_angle(position, frequency));
}

ScreenedCosSin screened_cos_sin(std::int64_t position, const SplitFrequency& frequency, const ReducedAngle& r) {
  if (!r.in_range) return screened_cos_sin(Wide(position) * frequency.frequency);
  return evaluate(r.hi, r.lo, 0x1p-52 + 0x1p-99 + r.magnitude * 0x1p-100, r.magnitude);
}

}  // namespace peconform::harness
