#pragma once
// How far each reference tier may stray from the exact value, element by element, once its
// result is seen as IEEE binary128 (the value type every implementation reports in).
//
// Fast tier (binary128 arithmetic), with u = 2^-113 its unit roundoff, derived by counting the
// roundings of each chain (precision/measured_constants.md, checked against the exact tier by
// precision/fast_tier_constant_scan):
// - A frequency theta from pow/exp of a decimal base carries a relative error of
//   (w |ln theta| + 16 + x) u: the exponent's rounding is magnified by |ln theta| (w = 1; 2 for
//   dynamic NTK, 6 for geometric sinusoids), and a plan adds x (|ln factor| for the scaling
//   factors, 2f + 2 for dynamic NTK's cancelling length ratio, a mixing term (f - 1)(weight
//   error + 2) + 3 for YaRN's ramp and llama3's smoothing).
// - An angle phi = p theta then has an absolute error of |phi| (w |ln theta| + 16 + x) u, and
//   sin/cos, the amplitude and the final products add up to 20 u (plus a YaRN mscale ratio's
//   own error); xPos's zeta^(n/scale_base) adds 2 |ln(that amplitude)| u relatively, plus
//   6 |n/scale_base| u from the roundings of zeta itself, which the power multiplies.
// - A rotated pair of norm r with amplitude A is therefore off by at most
//   B = A r u (|phi| (w |ln theta| + 16 + x) + 20 + a + 2 |ln a_xpos| + 6 |n/scale_base|); a
//   table entry (r = 1) likewise; an ALiBi bias b = -m|i-j| by |b| u (|ln m| + 16). Gathers,
//   pass-through dims, T5 and Shaw indices, and masked -inf entries must be identical (B = 0).
// The self-check and the campaign report the worst observed ratio to B, so that its tightness
// is visible.
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
