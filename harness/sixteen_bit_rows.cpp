// Compiled once per Highway target (foreach_target.h re-includes this file).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "harness/sixteen_bit_rows.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "backends/cpu/storage.hpp"
#include "harness/half_bits.hpp"
#include "harness/sixteen_bit_rows.hpp"

HWY_BEFORE_NAMESPACE();
namespace peconform::harness::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Highway converts binary16 with F16C's instructions on x86 from AVX2 up, and emulates them
// below (truncating when it narrows, and widening infinities and NaNs to finite values), so only
// those targets vectorise binary16.
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
      // Rounded to odd at binary32's 24 bits, in the double: exact as binary32 (see sixteen_bit_rows.hpp).
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

void WidenBfloat16Row(const std::uint16_t* bits, std::size_t count, double* values) {
  const hn::ScalableTag<double> d;
  const hn::Rebind<float, decltype(d)> df;
  const hn::RebindToUnsigned<decltype(df)> du32;
  const hn::Rebind<std::uint16_t, decltype(df)> du16;
  const std::size_t lanes = hn::Lanes(d);
  std::size_t e = 0;
  for (; e + lanes <= count; e += lanes)
    hn::StoreU(hn::PromoteTo(d, hn::BitCast(df, hn::ShiftLeft<16>(hn::PromoteTo(du32, hn::LoadU(du16, bits + e))))), d, values + e);
  for (; e < count; ++e) values[e] = cpu::widen_bfloat16(cpu::BFloat16{bits[e]});
}

const char* SixteenBitRowsTarget() { return hwy::TargetName(HWY_TARGET); }

}  // namespace peconform::harness::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace peconform::harness {

HWY_EXPORT(RoundRowToHalfBits);
HWY_EXPORT(WidenHalfRow);
HWY_EXPORT(WidenBfloat16Row);
HWY_EXPORT(SixteenBitRowsTarget);

void round_row_to_half_bits(const double* values, std::size_t count, std::uint16_t* bits) {
  HWY_DYNAMIC_DISPATCH(RoundRowToHalfBits)(values, count, bits);
}

void widen_half_row(const std::uint16_t* bits, std::size_t count, double* values) {
  HWY_DYNAMIC_DISPATCH(WidenHalfRow)(bits, count, values);
}

void widen_bfloat16_row(const std::uint16_t* bits, std::size_t count, double* values) {
  HWY_DYNAMIC_DISPATCH(WidenBfloat16Row)(bits, count, values);
}

const char* sixteen_bit_rows_target() { return HWY_DYNAMIC_DISPATCH(SixteenBitRowsTarget)(); }

}  // namespace peconform::harness
#endif  // HWY_ONCE
