#pragma once
// Strided views the kernels read and write. A rotary operand is viewed as
// [batch, seq, heads, dim]; storage laid out [batch, heads, seq, dim] is the same view with the
// seq and heads strides swapped, and any slice or transpose is a view with other strides.
// Offsets are 64-bit throughout: a tensor past 2^31 elements must not wrap (Liger #803).
#include <array>
#include <cstdint>
#include <fmt/format.h>

#include "spec/spec_error.hpp"

namespace peconform::cpu {

template <class T> struct Tensor4 {
  T* data = nullptr;
  std::array<std::int64_t, 4> shape{};   // batch, seq, heads, dim
  std::array<std::int64_t, 4> stride{};  // in elements

  T* row(std::int64_t batch, std::int64_t seq, std::int64_t head) const {
    return data + batch * stride[0] + seq * stride[1] + head * stride[2];
  }
};

// A contiguous [batch, seq, heads, dim] view.
template <class T> Tensor4<T> bshd(T* data, std::int64_t batch, std::int64_t seq, std::int64_t heads, std::int64_t dim) {
  return {data, {batch, seq, heads, dim}, {seq * heads * dim, heads * dim, dim, 1}};
}

// A contiguous [batch, heads, seq, dim] buffer seen as [batch, seq, heads, dim].
template <class T> Tensor4<T> bhsd(T* data, std::int64_t batch, std::int64_t heads, std::int64_t seq, std::int64_t dim) {
  return {data, {batch, seq, heads, dim}, {heads * seq * dim, dim, seq * dim, 1}};
}

// Per-token position ids, int32 or int64, [axes, batch, seq] with strides: one axis for RoPE
// and xPos, three (t, h, w) for mRoPE, two (x, y) for 2-D axial RoPE. `offset` is added to
// every id (a KV-cache start, fairseq's padding offset).
struct PositionIds {
  const void* data = nullptr;
  bool is_int64 = true;
  int axes = 1;
  std::array<std::int64_t, 3> stride{};  // axis, batch, seq, in elements
  std::int64_t offset = 0;

  std::int64_t at(int axis, std::int64_t batch, std::int64_t seq) const {
    const std::int64_t index = axis * stride[0] + batch * stride[1] + seq * stride[2];
    const std::int64_t id = is_int64 ? static_cast<const std::int64_t*>(data)[index]
                                     : static_cast<const std::int32_t*>(data)[index];
    // An id and an offset each within int64 can sum past it (2^63 - 1 plus itself wraps to -2):
    // refused, never wrapped, like any other position the kernel cannot take.
    std::int64_t position = 0;
    if (__builtin_add_overflow(id, offset, &position))
      throw SpecError(fmt::format("position id {} plus offset {} at [axis {}, batch {}, seq {}] overflows int64", id, offset,
                                  axis, batch, seq));
    return position;
  }
};

// Contiguous [axes, batch, seq] ids.
template <class Id> PositionIds position_ids(const Id* data, int axes, std::int64_t batch, std::int64_t seq,
                                             std::int64_t offset = 0) {
  static_assert(sizeof(Id) == 4 || sizeof(Id) == 8);
  return {data, sizeof(Id) == 8, axes, {batch * seq, seq, 1}, offset};
}

}  // namespace peconform::cpu
