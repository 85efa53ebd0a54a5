#include "backends/cpu/theta_recipe.hpp"

#include <cmath>

namespace peconform::cpu {

Float32Theta float32_theta(const Spec& spec, const std::vector<Quad>& exact_theta, int dims) {
  Float32Theta out;
  const bool linear = spec.scaling.kind == PlanKind::linear;
  // The spec's decimals as the libraries hold them: Python floats cast to float32 by torch's
  // float32 arithmetic, or C floats in ggml.
  const float base = static_cast<float>(quad_of(spec.base));
  const float factor = static_cast<float>(quad_of(spec.scaling.factor));
  switch (spec.theta) {
    case ThetaRecipe::exact:
      for (const Quad theta : exact_theta) out.theta.push_back(static_cast<float>(theta));
      break;
    case ThetaRecipe::hf:
    case ThetaRecipe::meta:
      // modeling_rope_utils _compute_default_rope_parameters and llama precompute_freqs_cis:
      // 1.0 / (base ** (torch.arange(0, dim, 2).float() / dim)) in float32; linear then divides
      // by the factor (inv_freq /= factor).
      for (std::size_t k = 0; k < exact_theta.size(); ++k) {
        const float exponent = static_cast<float>(2 * k) / static_cast<float>(dims);
        float theta = 1.0f / std::pow(base, exponent);
        if (linear) theta /= factor;
        out.theta.push_back(theta);
      }
      break;
    case ThetaRecipe::ggml:
      // ggml_rope_cache_init: theta_scale = powf(freq_base, -2.0f/n_dims); freq_scale = 1/factor.
      out.running = true;
      out.scale = std::pow(base, -2.0f / static_cast<float>(dims));
      out.scaled = linear;
      out.freq_scale = 1.0f / factor;
      break;
  }
  return out;
}

void ggml_angles(const Float32Theta& recipe, float position, int count, double* angles) {
  float theta = position;
  for (int k = 0; k < count; ++k) {
    angles[k] = recipe.scaled ? recipe.freq_scale * theta : theta;
    theta *= recipe.scale;
  }
}

}  // namespace peconform::cpu
