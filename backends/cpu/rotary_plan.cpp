#include "backends/cpu/rotary_plan.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "backends/cpu/frequency_plan.hpp"
#include "backends/cpu/kernel_clones.hpp"
#include "backends/cpu/rotary_axes.hpp"
#include "spec/spec_error.hpp"

namespace peconform::cpu {

RotaryPlan make_rotary_plan(const Spec& spec, std::int64_t sequence_length) {
  const bool rotary = spec.family == Family::rope || spec.family == Family::xpos || spec.family == Family::mrope ||
                      spec.family == Family::rope2d;
  if (!rotary) throw SpecError(fmt::format("{} is not a rotary family", family_name(spec.family)));
  const Frequencies frequencies =
      spec.family == Family::rope2d ? Frequencies{axial_frequencies(spec), 1} : rotary_frequencies(spec, sequence_length);
  RotaryPlan plan;
  plan.spec = spec;
  plan.d = spec.d;
  // Partial rotary: the first d_rot dims (GPT-NeoX, GPT-J) or the last (DeepSeek MLA).
  plan.dims = spec.family == Family::rope2d ? spec.d : spec.rotary_dims();
  plan.start = spec.rot_at == RotaryPlacement::last && spec.family != Family::rope2d ? spec.d - plan.dims : 0;
  plan.pairs = plan.dims / 2;
  plan.axes = position_axes(spec);
  plan.attention = static_cast<double>(frequencies.attention * quad_of(spec.amp));
  plan.frequency_count = static_cast<int>(frequencies.theta.size());
  // rope2d's exponent is 4j/d: 2j over each axis's d/2 dims.
  plan.float32 = float32_theta(spec, frequencies.theta, spec.family == Family::rope2d ? spec.d / 2 : plan.dims, sequence_length);
  const Quad scale_base = quad_of(spec.scale_base);
  for (int pair = 0; pair < plan.pairs; ++pair) {
    const PairAxis placement = pair_axis(spec, pair);
    const auto k = static_cast<std::size_t>(placement.frequency);
    plan.pair_axis.push_back(placement.axis);
    plan.pair_frequency.push_back(placement.frequency);
    plan.frequency.push_back(split(frequencies.theta[k]));
    plan.frequency_f32.push_back(plan.float32.running ? 0.0 : plan.float32.theta[k]);
    if (spec.family == Family::xpos) {
      // torchscale XPOS: zeta_i = (2i + 0.4 d)/(1.4 d) = (10i + 2d)/(7d) over the rotated dims.
      const Quad zeta = static_cast<Quad>(10 * pair + 2 * plan.dims) / (7 * plan.dims);
      plan.xpos_log_zeta.push_back(static_cast<double>(logq(zeta) / scale_base) * (spec.role == XposRole::query ? 1 : -1));
    }
  }
  double largest_frequency = 0;
  for (const SplitFrequency& frequency : plan.frequency) largest_frequency = std::max(largest_frequency, std::abs(frequency.hi));
  plan.largest_position = largest_position_for(largest_frequency);
  return plan;
}

namespace {

// The form of one token's cos/sin loop, fixed at compile time so that each is one SIMD loop.
struct LoopForm {
  bool float_angle;  // fp32-angle
  bool xpos;         // zeta^(n/scale_base): exp has no SIMD form here, so that loop stays scalar
  bool single_axis;  // one position for every pair (RoPE, xPos): no gather
};

// cos and sin of every pair, times the amplitude and the sign, rounded to the compute type
// (and under cache=storage or lowp-cache to T's format). `position` holds one id per axis, as
// double and as float32.
template <class T, LoopForm kForm>
PECONFORM_KERNEL_CLONES void fill_cos_sin(const RotaryPlan& plan, const double* position, const double* position_f32,
                                          const double* frequency_f32, Compute<T>* cos_out, Compute<T>* sin_out) {
  const int* axis_of = plan.pair_axis.data();
  const SplitFrequency* frequency = plan.frequency.data();
  const double* log_zeta = plan.xpos_log_zeta.data();
  const double attention = plan.attention, sign = plan.spec.sign;
  const bool held_in_storage = plan.spec.cos_sin_in_storage();
  const int pairs = plan.pairs;
#pragma omp simd
  for (int pair = 0; pair < pairs; ++pair) {
    const int axis = kForm.single_axis ? 0 : axis_of[pair];
    const Angle angle = kForm.float_angle ? float32_angle(position_f32[axis], frequency_f32[pair])
                                          : exact_angle(position[axis], frequency[pair]);
    const SinCos value = sin_cos(angle);
    const double amplitude = kForm.xpos ? attention * std::exp(position[0] * log_zeta[pair]) : attention;
    const Compute<T> c = static_cast<Compute<T>>(amplitude * value.cos);
    const Compute<T> s = static_cast<Compute<T>>(sign * amplitude * value.sin);
    cos_out[pair] = held_in_storage ? load(store<T>(c)) : c;
    sin_out[pair] = held_in_storage ? load(store<T>(s)) : s;
  }
}

template <class T, bool kFloatAngle, bool kXpos>
void fill_for_axes(const RotaryPlan& plan, const double* position, const double* position_f32, const double* frequency_f32,
                   Compute<T>* cos_out, Compute<T>* sin_out) {
  if (plan.axes == 1)
    fill_cos_sin<T, LoopForm{kFloatAngle, kXpos, true}>(plan, position, position_f32, frequency_f32, cos_out, sin_out);
  else
    fill_cos_sin<T, LoopForm{kFloatAngle, kXpos, false}>(plan, position, position_f32, frequency_f32, cos_out, sin_out);
}

// ggml's angles for one token: a running product per position axis, each pair then taking its
// axis's product at its frequency index. The fill loop reads them as float32 frequencies at
// position 1, where float32_angle(1, angle) is the angle itself.
const double* ggml_token_angles(const RotaryPlan& plan, const std::int64_t* positions) {
  thread_local std::vector<double> products, angles;
  const auto count = static_cast<std::size_t>(plan.frequency_count);
  products.resize(count * static_cast<std::size_t>(plan.axes));
  angles.resize(static_cast<std::size_t>(plan.pairs));
  for (int axis = 0; axis < plan.axes; ++axis)
    ggml_angles(plan.float32, static_cast<float>(positions[axis]), plan.frequency_count,
                products.data() + static_cast<std::size_t>(axis) * count);
  for (std::size_t pair = 0; pair < angles.size(); ++pair)
    angles[pair] = products[static_cast<std::size_t>(plan.pair_axis[pair]) * count + static_cast<std::size_t>(plan.pair_frequency[pair])];
  return angles.data();
}

}  // namespace

template <class T>
void token_cos_sin(const RotaryPlan& plan, const std::int64_t* positions, Compute<T>* cos_out, Compute<T>* sin_out) {
  double position[3] = {0, 0, 0};
  double position_f32[3] = {0, 0, 0};  // float32 values
  for (int axis = 0; axis < plan.axes; ++axis) {
    position[axis] = static_cast<double>(positions[axis]);
    position_f32[axis] = static_cast<float>(positions[axis]);
  }
  const bool float_angle = plan.spec.precision == PrecisionClass::fp32_angle;
  const double* frequency_f32 = plan.frequency_f32.data();
  if (float_angle && plan.float32.running) {
    frequency_f32 = ggml_token_angles(plan, positions);
    for (double& p : position_f32) p = 1;
  }
  const bool xpos = !plan.xpos_log_zeta.empty();
  if (float_angle && xpos) fill_for_axes<T, true, true>(plan, position, position_f32, frequency_f32, cos_out, sin_out);
  else if (float_angle) fill_for_axes<T, true, false>(plan, position, position_f32, frequency_f32, cos_out, sin_out);
  else if (xpos) fill_for_axes<T, false, true>(plan, position, position_f32, frequency_f32, cos_out, sin_out);
  else fill_for_axes<T, false, false>(plan, position, position_f32, frequency_f32, cos_out, sin_out);
}

template void token_cos_sin<double>(const RotaryPlan&, const std::int64_t*, double*, double*);
template void token_cos_sin<float>(const RotaryPlan&, const std::int64_t*, float*, float*);
template void token_cos_sin<Half>(const RotaryPlan&, const std::int64_t*, float*, float*);
template void token_cos_sin<BFloat16>(const RotaryPlan&, const std::int64_t*, float*, float*);

}  // namespace peconform::cpu
