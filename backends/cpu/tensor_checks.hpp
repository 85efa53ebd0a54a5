#pragma once
// Checks every kernel makes on its views before it writes anything, so that a bad call is a
// SpecError naming the bad value rather than a write out of bounds.
#include <algorithm>
#include <cstdint>
#include <fmt/format.h>
#include <string>
#include <utility>

#include "backends/cpu/tensor.hpp"
#include "spec/spec_error.hpp"

namespace peconform::cpu {

// The lowest and one past the highest address a view touches, in bytes.
template <class T> std::pair<std::uintptr_t, std::uintptr_t> byte_extent(const Tensor4<T>& view) {
  std::int64_t low = 0, high = 0;
  for (std::size_t k = 0; k < 4; ++k) {
    if (view.shape[k] == 0) return {0, 0};
    const std::int64_t reach = (view.shape[k] - 1) * view.stride[k];
    (reach < 0 ? low : high) += reach;
  }
  const auto base = reinterpret_cast<std::uintptr_t>(view.data);
  return {base + static_cast<std::uintptr_t>(low * static_cast<std::int64_t>(sizeof(T))),
          base + static_cast<std::uintptr_t>((high + 1) * static_cast<std::int64_t>(sizeof(T)))};
}

// An input view and the output view it is written to: same shape, no negative extent, and
// either the same memory (in place) or none in common.
template <class T> void check_view_pair(const std::string& what, const Tensor4<const T>& in, const Tensor4<T>& out) {
  for (std::size_t k = 0; k < 4; ++k) {
    if (in.shape[k] < 0) throw SpecError(fmt::format("{} has a negative extent {} in dimension {}", what, in.shape[k], k));
    if (in.shape[k] != out.shape[k])
      throw SpecError(fmt::format("{}: input extent {} and output extent {} differ in dimension {}", what, in.shape[k],
                                  out.shape[k], k));
  }
  const bool in_place = static_cast<const void*>(in.data) == static_cast<const void*>(out.data) && in.stride == out.stride;
  if (in_place) return;
  const auto [in_low, in_high] = byte_extent(in);
  const auto [out_low, out_high] = byte_extent(out);
  if (in_low < out_high && out_low < in_high)
    throw SpecError(fmt::format("{}: output overlaps the input without being the same view; in-place calls pass the same view", what));
}

}  // namespace peconform::cpu
