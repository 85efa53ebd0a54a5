#pragma once
// fp32-angle: theta formed in float32 the way the spec's `theta` recipe says a real kernel forms
// it (docs/precision.md, "Theta recipes"); precision/error_model.hpp's theta_recipe_error is the bound each
// recipe is held to.
#include <cstdint>
#include <vector>

#include "backends/cpu/quad.hpp"
#include "spec/spec.hpp"

namespace peconform::cpu {

struct Float32Theta {
  // exact, hf, meta: theta_k in float32 (held in double), one per frequency index k.
  std::vector<double> theta;
  // ggml: the running product's factor powf(base, -2/d) and freq_scale = 1/factor in float32
  // (1 without linear or yarn, where the product by it is exact); `running` says the angle is
  // formed by ggml_angles() and `theta` is empty.
  bool running = false;
  float scale = 1, freq_scale = 1;
  // One per frequency index k, or empty: custom(factors=...)'s divisors (llama.cpp's rope_freqs,
  // ggml's freq_factors), and YaRN's ramp_mix, the share of the extrapolated angle.
  std::vector<float> divisor, ramp;
};

// `exact_theta` is the plan's binary128 theta_k (the exact recipe rounds it once); `dims` is the
// d of the exponent 2k/d: d_rot, or d/2 for each axis of rope2d; `sequence_length` picks
// LongRoPE's long or short factors. The recipes each plan takes: theta_recipes (spec/spec.hpp).
Float32Theta float32_theta(const Spec& spec, const std::vector<Quad>& exact_theta, int dims, std::int64_t sequence_length);

// A sinusoid table's float32 theta_k (held in double) as the spec's `theta` recipe forms it:
// `exact_theta` rounded once (exact), 1 / powf(base, m_k/D) (hf), exp(m_k * (-ln(base)/D)) in
// float32 (exp-log: the PyTorch tutorial's div_term, fairseq's and tensor2tensor's
// inv_timescales), or mlx.nn.SinusoidalPositionalEncoding's exp of a float32 interpolation
// between ln(1/base) and 0 (mlx).
std::vector<double> float32_table_theta(const Spec& spec, const std::vector<Quad>& exact_theta);

// Under fp64-angle, a sinusoid table's divisors b^(m_k/D) for k < count, in float64 as NumPy forms
// them (DistilBERT's and Marian's np.power(base, 2 (j // 2) / d)); an entry's angle is p / b^(m_k/D).
std::vector<double> float64_table_power(const Spec& spec, int count);

// ggml_rope_cache_init and rope_yarn: theta starts at the float32 position and is multiplied by
// theta_scale once per frequency, rounding each time; the extrapolated angle is theta_k / ff_k,
// the interpolated one fl(freq_scale * extrapolated), and the angle the interpolated one, or
// under YaRN interpolated (1 - ramp_k) + extrapolated ramp_k, each operation in float32.
// Writes `count` angles (float32 values held in double).
void ggml_angles(const Float32Theta& recipe, float position, int count, double* angles);

}  // namespace peconform::cpu
