#include "backends/cpu/table_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>

#include "backends/cpu/position_range.hpp"
#include "backends/cpu/threading.hpp"
#include "reference/reference.hpp"
#include "spec/spec_error.hpp"

namespace peconform::cpu {

SinusoidPlan make_sinusoid_plan(const Spec& spec) {
  if (spec.family != Family::sinusoidal && spec.family != Family::xl)
    throw SpecError(fmt::format("{} is not a sinusoidal family", family_name(spec.family)));
  const Reference<FastReal> reference(spec, 1);
  SinusoidPlan plan{spec, {}, {}};
  for (const FastReal& theta : reference.frequencies().inv_freq) {
    const double hi = static_cast<double>(theta);
    plan.frequency.push_back({hi, static_cast<double>(theta - FastReal(hi))});
    plan.frequency_f32.push_back(static_cast<float>(theta));
  }
  return plan;
}

template <class T>
void sinusoid_rows(const SinusoidPlan& plan, std::int64_t first, std::int64_t rows, T* out, std::int64_t row_stride) {
  const Spec& spec = plan.spec;
  const bool absolute = spec.family == Family::sinusoidal;
  if (rows < 0) throw SpecError(fmt::format("a table needs rows >= 0, found {}", rows));
  if (absolute && first < 0) throw SpecError(fmt::format("sinusoidal positions start at 0, found {}", first));
  check_position_range("table position", first + (absolute ? spec.offset : 0), rows, kLargestTablePosition);
  const int n = spec.d / 2;
  const bool interleaved = absolute && spec.layout == Layout::interleaved;
  const bool cos_first = absolute && spec.order == SinusoidalOrder::cos_sin;
  const bool float_angle = spec.precision == PrecisionClass::fp32_angle;
#pragma omp parallel for schedule(static) if (rows * spec.d >= kElementsWorthThreads)
  for (std::int64_t r = 0; r < rows; ++r) {
    std::int64_t position = first + r;
    if (absolute) position += spec.offset;
    else if (spec.clamp_len > 0) position = std::min(position, spec.clamp_len);
    const double position_f64 = static_cast<double>(position);
    const double position_f32 = static_cast<float>(position);
    T* row = out + r * row_stride;
    // Pair i's two values go to (2i, 2i+1) interleaved or (i, i+n) half; one SIMD loop each.
    const std::int64_t second_offset = interleaved ? 1 : n;
    const std::int64_t step = interleaved ? 2 : 1;
#pragma omp simd
    for (int i = 0; i < n; ++i) {
      const Angle angle = float_angle ? float32_angle(position_f32, plan.frequency_f32[static_cast<std::size_t>(i)])
                                      : exact_angle(position_f64, plan.frequency[static_cast<std::size_t>(i)]);
      const SinCos value = sin_cos(angle);
      row[i * step] = store<T>(static_cast<Compute<T>>(cos_first ? value.cos : value.sin));
      row[i * step + second_offset] = store<T>(static_cast<Compute<T>>(cos_first ? value.sin : value.cos));
    }
    if (spec.d % 2 == 1) row[spec.d - 1] = store<T>(Compute<T>(0));
  }
}

AlibiPlan make_alibi_plan(const Spec& spec) {
  if (spec.family != Family::alibi) throw SpecError(fmt::format("{} is not alibi", family_name(spec.family)));
  const Reference<FastReal> reference(spec, 1);
  AlibiPlan plan{spec, {}, {}};
  for (const FastReal& slope : reference.alibi_slopes()) {
    plan.slope.push_back(static_cast<double>(slope));
    plan.slope_f32.push_back(static_cast<float>(slope));
  }
  return plan;
}

template <class T>
void alibi_bias(const AlibiPlan& plan, std::int64_t q_first, std::int64_t q_len, std::int64_t k_first,
                std::int64_t k_len, T* out) {
  check_position_range("query position", q_first, q_len, kLargestTablePosition);
  check_position_range("key position", k_first, k_len, kLargestTablePosition);
  const bool causal = plan.spec.mode == AlibiMode::causal;
  const bool float_angle = plan.spec.precision == PrecisionClass::fp32_angle;
  const std::int64_t heads = static_cast<std::int64_t>(plan.slope.size());
  const T masked = store<T>(-std::numeric_limits<Compute<T>>::infinity());
#pragma omp parallel for collapse(2) schedule(static) if (heads * q_len * k_len >= kElementsWorthThreads)
  for (std::int64_t h = 0; h < heads; ++h) {
    for (std::int64_t q = 0; q < q_len; ++q) {
      T* row = out + (h * q_len + q) * k_len;
      const std::int64_t query = q_first + q;
      const double slope = plan.slope[static_cast<std::size_t>(h)];
      const float slope_f32 = plan.slope_f32[static_cast<std::size_t>(h)];
#pragma omp simd
      for (std::int64_t k = 0; k < k_len; ++k) {
        const std::int64_t key = k_first + k;
        const std::int64_t distance = query >= key ? query - key : key - query;
        const Compute<T> bias = float_angle ? static_cast<Compute<T>>(-(slope_f32 * static_cast<float>(distance)))
                                            : static_cast<Compute<T>>(-(slope * static_cast<double>(distance)));
        row[k] = causal && key > query ? masked : store<T>(bias);
      }
    }
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
