#pragma once
// The rotary kernels: every operand of one call (q and k with their own head counts, or one
// tensor) rotated at each token's position ids. cos/sin come per token, computed once and
// shared by every head of every operand (on the fly), or from a CosSinCache built ahead.
// Tokens are split across OpenMP threads; each row's pairs are a SIMD loop.
#include <cstdint>
#include <span>
#include <vector>

#include "backends/cpu/rotary_plan.hpp"
#include "backends/cpu/tensor.hpp"

namespace peconform::cpu {

// One tensor to rotate: `out` may be `in` itself (in place, same data and strides); any other
// overlap is rejected. Dims outside the rotary slice are copied when out is not in.
template <class T> struct RotaryOperand {
  Tensor4<const T> in;
  Tensor4<T> out;
};

// cos/sin of every pair at positions first .. first + rows - 1, row-major [row][pair], in T's
// compute type (T's own format under cache=storage). For mRoPE and 2-D RoPE a row holds the
// values at that position on every axis; each pair reads the row of its own axis's id.
template <class T> struct CosSinCache {
  std::int64_t first_position = 0;
  std::int64_t rows = 0;
  int pairs = 0;
  std::vector<Compute<T>> cos, sin;
};

template <class T> CosSinCache<T> build_cos_sin_cache(const RotaryPlan& plan, std::int64_t first_position, std::int64_t rows);

// Rotates every operand. All operands share batch and seq with `positions`. Throws SpecError,
// before touching any output, for a shape that does not match the plan, a position id outside
// the cache (or past the plan's largest_position), or a partial overlap of in and out.
template <class T>
void apply_rotary(const RotaryPlan& plan, std::span<const RotaryOperand<T>> operands, const PositionIds& positions,
                  const CosSinCache<T>* cache = nullptr);

}  // namespace peconform::cpu
