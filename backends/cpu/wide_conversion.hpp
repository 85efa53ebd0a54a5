#pragma once
// Values between the kernels' storage types and Wide, the interface's binary128: exact for
// every value the storage type holds (the harness only hands a kernel such values).
#include <span>
#include <type_traits>
#include <vector>

#include "backends/cpu/storage.hpp"
#include "backends/implementation.hpp"

namespace peconform::cpu {

template <class T> T to_storage(const Wide& value) {
  const double wide = static_cast<double>(value);
  if constexpr (std::is_same_v<T, BFloat16>)
    return narrow_to_bfloat16(static_cast<float>(wide));
  else
    return static_cast<T>(wide);
}

template <class T> Wide to_wide(T value) {
  if constexpr (std::is_same_v<T, BFloat16>)
    return Wide(widen_bfloat16(value));
  else
    return Wide(static_cast<double>(value));
}

template <class T> std::vector<T> to_storage(std::span<const Wide> values) {
  std::vector<T> out;
  out.reserve(values.size());
  for (const Wide& value : values) out.push_back(to_storage<T>(value));
  return out;
}

template <class T> std::vector<Wide> to_wide(std::span<const T> values) {
  std::vector<Wide> out;
  out.reserve(values.size());
  for (const T& value : values) out.push_back(to_wide(value));
  return out;
}

}  // namespace peconform::cpu
