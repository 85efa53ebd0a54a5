#pragma once
// Element access for the verifier's inner loops, typed once per call instead of switching on
// the element type per element.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>

#include "backends/cpu/storage.hpp"
#include "backends/kernel_call.hpp"
#include "harness/half_bits.hpp"
#include "harness/sixteen_bit_rows.hpp"

namespace peconform::harness {

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
  // Whether a dense row is cheaper widened whole, in vectors (sixteen_bit_rows.hpp), than element
  // by element: for the 16-bit dtypes; fp32's and fp64's loads are a conversion or nothing.
  static constexpr bool kWidensRows = std::is_same_v<T, cpu::Half> || std::is_same_v<T, cpu::BFloat16>;
  // data[0, count) widened to double.
  static void load_row(const T* data, std::size_t count, double* values)
    requires kWidensRows
  {
    if constexpr (std::is_same_v<T, cpu::Half>) widen_half_row(reinterpret_cast<const std::uint16_t*>(data), count, values);
    else widen_bfloat16_row(reinterpret_cast<const std::uint16_t*>(data), count, values);
  }
  // Which sentinel the logical element at `index` of `buffer`, whose value is `value`, holds,
  // if any (none in the kernel's own array: Buffer::kernel_array). Sentinels are NaNs
  // (backends/kernel_call.hpp): only a NaN pays for the lookup.
  static std::string_view sentinel_held(const Buffer& buffer, std::int64_t index, double value) {
    return std::isnan(value) ? sentinel_kind(buffer, bits(buffer, index)) : std::string_view{};
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
