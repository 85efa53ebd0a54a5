#include "backends/cpu/theta_recipe.hpp"

#include "precision/error_model.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <utility>

namespace peconform::cpu {

namespace {

// llama3's frequency from Hugging Face's float32 inv_freq as _compute_llama3_parameters forms it
// (Meta's apply_scaling performs the same operations), each line one float32 operation: a Python
// number meets the float32 tensor cast to float32, and `number / tensor` is torch's
// tensor.reciprocal() * number. The comparisons pick the band as the tensors do.
float llama3_theta(const FrequencyPlan& plan, float inv_freq) {
  const double orig = static_cast<double>(plan.orig), low = plan.low.to_double(), high = plan.high.to_double();
  const float factor = static_cast<float>(plan.factor.to_double());
  const float wavelength = (1.0f / inv_freq) * static_cast<float>(2 * std::numbers::pi);
  const float low_wavelength = static_cast<float>(orig / low), high_wavelength = static_cast<float>(orig / high);
  const float llama = wavelength > low_wavelength ? inv_freq / factor : inv_freq;
  const float smooth = ((1.0f / wavelength) * static_cast<float>(orig) - static_cast<float>(low)) / static_cast<float>(high - low);
  const float smoothed = ((1.0f - smooth) * llama) / factor + smooth * llama;
  const bool medium = !(wavelength < high_wavelength) && !(wavelength > low_wavelength);
  return medium ? smoothed : llama;
}

// YaRN's frequency k in float32: pos_freqs = base ** (2k/dim); the extrapolated 1 / pos_freqs and
// the interpolated 1 / (factor * pos_freqs) blended by ext = 1 - clamp((k - low) / (high - low),
// 0, 1): interpolated * (1 - ext) + extrapolated * ext, every operation a float32 rounding.
float yarn_theta(const Spec& spec, std::pair<double, double> ends, float power, int k) {
  const float factor = static_cast<float>(spec.scaling.factor.to_double());
  const float extrapolated = 1.0f / power, interpolated = 1.0f / (factor * power);
  const float ramp = std::clamp((static_cast<float>(k) - static_cast<float>(ends.first)) / static_cast<float>(ends.second - ends.first),
                                0.0f, 1.0f);
  const float extrapolation = 1.0f - ramp;
  return interpolated * (1.0f - extrapolation) + extrapolated * extrapolation;
}

// Dynamic NTK's base as _compute_dynamic_ntk_parameters forms it: base (factor L / orig -
// (factor - 1)) ** (d / (d - 2)). At construction L is orig, a Python int, and all of it is
// Python floats; once a sequence passes orig, dynamic_rope_update passes L as an int64 tensor,
// so factor L, the division and the subtraction are float32 tensor operations, the power of
// the 0-d tensor by a Python float rounds a double pow once to float32, and the product by the
// base is float32 too. Either way the base then meets the float32 exponents as a float32.
float dynamic_base(const Spec& spec, int dims, std::int64_t sequence_length) {
  const FrequencyPlan& plan = spec.scaling;
  const double base = spec.base.to_double(), factor = plan.factor.to_double();
  const double exponent = static_cast<double>(dims) / (dims - 2);
  if (sequence_length <= plan.orig) {
    const double orig = static_cast<double>(plan.orig);
    return static_cast<float>(base * std::pow(factor * orig / orig - (factor - 1), exponent));
  }
  const float stretch = static_cast<float>(factor) * static_cast<float>(sequence_length) / static_cast<float>(plan.orig) -
                        static_cast<float>(factor - 1);
  return static_cast<float>(base) * static_cast<float>(std::pow(static_cast<double>(stretch), exponent));
}

// YaRN's ramp as ggml forms it, all in float32: the correction dimension
// n * logf(L0 / (beta * 2 * (float)pi)) / (2 * logf(base)) of beta_fast floored and of beta_slow
// ceiled (ggml_rope_yarn_corr_dims, clamped to [0, n - 1]), then per index k
// ramp_mix = 1 - min(1, max(0, (k - low) / max(0.001, high - low))) (rope_yarn_ramp; ggml's
// ext_factor is 1 under YaRN, so the product by it is exact).
std::vector<float> ggml_yarn_ramp(const Spec& spec, int dims, int count) {
  const FrequencyPlan& plan = spec.scaling;
  const float base = static_cast<float>(quad_of(spec.base));
  const int orig = static_cast<int>(plan.orig);
  const auto correction = [&](float rotations) {
    return static_cast<float>(dims) * std::log(static_cast<float>(orig) / (rotations * 2.0f * static_cast<float>(std::numbers::pi))) /
           (2.0f * std::log(base));
  };
  const float low = std::max(0.0f, std::floor(correction(static_cast<float>(plan.beta_fast.to_double()))));
  const float high = std::min(static_cast<float>(dims - 1), std::ceil(correction(static_cast<float>(plan.beta_slow.to_double()))));
  std::vector<float> ramp;
  for (int k = 0; k < count; ++k) {
    const float y = (static_cast<float>(k) - low) / std::max(0.001f, high - low);
    ramp.push_back(1.0f - std::min(1.0f, std::max(0.0f, y)));
  }
  return ramp;
}

// mlx's exp (mlx/backend/cpu/simd/math.h), each step as its CPU build (one float32 lane) does it:
// y = x times float32 log2(e); n = floor(y + 0.5), the sum in double (a float plus the literal
// 0.5); 2^f for f = y - n by Cephes's polynomial in float32 fused multiply-adds; times 2^n.
float mlx_exp(float x) {
  const float y = x * 1.442695f;
  const float n = static_cast<float>(std::floor(static_cast<double>(y) + 0.5));
  const float f = y - n;
  float power = 1.535336188319500e-4f;
  for (const float coefficient : {1.339887440266574e-3f, 9.618437357674640e-3f, 5.550332471162809e-2f,
                                  2.402264791363012e-1f, 6.931472028550421e-1f, 1.0f})
    power = std::fma(power, f, coefficient);
  return std::ldexp(power, static_cast<int>(n));
}

}  // namespace

Float32Theta float32_theta(const Spec& spec, const std::vector<Quad>& exact_theta, int dims, std::int64_t sequence_length) {
  Float32Theta out;
  // Proportional divides as linear does; its still pairs are 0 (exact_theta holds them as 0).
  const bool linear = spec.scaling.kind == PlanKind::linear || spec.scaling.kind == PlanKind::proportional;
  // The spec's decimals as the libraries hold them: Python floats cast to float32 by torch's
  // float32 arithmetic, or C floats in ggml.
  const bool dynamic = spec.scaling.kind == PlanKind::dynamic;
  const float base = dynamic && spec.theta == ThetaRecipe::hf ? dynamic_base(spec, dims, sequence_length)
                                                              : static_cast<float>(quad_of(spec.base));
  const float factor = static_cast<float>(quad_of(spec.scaling.factor));
  switch (spec.theta) {
    case ThetaRecipe::exact:
    case ThetaRecipe::exp_log:  // a table recipe: Spec validation keeps it off rotary specs
      for (const Quad theta : exact_theta) out.theta.push_back(static_cast<float>(theta));
      break;
    case ThetaRecipe::hf:
    case ThetaRecipe::meta: {
      // modeling_rope_utils _compute_default_rope_parameters and llama precompute_freqs_cis:
      // 1.0 / (base ** (torch.arange(0, dim, 2).float() / dim)) in float32; linear then divides
      // by the factor (inv_freq /= factor), llama3 blends (llama3_theta), yarn blends (yarn_theta);
      // longrope multiplies the power by its float32 factor first (1.0 / (ext_factors * base ** ...));
      // dynamic takes its own base (dynamic_base).
      // YaRN's ramp ends (spec/spec.hpp), which transformers moves 0.001 apart where they meet.
      std::pair<double, double> ramp_ends{0.0, 0.0};
      if (spec.scaling.kind == PlanKind::yarn) {
        ramp_ends = transformers_yarn_ramp_ends(spec);
        if (ramp_ends.first == ramp_ends.second) ramp_ends.second += 0.001;
      }
      for (std::size_t k = 0; k < exact_theta.size(); ++k) {
        const float exponent = static_cast<float>(2 * k) / static_cast<float>(dims);
        const float power = std::pow(base, exponent);
        float theta = 1.0f / power;
        if (spec.scaling.kind == PlanKind::yarn) theta = yarn_theta(spec, ramp_ends, power, static_cast<int>(k));
        if (spec.scaling.kind == PlanKind::longrope) {
          const auto& extensions = sequence_length > spec.scaling.orig ? spec.scaling.long_factors : spec.scaling.short_factors;
          theta = 1.0f / (static_cast<float>(extensions[k].to_double()) * power);
        }
        if (linear) theta /= factor;
        if (spec.scaling.kind == PlanKind::llama3) theta = llama3_theta(spec.scaling, theta);
        out.theta.push_back(exact_theta[k] == 0 ? 0.0f : theta);
      }
      break;
    }
    case ThetaRecipe::mlx: {
      // mlx's fast.rope fallback (mlx/fast.cpp): exp(arange(0, -h, -1) * array(std::log(base) / h)),
      // the base a C++ float, logf of it divided by the int h = dims/2 in float32.
      const int half = dims / 2;
      const float step = std::log(base) / static_cast<float>(half);
      for (std::size_t k = 0; k < exact_theta.size(); ++k) out.theta.push_back(mlx_exp(-static_cast<float>(k) * step));
      break;
    }
    case ThetaRecipe::ggml: {
      // ggml_rope_cache_init: theta_scale = powf(freq_base, -2.0f/n_dims); llama.cpp's
      // freq_scale = 1.0f/factor under linear and yarn.
      out.running = true;
      out.scale = std::pow(base, -2.0f / static_cast<float>(dims));
      const bool yarn = spec.scaling.kind == PlanKind::yarn;
      if (linear || yarn) out.freq_scale = 1.0f / factor;
      if (yarn) out.ramp = ggml_yarn_ramp(spec, dims, static_cast<int>(exact_theta.size()));
      for (const Decimal& divisor : spec.scaling.factors) out.divisor.push_back(static_cast<float>(quad_of(divisor)));
      break;
    }
  }
  return out;
}

std::vector<double> float32_table_theta(const Spec& spec, const std::vector<Quad>& exact_theta) {
  std::vector<double> theta;
  if (spec.theta == ThetaRecipe::exact) {
    for (const Quad value : exact_theta) theta.push_back(static_cast<float>(value));
    return theta;
  }
  if (spec.theta == ThetaRecipe::mlx) {
    // mlx.nn.SinusoidalPositionalEncoding(min_freq=1/base, max_freq=1): exp(fl(fl((1 - fl(k/(h-1))) * C) + L))
    // with L = ln(min_freq) a double, C = ln(1) - L, each cast to float32, and mlx's own exp.
    const double log_min = std::log(1.0 / spec.base.to_double());
    const float span = static_cast<float>(0.0 - log_min), low = static_cast<float>(log_min);
    const std::size_t pairs = exact_theta.size();
    for (std::size_t k = 0; k < pairs; ++k) {
      const float one_zero = pairs < 2 ? 1.0f : 1.0f - static_cast<float>(k) / static_cast<float>(pairs - 1);
      const float scaled = one_zero * span;
      theta.push_back(mlx_exp(scaled + low));
    }
    return theta;
  }
  // theta_k = base^(-m_k/D), m_k and D as table_exponent gives them.
  const bool hf = spec.theta == ThetaRecipe::hf;
  const Quad base = quad_of(spec.base);
  for (std::size_t k = 0; k < exact_theta.size(); ++k) {
    const TableExponent exponent = table_exponent(spec, static_cast<int>(k));
    const float multiple = static_cast<float>(exponent.multiple);
    // hf: 1 / powf(base, fl(m_k / D)), timm's build_sincos2d_pos_embed, each axis. exp-log: the
    // step -ln(base)/D is a Python float (double) that torch casts to float32 when it multiplies
    // the float32 arange.
    theta.push_back(hf ? 1.0f / std::pow(static_cast<float>(base), multiple / static_cast<float>(exponent.divisor))
                       : std::exp(multiple * static_cast<float>(-std::log(static_cast<double>(base)) / exponent.divisor)));
  }
  return theta;
}

std::vector<double> float64_table_power(const Spec& spec, int count) {
  std::vector<double> power;
  for (int k = 0; k < count; ++k) {
    const TableExponent exponent = table_exponent(spec, k);
    power.push_back(std::pow(spec.base.to_double(), static_cast<double>(exponent.multiple) / exponent.divisor));
  }
  return power;
}

void ggml_angles(const Float32Theta& recipe, float position, int count, double* angles) {
  float theta = position;
  for (int k = 0; k < count; ++k) {
    const auto index = static_cast<std::size_t>(k);
    const float extrapolated = recipe.divisor.empty() ? theta : theta / recipe.divisor[index];
    const float interpolated = recipe.freq_scale * extrapolated;
    if (recipe.ramp.empty()) {
      angles[k] = interpolated;
    } else {
      const float mix = recipe.ramp[index];
      angles[k] = interpolated * (1.0f - mix) + extrapolated * mix;
    }
    theta *= recipe.scale;
  }
}

}  // namespace peconform::cpu
