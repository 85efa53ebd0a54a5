#pragma once
// How far each reference tier may stray from the exact value, element by element, once its
// result is seen as IEEE binary128 (the value type every implementation reports in).
//
// Fast tier (binary128 arithmetic), with u = 2^-113 its unit roundoff:
// - A frequency theta from pow/exp of a decimal base carries a relative error of about
//   (|ln theta| + c) u: the exponent's rounding is magnified by |ln theta|; a scaling plan
//   adds a few roundings more, except llama3's smoothing, whose subtraction magnifies them by
//   up to (factor - 1) high/(high - low) (llama3_smoothing_error in tier_bounds.cpp).
// - An angle phi = p theta then has an absolute error of about |phi| (|ln theta| + c) u, and
//   sin/cos add an ulp each; xPos's zeta^(n/scale_base) adds |ln(that amplitude)| u relatively,
//   plus 6 |n/scale_base| u from the (up to six) roundings of zeta itself, which the power
//   multiplies by n/scale_base (they dominate where zeta is near 1 and |ln zeta| is small).
// - A rotated pair of norm r with amplitude A is therefore off by at most
//   B = A r u (|phi| (|ln theta| + 16) + |ln a_xpos| + 6 |n/scale_base| + 16); a table entry
//   (r = 1) likewise;
//   an ALiBi bias b = -m|i-j| by |b| u (|ln m| + 16). Gathers, pass-through dims, T5 and Shaw
//   indices, and masked -inf entries must be identical (B = 0).
// The constant 16 covers the handful of roundings in each chain with room to spare; the
// self-check reports the worst observed ratio to B so that its tightness is visible.
//
// Exact tier (MPFR, 60 digits): the same chain with u = 10^-60 stays below 2^-150 relative for
// every angle up to 2^40 rad, so what it reports in binary128 is off by the final rounding to
// 2^-113 and no more. It claims 2^-100 (7.9e-31, inside the 1e-30 the properties hold it to) of
// each element's scale (A r, 1, |b|), which leaves room for the properties' own binary128
// arithmetic.
//
// xPos amplitudes zeta^(+-n/scale_base) leave binary128's range (e^11356) once
// |n| ln(1/zeta)/scale_base grows past it, ln(1/zeta) <= ln 3.5; xpos_position_limit() keeps
// the amplitude, times the largest fp64 input (e^710), inside it with e^16 to spare.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "reference/reference.hpp"

namespace peconform {

// The largest |n| at which both tiers are claimed for an xPos spec: 2^20, or less where a small
// scale_base makes the amplitude grow faster.
std::int64_t xpos_position_limit(const Spec& spec);

// The fast tier's bound B for every output element of `reference` at `point`.
template <class Real>
std::vector<Real> fast_tier_bounds(const Reference<Real>& reference, const Point& point, std::span<const Real> input);

// The exact tier's bound, 2^-100 of each element's scale, for every output element.
template <class Real>
std::vector<Real> exact_tier_bounds(const Reference<Real>& reference, const Point& point, std::span<const Real> input);

struct TierComparison {
  double worst_ratio = 0.0;  // max over elements of |fast - exact| / B (0/0 counts as 0)
  std::string worst_detail;  // element, exact and fast values, error and bound
};

// Evaluates both tiers at every point on `input` (doubles, so that both tiers see the same
// values) and compares them under fast_tier_bounds().
TierComparison compare_tiers(const Spec& spec, std::span<const Point> points, std::span<const double> input);

extern template std::vector<ExactReal> fast_tier_bounds(const Reference<ExactReal>&, const Point&, std::span<const ExactReal>);
extern template std::vector<FastReal> fast_tier_bounds(const Reference<FastReal>&, const Point&, std::span<const FastReal>);
extern template std::vector<ExactReal> exact_tier_bounds(const Reference<ExactReal>&, const Point&, std::span<const ExactReal>);

}  // namespace peconform
