// Compiled once per Highway target (foreach_target.h re-includes this file), with
// -ffp-contract=off (harness/CMakeLists.txt): the only fused operations are the explicit
// MulSub of the error-free products, as in reduce_angle's std::fma.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "harness/reduced_angles.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <cstdint>
#include <limits>

#include "harness/reduced_angles.hpp"
#include "harness/rotary_row_screen.hpp"
#include "harness/screened_cos_sin.hpp"

HWY_BEFORE_NAMESPACE();
namespace peconform::harness::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// double_double.hpp's two_sum, two_product and plus, lane by lane.
template <class V> struct PairOf {
  V hi, lo;
};

template <class V> HWY_INLINE PairOf<V> TwoSum(V a, V b) {
  const V hi = hn::Add(a, b);
  const V b_part = hn::Sub(hi, a);
  return {hi, hn::Add(hn::Sub(a, hn::Sub(hi, b_part)), hn::Sub(b, b_part))};
}

template <class V> HWY_INLINE PairOf<V> TwoProduct(V a, V b) {
  const V hi = hn::Mul(a, b);
  return {hi, hn::MulSub(a, b, hi)};
}

template <class V> HWY_INLINE PairOf<V> Plus(PairOf<V> sum, V x) {
  const PairOf<V> head = TwoSum(sum.hi, x);
  return TwoSum(head.hi, hn::Add(head.lo, sum.lo));
}

void ReduceAngles(const AnglesToReduce& in, std::size_t pairs, const ReducedAngles& out) {
#if !HWY_NATIVE_FMA
  // Without a fused multiply-add (SSE4 and older, the scalar target) MulSub rounds twice and the
  // products would not be error-free: reduce_angle itself, pair by pair (std::fma is exact).
  for (std::size_t j = 0; j < pairs; ++j) {
    const ReducedAngle r =
        reduce_angle(static_cast<std::int64_t>(in.position[j]), SplitFrequency{Wide(0), in.hi[j], in.mid[j], in.lo[j], true});
    out.hi[j] = r.in_range ? r.hi : std::numeric_limits<double>::quiet_NaN();
    out.lo[j] = r.lo;
    out.magnitude[j] = r.magnitude;
  }
#else
  static_assert(HWY_MAX_BYTES / sizeof(double) <= kRowScreenPad, "a vector must fit in the arrays' padding");
  const hn::ScalableTag<double> d;
  using V = hn::Vec<decltype(d)>;
  const V inverse_two_pi = hn::Set(d, kInverseTwoPi), shift = hn::Set(d, kTurnShift);
  const V two_pi1 = hn::Set(d, kTwoPi1), two_pi2 = hn::Set(d, kTwoPi2), two_pi3 = hn::Set(d, kTwoPi3);
  const V limit = hn::Set(d, kLargestReducedAngle), nan = hn::Set(d, std::numeric_limits<double>::quiet_NaN());
  for (std::size_t j = 0; j < pairs; j += hn::Lanes(d)) {
    const V p = hn::LoadU(d, in.position + j);
    const PairOf<V> a = TwoProduct(p, hn::LoadU(d, in.hi + j));
    const PairOf<V> b = TwoProduct(p, hn::LoadU(d, in.mid + j));
    const V c = hn::Mul(p, hn::LoadU(d, in.lo + j));
    const V k = hn::Sub(hn::Add(hn::Mul(a.hi, inverse_two_pi), shift), shift);
    const PairOf<V> p1 = TwoProduct(k, two_pi1), p2 = TwoProduct(k, two_pi2);
    const V p3 = hn::Mul(k, two_pi3);
    PairOf<V> sum = TwoSum(a.hi, hn::Neg(p1.hi));
    for (const V term : {a.lo, hn::Neg(p1.lo), b.hi, hn::Neg(p2.hi), b.lo, hn::Neg(p2.lo), hn::Sub(c, p3)}) sum = Plus(sum, term);
    hn::StoreU(hn::IfThenElse(hn::Lt(hn::Abs(a.hi), limit), sum.hi, nan), d, out.hi + j);
    hn::StoreU(sum.lo, d, out.lo + j);
    hn::StoreU(hn::Abs(hn::Add(a.hi, hn::Add(a.lo, b.hi))), d, out.magnitude + j);
  }
#endif
}

const char* ReducedAnglesTarget() { return hwy::TargetName(HWY_TARGET); }

}  // namespace peconform::harness::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace peconform::harness {

HWY_EXPORT(ReduceAngles);
HWY_EXPORT(ReducedAnglesTarget);

void reduce_angles(const AnglesToReduce& in, std::size_t pairs, const ReducedAngles& out) {
  HWY_DYNAMIC_DISPATCH(ReduceAngles)(in, pairs, out);
}

const char* reduced_angles_target() { return HWY_DYNAMIC_DISPATCH(ReducedAnglesTarget)(); }

PairAngles::PairAngles(const std::vector<SplitFrequency>& frequencies)
    : frequency_hi_(padded_pairs(frequencies.size())), frequency_mid_(frequency_hi_.size()), frequency_lo_(frequency_hi_.size()),
      position_(frequency_hi_.size()), hi_(frequency_hi_.size()), lo_(frequency_hi_.size()), magnitude_(frequency_hi_.size()),
      formable_(frequencies.size()) {
  for (std::size_t j = 0; j < frequencies.size(); ++j) {
    in_range_.push_back(frequencies[j].in_range);
    frequency_hi_[j] = frequencies[j].hi;
    frequency_mid_[j] = frequencies[j].mid;
    frequency_lo_[j] = frequencies[j].lo;
  }
}

void PairAngles::reduce(const std::vector<std::int64_t>& positions) {
  // reduce_angle's domain: the frequency in range, the position exact in double.
  constexpr std::int64_t kExactInDouble = std::int64_t{1} << 53;
  for (std::size_t j = 0; j < formable_.size(); ++j) {
    const std::int64_t p = positions[j];
    formable_[j] = in_range_[j] && p < kExactInDouble && p > -kExactInDouble;
    position_[j] = formable_[j] ? static_cast<double>(p) : 0;
  }
  reduce_angles({position_.data(), frequency_hi_.data(), frequency_mid_.data(), frequency_lo_.data()}, formable_.size(),
                {hi_.data(), lo_.data(), magnitude_.data()});
}

}  // namespace peconform::harness
#endif  // HWY_ONCE
