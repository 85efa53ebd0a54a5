// Compiled once per Highway target (foreach_target.h re-includes this file).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "harness/half_rows.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "harness/half_bits.hpp"
#include "harness/half_rows.hpp"

HWY_BEFORE_NAMESPACE();
namespace peconform::harness::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Highway converts binary16 with F16C's instructions on x86 from AVX2 up, and emulates them
// below (truncating, and taking infinities for finite values), so only those targets vectorise.
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2 && !defined(HWY_DISABLE_F16C)
constexpr bool kF16C = true;
#else
constexpr bool kF16C = false;
#endif

void RoundRowToHalfBits(const double* values, std::size_t count, std::uint16_t* bits) {
  std::size_t e = 0;
  if constexpr (kF16C) {
    const hn::ScalableTag<double> d;
    const hn::RebindToUnsigned<decltype(d)> du;
    const hn::Rebind<float, decltype(d)> df;
    const hn::Rebind<hwy::float16_t, decltype(df)> dh;
    const hn::RebindToUnsigned<decltype(dh)> dhu;
    const std::size_t lanes = hn::Lanes(d);
    const auto dropped = hn::Set(du, (std::uint64_t{1} << 29) - 1);
    for (; e + lanes <= count; e += lanes) {
      // Rounded to odd at binary32's 24 bits, in the double: exact as binary32 (see half_rows.hpp).
      const auto exact = hn::BitCast(du, hn::LoadU(d, values + e));
      const auto sticky = hn::IfThenElseZero(hn::Ne(hn::And(exact, dropped), hn::Zero(du)), hn::Set(du, std::uint64_t{1} << 29));
      const auto odd = hn::BitCast(d, hn::Or(hn::AndNot(dropped, exact), sticky));
      hn::StoreU(hn::BitCast(dhu, hn::DemoteTo(dh, hn::DemoteTo(df, odd))), dhu, bits + e);
    }
  }
  for (; e < count; ++e) bits[e] = round_to_half_bits(values[e]);
}

void WidenHalfRow(const std::uint16_t* bits, std::size_t count, double* values) {
  std::size_t e = 0;
  if constexpr (kF16C) {
    const hn::ScalableTag<double> d;
    const hn::Rebind<float, decltype(d)> df;
    const hn::Rebind<hwy::float16_t, decltype(df)> dh;
    const hn::RebindToUnsigned<decltype(dh)> dhu;
    const std::size_t lanes = hn::Lanes(d);
    for (; e + lanes <= count; e += lanes)
      hn::StoreU(hn::PromoteTo(d, hn::PromoteTo(df, hn::BitCast(dh, hn::LoadU(dhu, bits + e)))), d, values + e);
  }
  for (; e < count; ++e) values[e] = widen_half_bits(bits[e]);
}

const char* HalfRowsTarget() { return hwy::TargetName(HWY_TARGET); }

}  // namespace peconform::harness::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace peconform::harness {

HWY_EXPORT(RoundRowToHalfBits);
HWY_EXPORT(WidenHalfRow);
HWY_EXPORT(HalfRowsTarget);

void round_row_to_half_bits(const double* values, std::size_t count, std::uint16_t* bits) {
  HWY_DYNAMIC_DISPATCH(RoundRowToHalfBits)(values, count, bits);
}

void widen_half_row(const std::uint16_t* bits, std::size_t count, double* values) {
  HWY_DYNAMIC_DISPATCH(WidenHalfRow)(bits, count, values);
}

const char* half_rows_target() { return HWY_DYNAMIC_DISPATCH(HalfRowsTarget)(); }

}  // namespace peconform::harness
#endif  // HWY_ONCE
