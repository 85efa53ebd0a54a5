#include "backends/cpu/rotary_kernels.hpp"

#include <fmt/format.h>

#include "backends/cpu/kernel_clones.hpp"
#include "backends/cpu/position_range.hpp"
#include "backends/cpu/tensor_checks.hpp"
#include "backends/cpu/threading.hpp"
#include "spec/spec_error.hpp"

namespace peconform::cpu {
namespace {

// One product of a rotation: math=compute keeps it in the compute format for the sum; math=storage
// rounds it to T first, as `x * cos + rotate_half(x) * sin` on tensors of T does (the sum then
// rounds to T at the store).
template <class T, bool kStorageMath> [[gnu::always_inline]] inline Compute<T> product(Compute<T> x, Compute<T> factor) {
  if constexpr (kStorageMath)
    return load(store<T>(x * factor));
  else
    return x * factor;
}

// One head's row (interleaved or half): y_a = x_a c - x_b s, y_b = x_a s + x_b c on every pair.
// Iteration i touches only its own pair, so the loop is a SIMD loop even in place.
template <class T, bool kStorageMath>
[[gnu::always_inline]] inline void rotate_contiguous_row(const RotaryPlan& plan, const Compute<T>* cos, const Compute<T>* sin, const T* x, T* y) {
  const int pairs = plan.pairs;
  if (plan.spec.layout == Layout::half) {
    const T* xa = x + plan.start;
    const T* xb = xa + pairs;
    T* ya = y + plan.start;
    T* yb = ya + pairs;
#pragma omp simd
    for (int i = 0; i < pairs; ++i) {
      const Compute<T> a = load(xa[i]), b = load(xb[i]);
      ya[i] = store<T>(product<T, kStorageMath>(a, cos[i]) - product<T, kStorageMath>(b, sin[i]));
      yb[i] = store<T>(product<T, kStorageMath>(a, sin[i]) + product<T, kStorageMath>(b, cos[i]));
    }
  } else {
    const T* xs = x + plan.start;
    T* ys = y + plan.start;
#pragma omp simd
    for (int i = 0; i < pairs; ++i) {
      const Compute<T> a = load(xs[2 * i]), b = load(xs[2 * i + 1]);
      ys[2 * i] = store<T>(product<T, kStorageMath>(a, cos[i]) - product<T, kStorageMath>(b, sin[i]));
      ys[2 * i + 1] = store<T>(product<T, kStorageMath>(a, sin[i]) + product<T, kStorageMath>(b, cos[i]));
    }
  }
  if (x != y) {
    for (int e = 0; e < plan.start; ++e) y[e] = x[e];
    for (int e = plan.start + plan.dims; e < plan.d; ++e) y[e] = x[e];
  }
}

// The same for a row whose elements are not adjacent (a dim stride other than 1).
template <class T, bool kStorageMath>
void rotate_strided_row(const RotaryPlan& plan, const Compute<T>* cos, const Compute<T>* sin, const T* x,
                        std::int64_t x_stride, T* y, std::int64_t y_stride) {
  for (int i = 0; i < plan.pairs; ++i) {
    const auto [ea, eb] = plan.spec.layout == Layout::half ? std::pair{plan.start + i, plan.start + i + plan.pairs}
                                                           : std::pair{plan.start + 2 * i, plan.start + 2 * i + 1};
    const Compute<T> a = load(x[ea * x_stride]), b = load(x[eb * x_stride]);
    y[ea * y_stride] = store<T>(product<T, kStorageMath>(a, cos[i]) - product<T, kStorageMath>(b, sin[i]));
    y[eb * y_stride] = store<T>(product<T, kStorageMath>(a, sin[i]) + product<T, kStorageMath>(b, cos[i]));
  }
  if (x != y) {
    for (int e = 0; e < plan.start; ++e) y[e * y_stride] = x[e * x_stride];
    for (int e = plan.start + plan.dims; e < plan.d; ++e) y[e * y_stride] = x[e * x_stride];
  }
}

// interleaved_to_half: pair i is read at (2i, 2i+1) and written to (i, i+pairs). In place, a
// write would land on an element a later pair still has to read, so the whole slice is rotated
// into `rotated` (2 * pairs values) before anything is stored.
template <class T, bool kStorageMath>
void rotate_regrouped_row(const RotaryPlan& plan, const Compute<T>* cos, const Compute<T>* sin, const T* x,
                          std::int64_t x_stride, T* y, std::int64_t y_stride, Compute<T>* rotated) {
  const int pairs = plan.pairs;
  const T* xs = x + plan.start * x_stride;
  for (int i = 0; i < pairs; ++i) {
    const Compute<T> a = load(xs[2 * i * x_stride]), b = load(xs[(2 * i + 1) * x_stride]);
    rotated[i] = product<T, kStorageMath>(a, cos[i]) - product<T, kStorageMath>(b, sin[i]);
    rotated[i + pairs] = product<T, kStorageMath>(a, sin[i]) + product<T, kStorageMath>(b, cos[i]);
  }
  T* ys = y + plan.start * y_stride;
  for (int e = 0; e < 2 * pairs; ++e) ys[e * y_stride] = store<T>(rotated[e]);
  if (x != y) {
    for (int e = 0; e < plan.start; ++e) y[e * y_stride] = x[e * x_stride];
    for (int e = plan.start + plan.dims; e < plan.d; ++e) y[e * y_stride] = x[e * x_stride];
  }
}

// Every head of one operand at one token.
template <class T, bool kStorageMath>
PECONFORM_KERNEL_CLONES void rotate_token(const RotaryPlan& plan, const Compute<T>* cos, const Compute<T>* sin,
                                          const RotaryOperand<T>& operand, std::int64_t b, std::int64_t s,
                                          Compute<T>* rotated) {
  const bool contiguous = operand.in.stride[3] == 1 && operand.out.stride[3] == 1;
  for (std::int64_t h = 0; h < operand.in.shape[2]; ++h) {
    const T* x = operand.in.row(b, s, h);
    T* y = operand.out.row(b, s, h);
    if (plan.spec.layout == Layout::interleaved_to_half)
      rotate_regrouped_row<T, kStorageMath>(plan, cos, sin, x, operand.in.stride[3], y, operand.out.stride[3], rotated);
    else if (contiguous)
      rotate_contiguous_row<T, kStorageMath>(plan, cos, sin, x, y);
    else
      rotate_strided_row<T, kStorageMath>(plan, cos, sin, x, operand.in.stride[3], y, operand.out.stride[3]);
  }
}

template <class T> void check_position(const RotaryPlan& plan, const PositionIds& positions, int axis, std::int64_t b,
                                       std::int64_t s, const CosSinCache<T>* cache) {
  const std::int64_t p = positions.at(axis, b, s);
  if (cache != nullptr && (p < cache->first_position || p >= cache->first_position + cache->rows))
    throw SpecError(fmt::format("position id {} at [axis {}, batch {}, seq {}] is outside the cos/sin cache (positions {}..{})",
                                p, axis, b, s, cache->first_position, cache->first_position + cache->rows - 1));
  if (p < -plan.largest_position || p > plan.largest_position)
    throw SpecError(fmt::format("position id {} at [axis {}, batch {}, seq {}] is outside +-{}, where {} angles are claimed",
                                p, axis, b, s, plan.largest_position, plan.spec.canonical()));
}

template <class T>
void check_call(const RotaryPlan& plan, std::span<const RotaryOperand<T>> operands, const PositionIds& positions,
                const CosSinCache<T>* cache) {
  if (operands.empty()) throw SpecError("apply_rotary needs at least one operand");
  if (positions.axes != plan.axes)
    throw SpecError(fmt::format("{} takes {} position axes, found {}", plan.spec.canonical(), plan.axes, positions.axes));
  if (cache != nullptr && cache->pairs != plan.pairs)
    throw SpecError(fmt::format("the cos/sin cache holds {} pairs, the plan rotates {}", cache->pairs, plan.pairs));
  const auto& first = operands.front().in.shape;
  for (std::size_t k = 0; k < operands.size(); ++k) {
    const RotaryOperand<T>& operand = operands[k];
    check_view_pair(fmt::format("operand {}", k), operand.in, operand.out);
    if (operand.in.shape[3] != plan.d)
      throw SpecError(fmt::format("operand {} has dim {}, {} needs {}", k, operand.in.shape[3], plan.spec.canonical(), plan.d));
    if (operand.in.shape[0] != first[0] || operand.in.shape[1] != first[1])
      throw SpecError(fmt::format("operand {} is [batch {}, seq {}], operand 0 is [batch {}, seq {}]", k,
                                  operand.in.shape[0], operand.in.shape[1], first[0], first[1]));
  }
  for (int axis = 0; axis < plan.axes; ++axis)
    for (std::int64_t b = 0; b < first[0]; ++b)
      for (std::int64_t s = 0; s < first[1]; ++s) check_position(plan, positions, axis, b, s, cache);
}

}  // namespace

template <class T> CosSinCache<T> build_cos_sin_cache(const RotaryPlan& plan, std::int64_t first_position, std::int64_t rows) {
  check_position_range("cos/sin cache position", first_position, rows, plan.largest_position);
  CosSinCache<T> cache{first_position, rows, plan.pairs, {}, {}};
  const std::size_t size = static_cast<std::size_t>(rows) * static_cast<std::size_t>(plan.pairs);
  cache.cos.resize(size);
  cache.sin.resize(size);
#pragma omp parallel for schedule(static) if (rows * plan.pairs >= kElementsWorthThreads)
  for (std::int64_t row = 0; row < rows; ++row) {
    const std::int64_t position = first_position + row;
    const std::int64_t at_every_axis[3] = {position, position, position};
    const std::size_t offset = static_cast<std::size_t>(row) * static_cast<std::size_t>(plan.pairs);
    token_cos_sin<T>(plan, at_every_axis, cache.cos.data() + offset, cache.sin.data() + offset);
  }
  return cache;
}

template <class T>
void apply_rotary(const RotaryPlan& plan, std::span<const RotaryOperand<T>> operands, const PositionIds& positions,
                  const CosSinCache<T>* cache) {
  check_call(plan, operands, positions, cache);
  const std::int64_t batch = operands.front().in.shape[0], seq = operands.front().in.shape[1];
  const std::size_t pairs = static_cast<std::size_t>(plan.pairs);
  const bool single_axis = plan.axes == 1;
  std::int64_t rows = 0;
  for (const RotaryOperand<T>& operand : operands) rows += operand.in.shape[2];
  const bool worth_threads = batch * seq * rows * plan.d >= kElementsWorthThreads;
  const auto rotate = plan.spec.math == RoundsIn::storage ? &rotate_token<T, true> : &rotate_token<T, false>;
#pragma omp parallel if (worth_threads)
  {
    std::vector<Compute<T>> cos_buffer(pairs), sin_buffer(pairs), rotated_buffer(2 * pairs);
#pragma omp for schedule(static)
    for (std::int64_t token = 0; token < batch * seq; ++token) {
      const std::int64_t b = token / seq, s = token % seq;
      std::int64_t ids[3] = {0, 0, 0};
      for (int axis = 0; axis < plan.axes; ++axis) ids[axis] = positions.at(axis, b, s);
      const Compute<T>* cos = cos_buffer.data();
      const Compute<T>* sin = sin_buffer.data();
      if (cache == nullptr) {
        token_cos_sin<T>(plan, ids, cos_buffer.data(), sin_buffer.data());
      } else if (single_axis) {
        const std::size_t offset = static_cast<std::size_t>(ids[0] - cache->first_position) * pairs;
        cos = cache->cos.data() + offset;
        sin = cache->sin.data() + offset;
      } else {
        for (std::size_t i = 0; i < pairs; ++i) {
          const std::int64_t row = ids[plan.pair_axis[i]] - cache->first_position;
          cos_buffer[i] = cache->cos[static_cast<std::size_t>(row) * pairs + i];
          sin_buffer[i] = cache->sin[static_cast<std::size_t>(row) * pairs + i];
        }
      }
      for (const RotaryOperand<T>& operand : operands) rotate(plan, cos, sin, operand, b, s, rotated_buffer.data());
    }
  }
}

#define PECONFORM_ROTARY_KERNELS(T)                                                                   \
  template CosSinCache<T> build_cos_sin_cache<T>(const RotaryPlan&, std::int64_t, std::int64_t);      \
  template void apply_rotary<T>(const RotaryPlan&, std::span<const RotaryOperand<T>>, const PositionIds&, \
                                const CosSinCache<T>*);
PECONFORM_ROTARY_KERNELS(double)
PECONFORM_ROTARY_KERNELS(float)
PECONFORM_ROTARY_KERNELS(Half)
PECONFORM_ROTARY_KERNELS(BFloat16)

}  // namespace peconform::cpu
