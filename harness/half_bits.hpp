#pragma once
// binary16 conversions in integer arithmetic. The x86-64 baseline the harness is built for has no
// conversion instruction, and libgcc's (__extendhfdf2, __truncdfhf2), one call per element, made
// fp16 the slowest dtype to draw and to verify. Each gives the compiler's conversion bit for bit
// (tests/harness/typed_access_test.cpp, tests/harness/half_bits_test.cpp).
#include <bit>
#include <cstdint>

namespace peconform::harness {

// binary16 bits widened to float, exactly. A NaN comes back quiet, as libgcc and F16C give it.
inline float widen_half_bits(std::uint16_t half) {
  const std::uint32_t sign = std::uint32_t{half & 0x8000u} << 16;
  const std::uint32_t magnitude = half & 0x7fffu;
  if (magnitude < 0x0400u) {
    // Zero or subnormal: magnitude 2^-24, exact in float (a normal float from 2^-24 up).
    const float value = static_cast<float>(magnitude) * 0x1p-24f;
    return std::bit_cast<float>(std::bit_cast<std::uint32_t>(value) | sign);
  }
  if (magnitude >= 0x7c00u) {
    const std::uint32_t fraction = (magnitude & 0x3ffu) << 13;
    return std::bit_cast<float>(sign | 0x7f800000u | fraction | (fraction != 0 ? 0x400000u : 0u));
  }
  // Normal: the exponent's bias moves from 15 to 127, the fraction widens by 13 bits.
  return std::bit_cast<float>(sign | ((magnitude << 13) + ((127u - 15u) << 23)));
}

// The binary16 bits of `value` rounded to nearest, ties to even: overflow to infinity from 65520
// (halfway between the largest finite, 65504, and 2^16) up, subnormals in steps of 2^-24, and a
// NaN quieted with the top ten bits of its payload, as libgcc's __truncdfhf2 gives them.
inline std::uint16_t round_to_half_bits(double value) {
  const std::uint64_t bits = std::bit_cast<std::uint64_t>(value);
  const auto sign = static_cast<std::uint16_t>((bits >> 48) & 0x8000u);
  const std::uint64_t magnitude = bits & 0x7fffffffffffffffull;
  constexpr std::uint64_t kInfinity = 0x7ff0000000000000ull, kFractionMask = (std::uint64_t{1} << 52) - 1;
  if (magnitude > kInfinity) return static_cast<std::uint16_t>(sign | 0x7e00u | ((magnitude >> 42) & 0x3ffu));
  if (magnitude >= std::bit_cast<std::uint64_t>(65520.0)) return static_cast<std::uint16_t>(sign | 0x7c00u);
  const auto exponent = static_cast<int>(magnitude >> 52);  // biased by 1023
  // Below 2^-25 everything rounds to zero (2^-25 itself is the tie between 0 and 2^-24, to even).
  if (exponent < 1023 - 25) return sign;
  std::uint64_t kept = 0, rest = 0;
  int dropped = 0;
  if (exponent >= 1023 - 14) {
    // Normal in binary16: the biased exponent becomes exponent - 1023 + 15 beside the fraction's
    // top ten bits; a carry out of the fraction steps the exponent, which is the right result.
    dropped = 42;
    kept = (static_cast<std::uint64_t>(exponent - 1023 + 15) << 10) | ((magnitude & kFractionMask) >> dropped);
    rest = magnitude & ((std::uint64_t{1} << dropped) - 1);
  } else {
    // Subnormal in binary16: the significand (implicit bit included) in units of 2^-24; a carry
    // to 0x400 is the smallest normal's encoding.
    dropped = 1023 + 52 - 24 - exponent;  // 43 to 53
    const std::uint64_t significand = (magnitude & kFractionMask) | (std::uint64_t{1} << 52);
    kept = significand >> dropped;
    rest = significand & ((std::uint64_t{1} << dropped) - 1);
  }
  const std::uint64_t half = std::uint64_t{1} << (dropped - 1);
  if (rest > half || (rest == half && (kept & 1u) != 0)) ++kept;
  return static_cast<std::uint16_t>(sign | kept);
}

}  // namespace peconform::harness
