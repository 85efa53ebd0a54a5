#pragma once
// Element access for the verifier's inner loops, typed once per call instead of switching on
// the element type per element.
#include <bit>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "backends/cpu/storage.hpp"
#include "backends/kernel_call.hpp"

namespace peconform::harness {

// binary16 bits widened to float, exactly, in integer arithmetic. The x86-64 baseline the harness
// is built for has no conversion instruction, and libgcc's __extendhfdf2, one call per element,
// made fp16 the slowest dtype to verify. A NaN comes back quiet, as libgcc and F16C give it.
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

template <class T> struct Typed {
  static double value(const Buffer& buffer, std::int64_t index) { return load(pointer(buffer), index); }
  // For inner loops: the typed base pointer once, then plain loads.
  static const T* pointer(const Buffer& buffer) { return reinterpret_cast<const T*>(buffer.bytes.data()); }
  static double load(const T* data, std::int64_t index) {
    if constexpr (std::is_same_v<T, cpu::Half>) {
      std::uint16_t bits = 0;
      std::memcpy(&bits, data + index, sizeof bits);
      return widen_half_bits(bits);
    } else {
      return static_cast<double>(cpu::load(data[index]));
    }
  }
  static std::uint64_t bits(const Buffer& buffer, std::int64_t index) {
    std::uint64_t out = 0;
    std::memcpy(&out, buffer.bytes.data() + index * static_cast<std::int64_t>(sizeof(T)), sizeof(T));
    return out;
  }
};

// Calls body(Typed<T>{}) for the call's dtype.
template <class Body> decltype(auto) with_typed_access(Dtype dtype, Body&& body) {
  return cpu::with_storage_type(dtype, [&](auto tag) { return body(Typed<decltype(tag)>{}); });
}

}  // namespace peconform::harness
