#pragma once
// The kernels that produce tables rather than rotate a tensor: sinusoidal rows (absolute, and
// Transformer-XL's relative R_{i-j}) and ALiBi biases. Rows and query positions are split
// across OpenMP threads; the inner loops are SIMD loops.
#include <cstdint>
#include <vector>

#include "backends/cpu/angle.hpp"
#include "backends/cpu/storage.hpp"
#include "spec/spec.hpp"

namespace peconform::cpu {

// The largest |position| or |distance| the ALiBi, T5 and Shaw kernels accept: their
// differences stay exact in double.
inline constexpr std::int64_t kLargestTablePosition = std::int64_t{1} << 40;

struct SinusoidPlan {
  Spec spec;  // sinusoidal or xl
  std::vector<SplitFrequency> frequency;
  std::vector<double> frequency_f32;  // float32 values, held in double
  std::vector<double> power_f64;      // fp64-angle: b^(m_k/D) in float64, the divisor of p
  double amplitude = 1;               // amp, the double nearest it: each entry, held in the compute format, times it
  std::int64_t largest_position = 0;  // largest_position_for() the largest frequency
};

// Frequencies from the backend's own sinusoid_frequencies (frequency_plan.hpp), as for the
// rotary plan. Throws SpecError for another family.
SinusoidPlan make_sinusoid_plan(const Spec& spec);

// `rows` rows of spec.d values into out[r * row_stride + e]: for sinusoidal the row of
// position first + r (plus the spec's offset); for xl the row of distance i - j = first + r
// (capped at clamp_len). Throws SpecError for a negative sinusoidal position or one past the
// plan's largest_position.
template <class T>
void sinusoid_rows(const SinusoidPlan& plan, std::int64_t first, std::int64_t rows, T* out, std::int64_t row_stride);

struct AlibiPlan {
  Spec spec;
  std::vector<double> slope;      // alibi_slopes.hpp, in double
  std::vector<double> slope_f32;  // float32 values, held in double
};

AlibiPlan make_alibi_plan(const Spec& spec);

// The bias of every head for queries q_first .. q_first + q_len - 1 and keys
// k_first .. k_first + k_len - 1, contiguous [heads][q][k]; -inf where causal masks the key;
// under last-key, the anchor is the last of these keys.
// Throws SpecError for positions past kLargestTablePosition or k_len above 2^31 - 1.
template <class T>
void alibi_bias(const AlibiPlan& plan, std::int64_t q_first, std::int64_t q_len, std::int64_t k_first,
                std::int64_t k_len, T* out);

}  // namespace peconform::cpu
