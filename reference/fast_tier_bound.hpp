#pragma once
// How far the fast tier (binary128) may stray from the exact tier, element by element.
//
// Error model, with u = 2^-113 the binary128 unit roundoff:
// - A frequency theta from pow/exp of a decimal base carries a relative error of about
//   (|ln theta| + c) u: the exponent's rounding is magnified by |ln theta|; a scaling plan
//   adds a few roundings more.
// - An angle phi = p theta then has an absolute error of about |phi| (|ln theta| + c) u, and
//   sin/cos add an ulp each; xPos's zeta^(n/scale_base) adds |ln(that amplitude)| u relatively.
// - A rotated pair of norm r with amplitude A is therefore off by at most
//   B = A r u (|phi| (|ln theta| + 16) + |ln a_xpos| + 16); a table entry (r = 1) likewise;
//   an ALiBi bias b = -m|i-j| by |b| u (|ln m| + 16). Gathers, pass-through dims, T5 and Shaw
//   indices, and masked -inf entries must be identical (B = 0).
// The constant 16 covers the handful of roundings in each chain with room to spare; the
// self-check reports the worst observed ratio to B so that its tightness is visible.
// xPos amplitudes underflow binary128 once |n| ln(1/zeta)/scale_base passes about 11000, so
// the fast tier is only claimed for |n| <= 2^20 there.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "reference/reference.hpp"

namespace peconform {

inline constexpr std::int64_t kFastTierXposPositionLimit = std::int64_t{1} << 20;

// The bound B for every output element of `exact` at `point`.
std::vector<ExactReal> fast_tier_bounds(const Reference<ExactReal>& exact, const Point& point,
                                        std::span<const ExactReal> input);

struct TierComparison {
  double worst_ratio = 0.0;  // max over elements of |fast - exact| / B (0/0 counts as 0)
  std::string worst_detail;  // element, exact and fast values, error and bound
};

// Evaluates both tiers at every point on `input` (doubles, so that both tiers see the same
// values) and compares them under fast_tier_bounds().
TierComparison compare_tiers(const Spec& spec, std::span<const Point> points, std::span<const double> input);

}  // namespace peconform
