#include "backends/cpu/table_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <type_traits>

#include "backends/cpu/alibi_slopes.hpp"
#include "backends/cpu/frequency_plan.hpp"
#include "backends/cpu/kernel_clones.hpp"
#include "backends/cpu/position_range.hpp"
#include "backends/cpu/theta_recipe.hpp"
#include "backends/cpu/threading.hpp"
#include "precision/format_constants.hpp"
#include "spec/spec_error.hpp"

namespace peconform::cpu {

SinusoidPlan make_sinusoid_plan(const Spec& spec) {
  if (spec.family != Family::sinusoidal && spec.family != Family::xl)
    throw SpecError(fmt::format("{} is not a sinusoidal family", family_name(spec.family)));
  SinusoidPlan plan{spec, {}, {}, {}, spec.amp.to_double(), 0};
  double largest_frequency = 0;
  const std::vector<Quad> theta = sinusoid_frequencies(spec);
  for (const Quad value : theta) {
    plan.frequency.push_back(split(value));
    largest_frequency = std::max(largest_frequency, plan.frequency.back().hi);
  }
  plan.frequency_f32 = float32_table_theta(spec, theta);  // float32 values, held exactly
  plan.power_f64 = float64_table_power(spec, static_cast<int>(theta.size()));
  plan.largest_position = largest_position_for(largest_frequency);
  return plan;
}

namespace {

// How a table row forms its angles: exact-angle and lowp-cache to 106 bits, fp32-angle in
// float32, fp64-angle as p / b^(m_k/D) in float64.
enum class TableAngle { exact, float32, float64 };

template <TableAngle kAngle>
[[gnu::always_inline]] inline Angle table_angle(const SinusoidPlan& plan, double position, double position_f32, int i) {
  if constexpr (kAngle == TableAngle::float32) return float32_angle(position_f32, plan.frequency_f32[static_cast<std::size_t>(i)]);
  if constexpr (kAngle == TableAngle::float64) return {position / plan.power_f64[static_cast<std::size_t>(i)], 0.0};
  return exact_angle(position, plan.frequency[static_cast<std::size_t>(i)]);
}

// One table row at `position`: pair i's two values go to (2i, 2i+1) interleaved or (i, i+n)
// half; odd d ends in a lone column (interleaved) or a zero (half). The forms are template
// arguments so that each is one SIMD loop.
template <class T, TableAngle kAngle, bool kInterleaved>
PECONFORM_KERNEL_CLONES void sinusoid_row(const SinusoidPlan& plan, std::int64_t position, bool cos_first, T* row) {
  const int n = plan.spec.d / 2;
  const double position_f64 = static_cast<double>(position);
  const double position_f32 = static_cast<float>(position);
  // amp: the entry in the compute format times amp rounded there (exact at amp = 1), as mlx's
  // SinusoidalPositionalEncoding scales its float32 table.
  const auto amplitude = static_cast<Compute<T>>(plan.amplitude);
#pragma omp simd
  for (int i = 0; i < n; ++i) {
    const SinCos value = sin_cos(table_angle<kAngle>(plan, position_f64, position_f32, i));
    const double first = cos_first ? value.cos : value.sin, second = cos_first ? value.sin : value.cos;
    if constexpr (kInterleaved) {
      row[2 * i] = store<T>(static_cast<Compute<T>>(first) * amplitude);
      row[2 * i + 1] = store<T>(static_cast<Compute<T>>(second) * amplitude);
    } else {
      row[i] = store<T>(static_cast<Compute<T>>(first) * amplitude);
      row[i + n] = store<T>(static_cast<Compute<T>>(second) * amplitude);
    }
  }
  if (plan.spec.d % 2 == 0) return;
  if constexpr (kInterleaved) {
    // DistilBERT's lone last column: the first member of pair n, whose frequency the plan holds.
    const SinCos value = sin_cos(table_angle<kAngle>(plan, position_f64, position_f32, n));
    row[plan.spec.d - 1] = store<T>(static_cast<Compute<T>>(cos_first ? value.cos : value.sin) * amplitude);
  } else {
    row[plan.spec.d - 1] = store<T>(Compute<T>(0));
  }
}

// One row of ALiBi biases sign * m * |offset - k| for keys k: `offset` is the query's (or the
// anchor's) index among the keys, query - k_first; keys from `first_masked` on are causal-masked.
// Two plain loops: a select between the bias and -inf inside one loop keeps GCC from vectorising it.
// Math, where it is not void (math=storage: T; math=bf16: BFloat16, Falcon's
// `slopes.bfloat16() * positions` in a model of any dtype): the slope and the distance (through
// float32, Math's compute format) rounded to Math, their product, exact in float32, rounded to
// Math, then stored as T (exact but into fp16).
template <class T, bool kFloatAngle, class Math>
PECONFORM_KERNEL_CLONES void alibi_row(double offset, double sign, std::int32_t keys, std::int32_t first_masked, double slope,
                                       double slope_f32, T* row) {
#pragma omp simd
  for (std::int32_t k = 0; k < first_masked; ++k) {
    const double distance = std::fabs(offset - static_cast<double>(k));  // exact: below 2^42
    if constexpr (!std::is_void_v<Math>) {
      const Compute<Math> slope_m = load(store<Math>(static_cast<Compute<Math>>(kFloatAngle ? slope_f32 : slope)));
      const Compute<Math> distance_m = load(store<Math>(static_cast<Compute<Math>>(distance)));
      const Compute<Math> bias = load(store<Math>(static_cast<Compute<Math>>(sign) * (slope_m * distance_m)));
      row[k] = store<T>(static_cast<Compute<T>>(bias));
    } else {
      const double bias = kFloatAngle ? sign * static_cast<double>(static_cast<float>(slope_f32 * static_cast<float>(distance)))
                                      : sign * (slope * distance);
      row[k] = store<T>(static_cast<Compute<T>>(bias));
    }
  }
  const T masked = store<T>(-std::numeric_limits<Compute<T>>::infinity());
  for (std::int32_t k = first_masked; k < keys; ++k) row[k] = masked;
}

}  // namespace

template <class T>
void sinusoid_rows(const SinusoidPlan& plan, std::int64_t first, std::int64_t rows, T* out, std::int64_t row_stride) {
  const Spec& spec = plan.spec;
  const bool absolute = spec.family == Family::sinusoidal;
  if (rows < 0) throw SpecError(fmt::format("a table needs rows >= 0, found {}", rows));
  if (absolute && first < 0) throw SpecError(fmt::format("sinusoidal positions start at 0, found {}", first));
  check_position_range("table position", first + (absolute ? spec.offset : 0), rows, plan.largest_position);
  const bool interleaved = absolute && spec.layout == Layout::interleaved;
  const bool cos_first = absolute && spec.order == SinusoidalOrder::cos_sin;
  auto row_function = interleaved ? &sinusoid_row<T, TableAngle::exact, true> : &sinusoid_row<T, TableAngle::exact, false>;
  if (spec.precision == PrecisionClass::fp32_angle)
    row_function = interleaved ? &sinusoid_row<T, TableAngle::float32, true> : &sinusoid_row<T, TableAngle::float32, false>;
  if (spec.precision == PrecisionClass::fp64_angle)
    row_function = interleaved ? &sinusoid_row<T, TableAngle::float64, true> : &sinusoid_row<T, TableAngle::float64, false>;
#pragma omp parallel for schedule(static) if (rows * spec.d >= kElementsWorthThreads)
  for (std::int64_t r = 0; r < rows; ++r) {
    std::int64_t position = first + r;
    if (absolute) position += spec.offset;
    else if (spec.clamp_len > 0) position = std::min(position, spec.clamp_len);
    row_function(plan, position, cos_first, out + r * row_stride);
  }
}

AlibiPlan make_alibi_plan(const Spec& spec) {
  if (spec.family != Family::alibi) throw SpecError(fmt::format("{} is not alibi", family_name(spec.family)));
  AlibiPlan plan{spec, alibi_slopes(spec.heads), {}};
  switch (spec.slopes) {
    case SlopeRecipe::bloom:
      for (const float slope : bloom_slopes(spec.heads)) plan.slope_f32.push_back(slope);
      break;
    case SlopeRecipe::mpt:
      for (const float slope : mpt_slopes(spec.heads)) plan.slope_f32.push_back(slope);
      break;
    case SlopeRecipe::exact:
      for (const double slope : plan.slope) plan.slope_f32.push_back(static_cast<float>(slope));  // held exactly
      break;
  }
  return plan;
}

template <class T>
void alibi_bias(const AlibiPlan& plan, std::int64_t q_first, std::int64_t q_len, std::int64_t k_first,
                std::int64_t k_len, T* out) {
  check_position_range("query position", q_first, q_len, kLargestTablePosition);
  check_position_range("key position", k_first, k_len, kLargestTablePosition);
  if (k_len > std::numeric_limits<std::int32_t>::max())
    throw SpecError(fmt::format("an ALiBi row of {} keys is longer than 2^31 - 1; split the call", k_len));
  const AlibiMode mode = plan.spec.mode;
  // key: +m (k_first + k), at the anchor offset -k_first; last-key: -m (last - k); else -m |i - j|.
  const double sign = mode == AlibiMode::key ? 1.0 : -1.0;
  // In fp32 and fp64 the storage is the compute format: math=storage changes nothing there.
  const bool float_angle = plan.spec.precision == PrecisionClass::fp32_angle,
             storage_math = plan.spec.math == RoundsIn::storage && compute_dtype(plan.spec.dtype) != plan.spec.dtype,
             bf16_math = plan.spec.math == RoundsIn::bf16;
  const auto row_function = float_angle ? (bf16_math      ? &alibi_row<T, true, BFloat16>
                                           : storage_math ? &alibi_row<T, true, T>
                                                          : &alibi_row<T, true, void>)
                                        : (bf16_math      ? &alibi_row<T, false, BFloat16>
                                           : storage_math ? &alibi_row<T, false, T>
                                                          : &alibi_row<T, false, void>);
  const std::int64_t heads = static_cast<std::int64_t>(plan.slope.size());
#pragma omp parallel for collapse(2) schedule(static) if (heads * q_len * k_len >= kElementsWorthThreads)
  for (std::int64_t h = 0; h < heads; ++h)
    for (std::int64_t q = 0; q < q_len; ++q) {
      const std::int64_t offset = mode == AlibiMode::key        ? -k_first
                                  : mode == AlibiMode::last_key ? k_len - 1
                                                                : q_first + q - k_first;  // later keys: the future
      const std::int64_t first_masked = mode == AlibiMode::causal ? std::clamp<std::int64_t>(offset + 1, 0, k_len) : k_len;
      row_function(static_cast<double>(offset), sign, static_cast<std::int32_t>(k_len), static_cast<std::int32_t>(first_masked),
                   plan.slope[static_cast<std::size_t>(h)], plan.slope_f32[static_cast<std::size_t>(h)],
                   out + (h * q_len + q) * k_len);
    }
}

#define PECONFORM_TABLE_KERNELS(T)                                                                   \
  template void sinusoid_rows<T>(const SinusoidPlan&, std::int64_t, std::int64_t, T*, std::int64_t); \
  template void alibi_bias<T>(const AlibiPlan&, std::int64_t, std::int64_t, std::int64_t, std::int64_t, T*);
PECONFORM_TABLE_KERNELS(double)
PECONFORM_TABLE_KERNELS(float)
PECONFORM_TABLE_KERNELS(Half)
PECONFORM_TABLE_KERNELS(BFloat16)

}  // namespace peconform::cpu
