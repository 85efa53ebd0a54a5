// Compiled once per Highway target (foreach_target.h re-includes this file), with
// -ffp-contract=off (harness/CMakeLists.txt): a fused multiply-add would round differently from
// the scalar definition and change the drawn inputs.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "harness/activation_draw.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "harness/activation_draw.hpp"

HWY_BEFORE_NAMESPACE();
namespace peconform::harness::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// a b modulo 2^64, lane by lane: no x86 target before AVX-512DQ multiplies 64-bit lanes, so from
// 32-bit halves, a b = al bl + ((ah bl + al bh) mod 2^32) 2^32 (mod 2^64).
// (The one-lane scalar target cannot split a lane in two, and multiplies it whole.)
template <class D> HWY_INLINE hn::Vec<D> Multiply64(D d, hn::Vec<D> a, hn::Vec<D> b) {
#if HWY_TARGET == HWY_SCALAR
  return hn::Set(d, hn::GetLane(a) * hn::GetLane(b));
#else
  const hn::Repartition<uint32_t, D> d32;
  const auto a32 = hn::BitCast(d32, a), b32 = hn::BitCast(d32, b);
  const auto low = hn::MulEven(a32, b32);                     // al bl, whole
  const auto crossed = hn::Mul(a32, hn::Shuffle2301(b32));    // (al bh, ah bl) mod 2^32, per half
  const auto cross = hn::Add(crossed, hn::Shuffle2301(crossed));  // their sum, in both halves
  return hn::Add(low, hn::ShiftLeft<32>(hn::BitCast(d, cross)));
#endif
}

// mix64 (counter_random.hpp) lane by lane.
template <class D> HWY_INLINE hn::Vec<D> Mix64(D d, hn::Vec<D> z) {
  z = Multiply64(d, hn::Xor(z, hn::ShiftRight<30>(z)), hn::Set(d, 0xbf58476d1ce4e5b9ull));
  z = Multiply64(d, hn::Xor(z, hn::ShiftRight<27>(z)), hn::Set(d, 0x94d049bb133111ebull));
  return hn::Xor(z, hn::ShiftRight<31>(z));
}

void DrawActivationRow(const CounterKey& key, std::uint64_t first, const double* scales, std::size_t count, double* values) {
  const hn::ScalableTag<double> d;
  const hn::RebindToUnsigned<decltype(d)> du;
  const hn::RebindToSigned<decltype(d)> di;
  const std::size_t lanes = hn::Lanes(d);
  const double divisor = 65536.0 * std::sqrt(4.0 / 12.0);
  const auto mixed = hn::Set(du, key.mixed()), stream = hn::Set(du, key.stream());
  const auto step = hn::Set(du, 0xd1b54a32d192ed03ull), field = hn::Set(du, 0xffffu);
  std::size_t e = 0;
  for (; e + lanes <= count; e += lanes) {
    const auto index = hn::Iota(du, first + e);
    const auto h = Mix64(du, hn::Xor(mixed, hn::Add(Multiply64(du, index, step), stream)));
    const auto part = [&](auto shifted) { return hn::ConvertTo(d, hn::BitCast(di, hn::And(shifted, field))); };
    auto sum = part(h);
    sum = hn::Add(sum, part(hn::ShiftRight<16>(h)));
    sum = hn::Add(sum, part(hn::ShiftRight<32>(h)));
    sum = hn::Add(sum, part(hn::ShiftRight<48>(h)));
    const auto normal = hn::Div(hn::Sub(sum, hn::Set(d, 2 * 65535.0)), hn::Set(d, divisor));
    hn::StoreU(hn::Mul(normal, hn::LoadU(d, scales + e)), d, values + e);
  }
  draw_activation_row_scalar(key, first + e, scales + e, count - e, values + e);
}

const char* ActivationDrawTarget() { return hwy::TargetName(HWY_TARGET); }

}  // namespace peconform::harness::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace peconform::harness {

HWY_EXPORT(DrawActivationRow);
HWY_EXPORT(ActivationDrawTarget);

void draw_activation_row(const CounterKey& key, std::uint64_t first, const double* scales, std::size_t count, double* values) {
  HWY_DYNAMIC_DISPATCH(DrawActivationRow)(key, first, scales, count, values);
}

const char* activation_draw_target() { return HWY_DYNAMIC_DISPATCH(ActivationDrawTarget)(); }

void draw_activation_row_scalar(const CounterKey& key, std::uint64_t first, const double* scales, std::size_t count,
                                double* values) {
  for (std::size_t e = 0; e < count; ++e) values[e] = irwin_hall_normal(key(first + e)) * scales[e];
}

}  // namespace peconform::harness
#endif  // HWY_ONCE
