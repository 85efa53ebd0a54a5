#pragma once
// The four storage dtypes as C++ types and the type each computes in: fp64 computes in double;
// fp32, fp16 and bf16 compute in float (precision/format_constants.hpp states the same rule for
// the error model).
#include <bit>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "spec/spec.hpp"

namespace peconform::cpu {

// binary16. GCC 12 and clang 15 have _Float16 on x86-64 (and define __FLT16_MANT_DIG__ with
// it). Clang 14 does not; its __fp16 stores the same format and converts to it from double or
// float with one rounding (__truncdfhf2 and compiler-rt's __gnu_f2h_ieee; back to float with
// __gnu_h2f_ieee, which libgcc lacks, so backends/cpu/CMakeLists.txt links compiler-rt), but
// cannot be passed or returned by value, so there Half wraps it and converts the way _Float16
// does. tests/backends/half_storage_test.cpp checks the
// rounding against MPFR on whichever type this is.
#ifdef __FLT16_MANT_DIG__
using Half = _Float16;
#else
struct Half {
  __fp16 value;
  Half() = default;
  template <class Number>
    requires std::is_arithmetic_v<Number>
  Half(Number number) : value(static_cast<__fp16>(number)) {}
  operator float() const { return value; }
};
#endif

// bfloat16 held as its bits, the top half of a binary32.
struct BFloat16 {
  std::uint16_t bits = 0;
};

inline float widen_bfloat16(BFloat16 value) { return std::bit_cast<float>(std::uint32_t{value.bits} << 16); }

// Round to nearest even on the dropped half; a NaN stays a NaN (its quiet bit set) instead of
// carrying into the exponent.
inline BFloat16 narrow_to_bfloat16(float value) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  const bool nan = (bits & 0x7fffffffu) > 0x7f800000u;
  const std::uint32_t rounded = (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;
  return {static_cast<std::uint16_t>(nan ? (bits >> 16) | 0x40u : rounded)};
}

template <class T> struct ComputeOf {
  using type = float;
};
template <> struct ComputeOf<double> {
  using type = double;
};
template <class T> using Compute = typename ComputeOf<T>::type;

template <class T> inline Compute<T> load(T value) {
  if constexpr (std::is_same_v<T, BFloat16>)
    return widen_bfloat16(value);
  else
    return static_cast<Compute<T>>(value);
}

template <class T> inline T store(Compute<T> value) {
  if constexpr (std::is_same_v<T, BFloat16>)
    return narrow_to_bfloat16(value);
  else
    return static_cast<T>(value);
}

// Calls `body` with a value of the storage type of `dtype` (its value is irrelevant).
template <class Body> decltype(auto) with_storage_type(Dtype dtype, Body&& body) {
  switch (dtype) {
    case Dtype::fp64: return body(double{});
    case Dtype::fp32: return body(float{});
    case Dtype::fp16: return body(Half{});
    case Dtype::bf16: return body(BFloat16{});
  }
  return body(float{});
}

}  // namespace peconform::cpu
