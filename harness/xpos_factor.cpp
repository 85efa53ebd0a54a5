#include "harness/xpos_factor.hpp"

#include <array>
#include <cmath>

// Compiled with -ffp-contract=off (harness/double_double.hpp).

namespace peconform::harness {
namespace {

// u = 2^-53 below. Every double-double here is normalised, |lo| <= u |hi|.

// a b, within 2^-103 |a b|: a.hi b.hi is exact (two_product); a.lo b.lo (at most u^2 |a b|)
// is dropped; a.hi b.lo and a.lo b.hi round by u^2 |a b| each, their sum (at most 2u |a b|) by
// 2u^2, and its sum with the product's low part (at most 3u |a b|) by 3u^2: 8 u^2 in all, the
// (1 + u) factors below the 2^-103 rounding. The last Fast2Sum is exact.
DoubleDouble times(const DoubleDouble& a, const DoubleDouble& b) {
  const DoubleDouble head = two_product(a.hi, b.hi);
  return fast_two_sum(head.hi, head.lo + (a.hi * b.lo + a.lo * b.hi));
}

// c + x where x is at most 2^-6.5 |c| (no cancellation: |c| + |x| <= 1.024 |c + x|), within
// 2^-104.3 |c + x|: TwoSum of the heads is exact, the low parts' sum rounds by
// u^2 (|c| + |x|), its sum with TwoSum's error (at most u |c + x|) by u^2 (|c + x| + 1.024 |c + x|),
// 3.05 u^2 in all. The last Fast2Sum is exact.
DoubleDouble sum_without_cancellation(const DoubleDouble& c, const DoubleDouble& x) {
  const DoubleDouble head = two_sum(c.hi, x.hi);
  return fast_two_sum(head.hi, head.lo + (c.lo + x.lo));
}

// 1 / ln 2 rounded to double.
constexpr double kInverseLn2 = 0x1.71547652b82fep+0;

constexpr double kLargestExponent = 600;
constexpr int kSquarings = 5;  // exp(r) = exp(r / 32)^32

// Whether every real within 2^-80 |v.hi| of v.hi + v.lo rounds to v.hi. The two ends tested,
// v.hi + (v.lo -+ 2^-80 |v.hi|), are off the exact ends by the inner sum's rounding (at most
// u (u + 2^-80) |v.hi| < 2^-105 |v.hi|); one IEEE addition rounds its exact sum to nearest, and
// rounding to nearest is monotone, so where both ends round to v.hi everything between does.
// |v.hi| >= 2^-900 keeps 2^-80 |v.hi| exact.
bool rounds_to_head(const DoubleDouble& v) {
  const double margin = std::ldexp(std::abs(v.hi), -80);
  return v.hi + (v.lo - margin) == v.hi && v.hi + (v.lo + margin) == v.hi;
}

}  // namespace

// 1/n! for n = 0..12 as hi + lo, each within 2^-107 relative (mpmath at 400 bits, each part
// the rest rounded to double).
const std::array<DoubleDouble, 13>& inverse_factorials() {
  static constexpr std::array<DoubleDouble, 13> kInverseFactorials{{
      {0x1p+0, 0},
      {0x1p+0, 0},
      {0x1p-1, 0},
      {0x1.5555555555555p-3, 0x1.5555555555555p-57},
      {0x1.5555555555555p-5, 0x1.5555555555555p-59},
      {0x1.1111111111111p-7, 0x1.1111111111111p-63},
      {0x1.6c16c16c16c17p-10, -0x1.f49f49f49f49fp-65},
      {0x1.a01a01a01a01ap-13, 0x1.a01a01a01a01ap-73},
      {0x1.a01a01a01a01ap-16, 0x1.a01a01a01a01ap-76},
      {0x1.71de3a556c734p-19, -0x1.c154f8ddc6c00p-73},
      {0x1.27e4fb7789f5cp-22, 0x1.cbbc05b4fa99ap-76},
      {0x1.ae64567f544e4p-26, -0x1.c062e06d1f209p-80},
      {0x1.1eed8eff8d898p-29, -0x1.2aec959e14c06p-83},
  }};
  return kInverseFactorials;
}

// ln 2 = C1 + C2 + C3 + 3.6e-50 (2^-164.25; mpmath at 400 bits, each part the rest rounded to
// double).
const std::array<double, 3>& ln2_parts() {
  static constexpr std::array<double, 3> kLn2{0x1.62e42fefa39efp-1, 0x1.abc9e3b39803fp-56, 0x1.7b57a079a1934p-111};
  return kLn2;
}

// exp(x), x = X + e with X = x.hi + x.lo exactly, |x.hi| <= 600:
//
// The reduction: k = X.hi / ln 2 rounded to an integer through kInverseLn2 (the 1.5 2^52 shift;
// the product is within 866 2^-52 < 2^-42 of X.hi / ln 2), so |k| <= 866 and
// |X - k ln 2| <= ln 2 (1/2 + 2^-42) + |x.lo| < 0.34658. k C1 = p1 + e1 and k C2 = p2 + e2
// exactly (two_product), p3 = k C3 rounded (|k C3| < 2^-100.7, so off by 2^-153.7), and
// ln 2 - C1 - C2 - C3 adds 866 2^-164.25 < 2^-154.49. The sum r = x.hi - p1 + x.lo - e1 - p2 -
// e2 - p3 in double-double: TwoSum, then five `plus` steps whose partial sums stay below 0.35,
// each erring by at most 2^-106 0.7: |r - (X - k ln 2)| < 2^-104.2.
//
// The polynomial: s = r / 32 (exact), |s| < 0.010831 < 2^-6.528. Horner's scheme
// q12 = 1/12!, q_n = 1/n! + s q_{n+1}, down to q0, with the tail sums T_n = sum_{j >= n} s^(j-n)/j!
// as the exact values. s q_{n+1} is at most |s| 1.04 / (n + 1) < 2^-6.47 of T_n, so each step
// adds at most 2^-104.3 (the sum), 1.012 2^-107 (the coefficient) and 2^-6.47 (delta_{n+1} +
// 2^-103) (the product and the error carried): the relative error stays below
// (2^-104.3 + 2^-106.98 + 2^-109.47) / (1 - 2^-6.47) < 2^-104. The series' tail past 1/12!
// is below |s|^13 / 13! 1.01 < 2^-117.3 of exp(s).
//
// The squarings: five, each a `times` within 2^-103, so
// (1 + 2^-104)^32 (1 + 2^-103)^31 - 1 < 2^-97.44 of exp(r), and 2^k scales both parts exactly
// (|k| <= 866 leaves both in double's normal range). With the reduction's 2^-104.2:
// within 2^-97.3 of exp(X). (Where r is tiny, products of its low part may fall below double's
// normal range; their absolute errors, 2^-1075 each, are nothing against T_n >= 1/n! 0.98.)
std::optional<DoubleDouble> exponential(const DoubleDouble& x) {
  if (!(std::abs(x.hi) <= kLargestExponent)) return std::nullopt;
  constexpr double kShift = 0x1.8p52;  // q + kShift - kShift is q rounded to the nearest integer
  const double k = (x.hi * kInverseLn2 + kShift) - kShift;
  const std::array<double, 3>& ln2 = ln2_parts();
  const DoubleDouble p1 = two_product(k, ln2[0]), p2 = two_product(k, ln2[1]);
  DoubleDouble r = two_sum(x.hi, -p1.hi);
  for (const double term : {x.lo, -p1.lo, -p2.hi, -p2.lo, -(k * ln2[2])}) r = plus(r, term);
  const DoubleDouble s{std::ldexp(r.hi, -kSquarings), std::ldexp(r.lo, -kSquarings)};
  const std::array<DoubleDouble, 13>& coefficients = inverse_factorials();
  DoubleDouble q = coefficients.back();
  for (std::size_t n = coefficients.size() - 1; n-- > 0;) q = sum_without_cancellation(coefficients[n], times(s, q));
  for (int i = 0; i < kSquarings; ++i) q = times(q, q);
  const int scale = static_cast<int>(k);
  return DoubleDouble{std::ldexp(q.hi, scale), std::ldexp(q.lo, scale)};
}

// The three values against the binary128 path's (rotary_verifier.cpp before), with P = p in
// double (exact: |p| < 2^53) and lambda = l1 + l2 + l3 exactly (split_wide):
//
// log_factor: P l1 and P l2 are exact (two_product; |lambda| >= 2^-800 keeps their low parts
// normal, as in reduce_angle), P l3 rounds by 2^-53 |P l3| < 2^-159 |P lambda|, and three `plus`
// steps on partial sums within (1 + 2^-52) of |P lambda| add at most 3 2^-106 2.01 |P lambda|:
// L = L.hi + L.lo is within 2^-103.3 |P lambda|. The binary128 product is P lambda rounded
// once, within 2^-113 of it: L is within 2^-103.2 |L| of it. None of this needs |P lambda| <= 600,
// so L.hi is returned (log_formed) where the factor is not.
//
// factor: with |P lambda| <= 600 (< 2^9.23), L's error moves exp by at most 2^-94.07 relative,
// and `exponential` adds 2^-97.3: E is within 2^-93.9 of exp(P lambda). The binary128 path
// takes expq of the product, which is off by 600 2^-113 < 2^-103.7 in the exponent; expq itself
// is taken to be within 2^-100 of exp (2^13 of its own ulps; glibc's tests hold it to a few):
// E is within 2^-93.8 |E| of the binary128 factor.
//
// amplitude: A = a1 + a2 (split_wide's two heads, within 2^-106 of A) times E, within 2^-103
// (`times`): within 2^-93.7 of A E exactly, and of the binary128 A expq rounded (2^-113 more).
//
// Each value is within 2^-93.7 of its binary128 counterpart, well inside rounds_to_head's
// 2^-80; where rounds_to_head holds, the binary128 value rounds to the same head.
// Domain: P lambda >= 2^-800 keeps 2^-80 |L| normal; A in [2^-8, 2^8] and |P lambda| <= 600
// keep A E and its low part in double's normal range (above 2^-875 and 2^-928).
RoundedXposFactor rounded_xpos_factor(std::int64_t position, const SplitWide& lambda, const SplitWide& attention) {
  constexpr std::int64_t kExactInDouble = std::int64_t{1} << 53;
  const double magnitude = std::abs(lambda.hi);
  if (position == 0 || position >= kExactInDouble || position <= -kExactInDouble || !(magnitude >= 0x1p-800) ||
      !std::isfinite(magnitude) || !(attention.hi >= 0x1p-8 && attention.hi <= 0x1p8))
    return {};
  const double p = static_cast<double>(position);
  DoubleDouble log_factor = two_product(p, lambda.hi);
  const DoubleDouble second = two_product(p, lambda.mid);
  for (const double term : {second.hi, second.lo, p * lambda.lo}) log_factor = plus(log_factor, term);
  if (!rounds_to_head(log_factor)) return {};
  const RoundedXposFactor log_only{log_factor.hi, 0, 0, false, true};
  const std::optional<DoubleDouble> factor = exponential(log_factor);
  if (!factor || !rounds_to_head(*factor)) return log_only;
  const DoubleDouble amplitude = times({attention.hi, attention.mid}, *factor);
  if (!rounds_to_head(amplitude)) return log_only;
  return {log_factor.hi, factor->hi, amplitude.hi, true, true};
}

}  // namespace peconform::harness
