#pragma once
// A call's buffers as DLPack tensors, with the axes each family shows a kernel
// (include/peconform/kernel_abi.h, pec_call): the description the C ABI hands a plugin and the
// Python module (python/) hands a callable, over the same bytes, guards and padding in place.
#include <array>
#include <cstdint>
#include <vector>

#include "backends/kernel_call.hpp"
#include "peconform/kernel_abi.h"

namespace peconform::plugin {

// A DLTensor over some of a buffer's four axes, with its shape and strides (the tensor points
// into them: a view must not be copied once made, only its tensor).
struct TensorView {
  std::array<std::int64_t, 4> shape{}, strides{};
  DLTensor tensor{};
};

// The axes of a buffer the family shows: a rotary operand is [batch, seq, heads, d]; a learned
// table [rows, d] and its output [batch, seq, d]; a table [rows, d]; ALiBi [heads, queries,
// keys]; T5 and Shaw [queries, keys].
std::vector<int> shown_axes(Family family, bool learned_table);

// Makes `view` describe `axes` of `buffer` on the host; a buffer holds the spec's dtype, or
// int32 indices (T5, Shaw).
void view_of(TensorView& view, Buffer& buffer, Dtype dtype, const std::vector<int>& axes);

}  // namespace peconform::plugin
