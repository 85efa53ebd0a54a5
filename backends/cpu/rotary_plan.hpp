#pragma once
// What a rotary kernel (RoPE, xPos, mRoPE, 2-D axial) needs of its Spec, prepared once: which
// elements each pair rotates, which position axis drives it, its frequency in the precision
// class's form, and the amplitude. cos/sin of one token come from token_cos_sin(), which both
// the on-the-fly kernels and the cos/sin cache call, so the two agree bit for bit.
#include <cstdint>
#include <vector>

#include "backends/cpu/angle.hpp"
#include "backends/cpu/storage.hpp"
#include "backends/cpu/theta_recipe.hpp"
#include "spec/spec.hpp"

namespace peconform::cpu {

struct RotaryPlan {
  Spec spec;
  int d = 0;
  int start = 0;  // first rotated element
  int dims = 0;   // rotated elements
  int pairs = 0;
  int axes = 1;   // position axes the ids carry
  std::vector<int> pair_axis;
  std::vector<int> pair_frequency;        // index into the family's frequencies (rotary_axes.hpp)
  std::vector<SplitFrequency> frequency;  // exact-angle and lowp-cache
  std::vector<double> frequency_f32;      // fp32-angle: the recipe's float32 theta, held in double
  Float32Theta float32;                   // fp32-angle: the recipe (ggml's forms angles per token)
  int frequency_count = 0;                // frequencies per axis
  double attention = 1;                   // YaRN/LongRoPE attention factor times amp
  std::vector<double> xpos_log_zeta;      // xPos: ln(zeta_i) / scale_base, signed by role; else empty
  std::int64_t largest_position = 0;      // largest_position_for() the largest frequency
};

// Frequencies come from the backend's own plans (frequency_plan.hpp), formed in binary128 and
// split into two doubles or rounded to float: "angles from high-precision frequencies" is what
// exact-angle promises.
// `sequence_length` is what dynamic NTK and LongRoPE key on. Throws SpecError for a
// non-rotary spec.
RotaryPlan make_rotary_plan(const Spec& spec, std::int64_t sequence_length);

// cos and sin of every pair of one token, with the amplitude and the rotation sign folded in,
// in the compute type of T; under cache=storage (or lowp-cache) they are rounded to T's own
// format first.
// `positions` holds one id per axis.
template <class T>
void token_cos_sin(const RotaryPlan& plan, const std::int64_t* positions, Compute<T>* cos_out, Compute<T>* sin_out);

}  // namespace peconform::cpu
