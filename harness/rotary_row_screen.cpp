// Compiled once per Highway target (foreach_target.h re-includes this file), with
// -ffp-contract=off (harness/CMakeLists.txt): a fused multiply-add would round differently from
// the scalar screen and change ratios in their last bits.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "harness/rotary_row_screen.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <algorithm>
#include <bit>
#include <cmath>

#include "harness/element_tally.hpp"
#include "harness/rotary_row_screen.hpp"

HWY_BEFORE_NAMESPACE();
namespace peconform::harness::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// ulps_between (element_tally.hpp) lane by lane, for a finite reference: the difference times
// 2^-spacing, through the subnormal route where 2^-spacing is not a double.
template <class D, class V> HWY_INLINE V UlpsBetween(D d, V difference, V reference, const RowScreenConstants& c) {
  const hn::RebindToSigned<D> di;
  const hn::RebindToUnsigned<D> du;
  const auto biased = hn::BitCast(di, hn::And(hn::ShiftRight<52>(hn::BitCast(du, reference)), hn::Set(du, 0x7ff)));
  const auto unclamped = hn::Sub(biased, hn::Set(di, 1023));
  const auto least = hn::Set(di, c.min_exponent);
  const auto exponent = hn::IfThenElse(hn::Lt(unclamped, least), least, unclamped);
  const auto spacing = hn::Sub(exponent, hn::Set(di, c.mantissa_bits));
  const auto power = [&](auto field) { return hn::BitCast(d, hn::ShiftLeft<52>(hn::BitCast(du, field))); };
  const V normal = hn::Mul(difference, power(hn::Sub(hn::Set(di, 1023), spacing)));
  const V tiny = hn::Div(hn::Mul(difference, hn::Set(d, 0x1p1022)), power(hn::Add(spacing, hn::Set(di, 2045))));
  return hn::IfThenElse(hn::RebindMask(d, hn::Gt(spacing, hn::Set(di, -1023))), normal, tiny);
}

RowScreenSummary ScreenRotaryRow(const RowScreenPairs& t, const RowScreenValues& row, std::size_t pairs,
                                 const RowScreenConstants& c, const RowScreenOut& out) {
  static_assert(HWY_MAX_BYTES / sizeof(double) <= kRowScreenPad, "a vector must fit in the arrays' padding");
  const hn::ScalableTag<double> d;
  using V = hn::Vec<decltype(d)>;
  const std::size_t lanes = hn::Lanes(d);
  const V one = hn::Set(d, 1.0), per_norm = hn::Set(d, c.per_norm), absolute = hn::Set(d, c.absolute);
  const V final = hn::Set(d, c.final), one_plus_final = hn::Set(d, 1 + c.final), store_absolute = hn::Set(d, c.store_absolute);
  const V claim_limit = hn::Set(d, c.claim_limit), smallest = hn::Set(d, kSmallestScreenedAmplitude);
  const V squares_floor = hn::Set(d, 0x1p-900), rounding = hn::Set(d, kBoundRounding), undecided = hn::Set(d, -1.0);
  V worst = hn::Zero(d), most_ulps = hn::Zero(d);
  std::size_t decided_pairs = 0;
  for (std::size_t j = 0; j < pairs; j += lanes) {
    const V xa = hn::LoadU(d, row.xa + j), xb = hn::LoadU(d, row.xb + j);
    const V ya = hn::LoadU(d, row.ya + j), yb = hn::LoadU(d, row.yb + j);
    const V cos = hn::LoadU(d, t.cos + j), sin = hn::LoadU(d, t.sin + j);
    const V squares = hn::Add(hn::Mul(xa, xa), hn::Mul(xb, xb));
    const V r = hn::Sqrt(squares);
    const V scale = hn::Mul(hn::LoadU(d, t.amplitude + j), r);
    const V before_rounding = hn::Add(
        hn::Mul(hn::Add(hn::Add(hn::Mul(scale, hn::LoadU(d, t.relative + j)), hn::Mul(r, per_norm)), absolute), one_plus_final),
        store_absolute);
    const V screen = hn::Mul(scale, hn::LoadU(d, t.reference_relative + j));
    const V ra = hn::Sub(hn::Mul(xa, cos), hn::Mul(xb, sin)), rb = hn::Add(hn::Mul(xa, sin), hn::Mul(xb, cos));
    const V bound_a = hn::Mul(hn::Add(before_rounding, hn::Mul(final, hn::Add(hn::Abs(ra), screen))), rounding);
    const V bound_b = hn::Mul(hn::Add(before_rounding, hn::Mul(final, hn::Add(hn::Abs(rb), screen))), rounding);
    const V da = hn::Abs(hn::Sub(ya, ra)), db = hn::Abs(hn::Sub(yb, rb));
    // std::max(r, 1.0) is r < 1 ? 1 : r (r itself when NaN).
    const V at_least_one = hn::IfThenElse(hn::Lt(r, one), one, r);
    auto decided = hn::And(hn::Lt(hn::Mul(hn::LoadU(d, t.claim_scale + j), at_least_one), claim_limit), hn::Ge(scale, smallest));
    decided = hn::And(decided, hn::Gt(squares, squares_floor));
    decided = hn::And(decided, hn::And(hn::Le(hn::Add(da, screen), bound_a), hn::Le(hn::Add(db, screen), bound_b)));
    if (pairs - j < lanes) decided = hn::And(decided, hn::FirstN(d, pairs - j));
    const V ratio_a = hn::Div(da, bound_a), ratio_b = hn::Div(db, bound_b);
    hn::StoreU(hn::IfThenElse(decided, ratio_a, undecided), d, out.ratio_a + j);
    hn::StoreU(hn::IfThenElse(decided, ratio_b, undecided), d, out.ratio_b + j);
    // Ratios and ULPs are >= 0, so the undecided lanes' zeros leave both maxima as they are.
    worst = hn::Max(worst, hn::IfThenElseZero(decided, hn::Max(ratio_a, ratio_b)));
    const V ulps = hn::Max(UlpsBetween(d, da, ra, c), UlpsBetween(d, db, rb, c));
    most_ulps = hn::Max(most_ulps, hn::IfThenElseZero(decided, ulps));
    decided_pairs += hn::CountTrue(d, decided);
  }
  return {hn::GetLane(hn::MaxOfLanes(d, worst)), hn::GetLane(hn::MaxOfLanes(d, most_ulps)), decided_pairs};
}

const char* RowScreenTarget() { return hwy::TargetName(HWY_TARGET); }

}  // namespace peconform::harness::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace peconform::harness {

HWY_EXPORT(ScreenRotaryRow);
HWY_EXPORT(RowScreenTarget);

RowScreenSummary screen_rotary_row(const RowScreenPairs& token, const RowScreenValues& row, std::size_t pairs,
                                   const RowScreenConstants& constants, const RowScreenOut& out) {
  return HWY_DYNAMIC_DISPATCH(ScreenRotaryRow)(token, row, pairs, constants, out);
}

const char* row_screen_target() { return HWY_DYNAMIC_DISPATCH(RowScreenTarget)(); }

RowScreenSummary screen_rotary_row_scalar(const RowScreenPairs& t, const RowScreenValues& row, std::size_t pairs,
                                          const RowScreenConstants& c, const RowScreenOut& out) {
  const UlpFormat format{c.mantissa_bits, c.min_exponent, false};
  RowScreenSummary summary;
  for (std::size_t j = 0; j < pairs; ++j) {
    const double xa = row.xa[j], xb = row.xb[j], ya = row.ya[j], yb = row.yb[j];
    const double r = std::sqrt(xa * xa + xb * xb);
    const double scale = t.amplitude[j] * r;
    const double before_rounding = (scale * t.relative[j] + r * c.per_norm + c.absolute) * (1 + c.final) + c.store_absolute;
    const double screen = scale * t.reference_relative[j];
    const double ra = xa * t.cos[j] - xb * t.sin[j], rb = xa * t.sin[j] + xb * t.cos[j];
    // The final rounding is relative to the element; |y_e| <= |reference| + screen.
    const double bound_a = (before_rounding + c.final * (std::abs(ra) + screen)) * kBoundRounding;
    const double bound_b = (before_rounding + c.final * (std::abs(rb) + screen)) * kBoundRounding;
    const double da = std::abs(ya - ra), db = std::abs(yb - rb);
    const bool decided = t.claim_scale[j] * std::max(r, 1.0) < c.claim_limit && scale >= kSmallestScreenedAmplitude &&
                         xa * xa + xb * xb > 0x1p-900 &&  // squares clear of double's subnormals
                         da + screen <= bound_a && db + screen <= bound_b;  // false for NaN
    if (!decided) {
      out.ratio_a[j] = out.ratio_b[j] = -1;
      continue;
    }
    out.ratio_a[j] = da / bound_a;
    out.ratio_b[j] = db / bound_b;
    summary.worst_ratio = std::max(summary.worst_ratio, std::max(out.ratio_a[j], out.ratio_b[j]));
    summary.most_ulps = std::max(summary.most_ulps, std::max(ulps_between(ya, ra, format), ulps_between(yb, rb, format)));
    ++summary.decided_pairs;
  }
  return summary;
}

}  // namespace peconform::harness
#endif  // HWY_ONCE
