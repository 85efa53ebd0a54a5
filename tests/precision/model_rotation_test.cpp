// A model's rotation as a real library runs it (issue 34). First transformers' rotary module in a
// bf16 or fp16 model, the
// operations emulated one by one from modeling_llama.py and modeling_rope_utils.py (read, not
// copied):
//   inv_freq = 1.0 / base ** (arange(0, d, 2).float() / d)      float32 pow and reciprocal
//   inv_freq /= factor                                           linear plan, float32
//   wavelen = 2 * math.pi / inv_freq, ... (llama3 blend)         llama3 plan, float32 (below)
//   yarn's ramp and blend, longrope's factors                    float32 (below)
//   cos = emb.cos() * attention_scaling                          float32
//   freqs = inv_freq @ position_ids.float()                      one float32 product
//   cos, sin = emb.cos(), emb.sin(), then .to(x.dtype)           float32, rounded to bf16/fp16
//   q * cos + rotate_half(q) * sin                               each product and the sum rounded
//                                                                to bf16/fp16
// judged element by element by claimed_error_bounds, as the harness judges a kernel. The spec
// that describes it, precision=fp32-angle,theta=hf,cache=storage,math=storage, must hold it over
// positions to 2^31 - 1 with a tight bound; the specs without the two keys, and the same rotation
// with the real bugs of DESIGN.md section 5 planted, must not.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "backends/gpu/storage_math.h"
#include "precision/error_model.hpp"
#include "rotation_sweep.hpp"

namespace peconform {
namespace {
namespace model_rotation {  // the precision tests build as one unit: names of their own

// One rounding to the model's dtype, to nearest even, held as the float it widens to.
float to_dtype(float value, Dtype dtype) {
  return dtype == Dtype::bf16 ? pec_float_of_bf16(pec_bf16_of_float(value)) : pec_float_of_half(pec_half_of_float(value));
}

// How the emulated module goes wrong, if it does.
enum class Planted {
  none,
  inv_freq_in_dtype,  // model.to(bf16) casts the inv_freq buffer (transformers #25681, gpt-neox #1003)
  angle_in_dtype,     // inv_freq @ position_ids under bf16 autocast (transformers #29285)
  rotation_in_float,  // cos/sin and the rotation kept in float32 (a kernel more precise than the model)
  blend_reversed,     // llama3's smoothing written the wrong way round: s theta / f + (1 - s) theta
  attention_dropped   // yarn's or longrope's attention factor left out of cos and sin (vllm #48623)
};

// _compute_llama3_parameters on one float32 inv_freq. A Python number meets a float32 tensor cast
// to float32, and `number / tensor` is torch's tensor.reciprocal() * number.
float llama3_inv_freq(const FrequencyPlan& plan, float inv_freq, Planted planted) {
  const double orig = static_cast<double>(plan.orig), low = plan.low.to_double(), high = plan.high.to_double();
  const float factor = static_cast<float>(plan.factor.to_double());
  const float wavelen = (1.0f / inv_freq) * static_cast<float>(2 * M_PI);
  const bool long_wave = wavelen > static_cast<float>(orig / low), short_wave = wavelen < static_cast<float>(orig / high);
  const float llama = long_wave ? inv_freq / factor : inv_freq;
  const float smooth = ((1.0f / wavelen) * static_cast<float>(orig) - static_cast<float>(low)) / static_cast<float>(high - low);
  const float smoothed = planted == Planted::blend_reversed ? (smooth * llama) / factor + (1.0f - smooth) * llama
                                                             : ((1.0f - smooth) * llama) / factor + smooth * llama;
  return !short_wave && !long_wave ? smoothed : llama;
}

// _compute_yarn_parameters on one pair: the ramp's ends in Python floats, the blend in float32.
float yarn_inv_freq(const Spec& spec, float power, int pair) {
  const FrequencyPlan& plan = spec.scaling;
  const int d = spec.rotary_dims();
  const double base = spec.base.to_double(), orig = static_cast<double>(plan.orig);
  const auto correction_dim = [&](double rotations) { return (d * std::log(orig / (rotations * 2 * M_PI))) / (2 * std::log(base)); };
  double low = correction_dim(plan.beta_fast.to_double()), high = correction_dim(plan.beta_slow.to_double());
  if (plan.truncate) low = std::floor(low), high = std::ceil(high);
  low = std::max(low, 0.0), high = std::min(high, d - 1.0);
  if (low == high) high += 0.001;
  const float factor = static_cast<float>(plan.factor.to_double());
  const float ramp = std::clamp((static_cast<float>(pair) - static_cast<float>(low)) / static_cast<float>(high - low), 0.0f, 1.0f);
  const float extrapolation_factor = 1.0f - ramp;
  return (1.0f / (factor * power)) * (1.0f - extrapolation_factor) + (1.0f / power) * extrapolation_factor;
}

// The attention factor transformers multiplies into cos and sin, in Python floats.
double attention_scaling(const FrequencyPlan& plan) {
  const double factor = plan.factor.to_double();
  const auto get_mscale = [&](double mscale) { return factor <= 1 ? 1.0 : 0.1 * mscale * std::log(factor) + 1.0; };
  if (plan.attention) return plan.attention->to_double();
  if (plan.kind == PlanKind::longrope) return factor <= 1 ? 1.0 : std::sqrt(1 + std::log(factor) / std::log(static_cast<double>(plan.orig)));
  if (plan.kind != PlanKind::yarn) return 1.0;
  if (plan.mscale && plan.mscale_all_dim) return get_mscale(plan.mscale->to_double()) / get_mscale(plan.mscale_all_dim->to_double());
  return get_mscale(1.0);
}

// The module's output for one head `x` (values of the dtype) at position p, half layout.
std::vector<float> model_rotation(const Spec& spec, const std::vector<float>& x, std::int64_t p, Planted planted) {
  const int d = spec.d, pairs = d / 2;
  const float base = static_cast<float>(spec.base.to_double());
  const FrequencyPlan& plan = spec.scaling;
  const bool linear = plan.kind == PlanKind::linear;
  const float factor = static_cast<float>(plan.factor.to_double());
  // _compute_longrope_parameters: its factors a float32 tensor picked by the length (here one past p).
  const bool longrope = plan.kind == PlanKind::longrope;
  const double attention = planted == Planted::attention_dropped ? 1.0 : attention_scaling(plan);
  std::vector<float> y(x.size());
  for (int i = 0; i < pairs; ++i) {
    const float power = std::pow(base, static_cast<float>(2 * i) / static_cast<float>(d));
    float inv_freq = 1.0f / power;
    if (linear) inv_freq /= factor;
    if (plan.kind == PlanKind::yarn) inv_freq = yarn_inv_freq(spec, power, i);
    if (longrope) {
      const Decimal& extension = (p + 1 > plan.orig ? plan.long_factors : plan.short_factors)[static_cast<std::size_t>(i)];
      inv_freq = 1.0f / (static_cast<float>(extension.to_double()) * power);
    }
    if (spec.scaling.kind == PlanKind::llama3) inv_freq = llama3_inv_freq(spec.scaling, inv_freq, planted);
    float angle = 0;
    if (planted == Planted::angle_in_dtype)  // both operands cast to bf16, the product too
      angle = to_dtype(to_dtype(static_cast<float>(p), Dtype::bf16) * to_dtype(inv_freq, Dtype::bf16), Dtype::bf16);
    else if (planted == Planted::inv_freq_in_dtype)
      angle = static_cast<float>(p) * to_dtype(inv_freq, Dtype::bf16);
    else
      angle = static_cast<float>(p) * inv_freq;
    // cos = emb.cos() * attention_scaling, in float32 (times 1.0 is exact).
    const float c32 = std::cos(angle) * static_cast<float>(attention), s32 = std::sin(angle) * static_cast<float>(attention);
    const float xa = x[static_cast<std::size_t>(i)], xb = x[static_cast<std::size_t>(i + pairs)];
    if (planted == Planted::rotation_in_float) {
      y[static_cast<std::size_t>(i)] = to_dtype(xa * c32 - xb * s32, spec.dtype);
      y[static_cast<std::size_t>(i + pairs)] = to_dtype(xb * c32 + xa * s32, spec.dtype);
      continue;
    }
    const float c = to_dtype(c32, spec.dtype), s = to_dtype(s32, spec.dtype);
    // rotate_half(q) = cat(-q2, q1): element i takes -xb, element i + d/2 takes xa.
    y[static_cast<std::size_t>(i)] = to_dtype(to_dtype(xa * c, spec.dtype) + to_dtype(-xb * s, spec.dtype), spec.dtype);
    y[static_cast<std::size_t>(i + pairs)] = to_dtype(to_dtype(xb * c, spec.dtype) + to_dtype(xa * s, spec.dtype), spec.dtype);
  }
  return y;
}

using rotation_sweep::kPositions;

struct Sweep {
  double worst_ratio = 0;      // over every constrained element
  std::uint64_t bounded = 0, unconstrained = 0, failed = 0;
  std::string first_failure;
};

// One head rotated at position p by an emulated module.
using Module = std::function<std::vector<float>(const std::vector<float>& x, std::int64_t p)>;

// `module` computes heads of `judged_by`'s d and dtype; `judged_by` is the spec its output is held to.
Sweep sweep(const Spec& judged_by, const Module& module, std::uint64_t seed) {
  Sweep out;
  rotation_sweep::HeadDraws heads(seed);
  for (const std::int64_t p : kPositions) {
    const Reference<FastReal> reference(judged_by, p + 1);
    for (int head = 0; head < 4; ++head) {
      const std::vector<float> x = heads.next(judged_by.d, judged_by.dtype);
      const std::vector<float> y = module(x, p);
      const std::vector<Wide> input(x.begin(), x.end());
      const Point point{{p}};
      const std::vector<Wide> exact = reference.evaluate(point, input);
      const std::vector<Wide> bounds = claimed_error_bounds(reference, point, input);
      for (std::size_t e = 0; e < y.size(); ++e) {
        if (isinf(bounds[e])) {
          ++out.unconstrained;
          continue;
        }
        ++out.bounded;
        const double ratio = static_cast<double>(abs(Wide(y[e]) - exact[e]) / bounds[e]);
        out.worst_ratio = std::max(out.worst_ratio, ratio);
        if (ratio > 1 && out.failed++ == 0)
          out.first_failure = fmt::format("{} at p {} element {}: {} against {} ({}x the bound)", judged_by.canonical(), p, e,
                                          y[e], static_cast<double>(exact[e]), ratio);
      }
    }
  }
  return out;
}

// transformers' module computing as `module_spec` says, held to `judged_by`.
Sweep sweep(const Spec& module_spec, const Spec& judged_by, Planted planted, std::uint64_t seed) {
  return sweep(judged_by, [&](const std::vector<float>& x, std::int64_t p) { return model_rotation(module_spec, x, p, planted); }, seed);
}

// The model's specs: d, base and plan as real models have them, in both 16-bit dtypes.
std::vector<Spec> model_specs() {
  std::vector<Spec> specs;
  for (const char* dtype : {"bf16", "fp16"})
    for (const char* shape : {"d=128,base=10000", "d=128,base=500000", "d=64,base=1000000", "d=96,base=12345.678",
                              "d=128,base=10000,scaling=linear(factor=4)", "d=80,base=500000,scaling=linear(factor=7.3)",
                              "d=128,base=500000,scaling=llama3(factor=8,orig=8192)",  // Llama 3.1
                              "d=64,base=500000,scaling=llama3(factor=32,orig=8192)",  // Llama 3.2
                              "d=96,base=12345.678,scaling=llama3(factor=7.3,orig=3000,low=1.5,high=5.1)",
                              // Phi-3's short and long factors' shape, at a length of 1000 and past it
                              "d=8,base=10000,scaling=longrope(factor=32,orig=1000,short=[1,1.05,1.1,1.4],long=[1,2.5,7.3,24.5])",
                              "d=128,base=1000000,scaling=yarn(factor=4,orig=32768)",  // Qwen2.5
                              "d=64,base=150000,scaling=yarn(factor=32,orig=4096,truncate=false)",  // gpt-oss
                              "d=64,base=10000,scaling=yarn(factor=40,orig=4096,mscale=0.707,mscale_all_dim=1)"})
      specs.push_back(Spec::parse(fmt::format("rope({},layout=half,dtype={},precision=fp32-angle,theta=hf,cache=storage,math=storage)",
                                              shape, dtype)));
  return specs;
}

TEST(ModelRotation, TheSixteenBitRecipeHoldsTransformersRotationTightly) {
  double worst = 0;
  std::uint64_t seed = 1;
  for (const Spec& spec : model_specs()) {
    const Sweep result = sweep(spec, spec, Planted::none, seed++);
    EXPECT_EQ(result.failed, 0u) << result.first_failure;
    EXPECT_GT(result.bounded, result.unconstrained) << spec.canonical() << ": the bound still constrains most of the sweep";
    std::cout << spec.canonical() << ": worst error / bound " << result.worst_ratio << " over " << result.bounded
              << " elements, " << result.unconstrained << " unconstrained\n";
    worst = std::max(worst, result.worst_ratio);
    EXPECT_GE(result.worst_ratio, 0.1) << spec.canonical() << ": the bound is tight (DESIGN.md section 2)";
  }
  EXPECT_LE(worst, 1.0);
}

TEST(ModelRotation, WithoutTheKeysTheSameCorrectRotationFails) {
  // Before the keys, the model's correct code was non-conformant: fp32-angle charges no 16-bit
  // rounding of cos/sin or of the products.
  for (const Spec& spec : model_specs()) {
    Spec everything_in_float = spec;
    everything_in_float.cache = everything_in_float.math = RoundsIn::compute;
    EXPECT_GT(sweep(spec, everything_in_float, Planted::none, 7).failed, 0u) << spec.canonical();
  }
}

TEST(ModelRotation, TheRealBugsBreakTheRecipeThatAcceptsTheModel) {
  for (const Spec& spec : model_specs()) {
    for (const Planted planted : {Planted::inv_freq_in_dtype, Planted::angle_in_dtype, Planted::blend_reversed, Planted::attention_dropped}) {
      if (planted == Planted::blend_reversed && spec.scaling.kind != PlanKind::llama3) continue;
      if (planted == Planted::attention_dropped && attention_scaling(spec.scaling) == 1.0) continue;
      const Sweep result = sweep(spec, spec, planted, 11);
      EXPECT_GT(result.failed, 0u) << spec.canonical() << " planted " << static_cast<int>(planted);
    }
  }
}

TEST(ModelRotation, TheFloat32Llama3RecipeHoldsItsAnglesTightlyAndTheWrongBlendBreaksIt) {
  // theta=hf under llama3 in a float32 model, angle by angle: fl(fl(p) theta_f) against p theta'
  // over positions to 2^31 - 1, for the published models and bases, factors and bands that are not.
  double worst = 0, worst_smoothed = 0;  // the latter over the pairs the blend smooths
  for (const char* shape : {"d=128,base=500000,scaling=llama3(factor=8,orig=8192)", "d=64,base=500000,scaling=llama3(factor=32,orig=8192)",
                            "d=128,base=10000,scaling=llama3(factor=4,orig=4096,low=2,high=8)",
                            "d=96,base=12345.678,scaling=llama3(factor=7.3,orig=3000,low=1.5,high=5.1)",
                            "d=256,base=1000000,scaling=llama3(factor=16,orig=16384,low=1,high=32)"}) {
    const Spec spec = Spec::parse(fmt::format("rope({},layout=half,precision=fp32-angle,theta=hf)", shape));
    const Reference<FastReal> reference(spec, 1);
    const float base = static_cast<float>(spec.base.to_double());
    std::uint64_t reversed_breaks = 0;
    for (int i = 0; i < spec.d / 2; ++i) {
      const float inv_freq = 1.0f / std::pow(base, static_cast<float>(2 * i) / static_cast<float>(spec.d));
      const Wide exact = reference.frequencies().inv_freq[static_cast<std::size_t>(i)];
      const double bound = theta_recipe_error<double>(spec, i);
      const double wavelength = 2 * M_PI / std::pow(spec.base.to_double(), -2.0 * i / spec.d), orig = static_cast<double>(spec.scaling.orig);
      const bool smoothed = wavelength > orig / spec.scaling.high.to_double() && wavelength < orig / spec.scaling.low.to_double();
      for (const std::int64_t p : kPositions) {
        if (p == 0) continue;
        const Wide angle = Wide(p) * exact;
        const auto error_of = [&](Planted planted) {
          const float formed = static_cast<float>(p) * llama3_inv_freq(spec.scaling, inv_freq, planted);
          return static_cast<double>(abs(Wide(formed) - angle) / angle);
        };
        const double error = error_of(Planted::none);
        EXPECT_LE(error, bound) << spec.canonical() << " pair " << i << " p " << p;
        worst = std::max(worst, error / bound);
        if (smoothed) worst_smoothed = std::max(worst_smoothed, error / bound);
        reversed_breaks += error_of(Planted::blend_reversed) > bound;
      }
    }
    EXPECT_GT(reversed_breaks, 0u) << spec.canonical();
  }
  std::cout << "llama3 float32 angles: worst error / bound " << worst << ", over the smoothed pairs " << worst_smoothed << "\n";
  EXPECT_GE(worst, 0.1);
  EXPECT_GE(worst_smoothed, 0.1) << "the blend's bound is tight too";
}

TEST(ModelRotation, AKernelMorePreciseThanTheModelConformsToo) {
  // The bound is an upper bound on error, so a kernel that keeps cos/sin and the rotation in
  // float32 meets the 16-bit recipe as well: the recipe admits the model, not only the model.
  for (const Spec& spec : model_specs()) EXPECT_EQ(sweep(spec, spec, Planted::rotation_in_float, 13).failed, 0u) << spec.canonical();
}

TEST(ModelRotation, StorageMathChargesTheProductsInTheStorageDtype) {
  const Spec compute = Spec::parse("rope(d=64,base=10000,dtype=bf16,precision=fp32-angle,theta=hf)");
  Spec storage = compute;
  storage.math = RoundsIn::storage;
  const RotaryBoundTerms<double> a = rotary_bound_terms<double>(compute, 1.0, 0.0, angle_growth<double>(compute, 3));
  const RotaryBoundTerms<double> b = rotary_bound_terms<double>(storage, 1.0, 0.0, angle_growth<double>(storage, 3));
  // u_s plus the float32 rounding before it, on top of the compute products' 2 u_c.
  EXPECT_NEAR(b.relative - a.relative, 0x1p-8 + 0x1p-24 - 2 * 0x1p-24, 0x1p-20);
  EXPECT_EQ(a.final, b.final);
  // The horizon moves in by the factor (1 + p) on the angle term, and no further.
  const double ratio = angle_horizon(compute) / angle_horizon(storage);
  EXPECT_GT(ratio, 1.0);
  EXPECT_LT(ratio, 1.01);
}

// ggml's CPU rope in NEOX mode (src/ggml-cpu/ops.cpp at ggml d99724f, read, not copied), as
// llama.cpp calls it: ggml_rope_cache_init's running product theta *= powf(base, -2/n), each
// pair's theta / freq_factor, rope_yarn's interpolation by freq_scale = 1.0f / factor and, under
// YaRN (ext_factor 1), the ramp from ggml_rope_yarn_corr_dims' float32 ends, the blend and
// mscale = 1 + 0.1 logf(1 / freq_scale); cosf and sinf times mscale, and rotate_pairs' products
// and sums in float32, rounded once to the storage type.
enum class GgmlPlanted {
  none,
  ramp_reversed,      // the interpolated angle weighted by the extrapolation share
  attention_dropped,  // YaRN's mscale left out of cos and sin (ext_factor's branch skipped for it)
  factors_multiply,   // freq_factors multiplying theta instead of dividing it
  scale_in_bf16,      // theta_scale held in bf16, as a model cast whole to bf16 holds its theta
};

std::vector<float> ggml_rotation(const Spec& spec, const std::vector<float>& x, std::int64_t p, GgmlPlanted planted) {
  const FrequencyPlan& plan = spec.scaling;
  const int n_dims = spec.rotary_dims(), half = n_dims / 2;
  const float freq_base = static_cast<float>(spec.base.to_double());
  const bool yarn = plan.kind == PlanKind::yarn;
  const float freq_scale = yarn || plan.kind == PlanKind::linear ? 1.0f / static_cast<float>(plan.factor.to_double()) : 1.0f;
  const float float_scale = std::pow(freq_base, -2.0f / static_cast<float>(n_dims));
  const float theta_scale = planted == GgmlPlanted::scale_in_bf16 ? to_dtype(float_scale, Dtype::bf16) : float_scale;
  const auto corr_dim = [&](float n_rot) {
    return static_cast<float>(n_dims) *
           std::log(static_cast<float>(plan.orig) / (n_rot * 2.0f * static_cast<float>(M_PI))) / (2.0f * std::log(freq_base));
  };
  const float low = std::max(0.0f, std::floor(corr_dim(static_cast<float>(plan.beta_fast.to_double()))));
  const float high = std::min(static_cast<float>(n_dims - 1), std::ceil(corr_dim(static_cast<float>(plan.beta_slow.to_double()))));
  std::vector<float> y(x);
  float theta = static_cast<float>(p);
  for (int i = 0; i < half; ++i) {
    const float ff = plan.factors.empty() ? 1.0f : static_cast<float>(plan.factors[static_cast<std::size_t>(i)].to_double());
    const float extrapolated = planted == GgmlPlanted::factors_multiply ? theta * ff : theta / ff;
    const float interpolated = freq_scale * extrapolated;
    float angle = interpolated, mscale = 1.0f;
    if (yarn) {
      const float mix = 1.0f - std::min(1.0f, std::max(0.0f, (static_cast<float>(i) - low) / std::max(0.001f, high - low)));
      angle = planted == GgmlPlanted::ramp_reversed ? interpolated * mix + extrapolated * (1.0f - mix)
                                                    : interpolated * (1.0f - mix) + extrapolated * mix;
      if (planted != GgmlPlanted::attention_dropped) mscale *= 1.0f + 0.1f * std::log(1.0f / freq_scale);
    }
    const float c = std::cos(angle) * mscale, s = std::sin(angle) * mscale;
    const float x0 = x[static_cast<std::size_t>(i)], x1 = x[static_cast<std::size_t>(i + half)];
    const float a = x0 * c - x1 * s, b = x0 * s + x1 * c;
    y[static_cast<std::size_t>(i)] = spec.dtype == Dtype::fp32 ? a : to_dtype(a, spec.dtype);
    y[static_cast<std::size_t>(i + half)] = spec.dtype == Dtype::fp32 ? b : to_dtype(b, spec.dtype);
    theta *= theta_scale;
  }
  return y;
}

// ggml's YaRN and freq_factors as llama.cpp runs them: Qwen2.5's YaRN, a long stretch over a small
// context, a partial rotary with a base float32 does not hold, and Llama 3.1's rope_freqs.
std::vector<Spec> ggml_specs() {
  std::vector<Spec> specs;
  for (const char* dtype : {"fp32", "fp16"})
    for (const char* shape : {"d=128,base=1000000,scaling=yarn(factor=4,orig=32768)", "d=64,base=10000,scaling=yarn(factor=16,orig=4096)",
                              "d=96,rot=48,base=12345.678,scaling=yarn(factor=7.3,orig=3000,beta_fast=24,beta_slow=1.5)",
                              "d=128,base=500000,scaling=custom(factors=[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,"
                              "1.207484,1.5534146,2.026313,2.69453,3.684253,5.2573266,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,"
                              "8,8,8,8,8])"})
      specs.push_back(Spec::parse(fmt::format("rope({},layout=half,dtype={},precision=fp32-angle,theta=ggml)", shape, dtype)));
  return specs;
}

TEST(ModelRotation, GgmlsYarnAndFreqFactorsHoldTheirRecipeTightly) {
  std::uint64_t seed = 21;
  for (const Spec& spec : ggml_specs()) {
    const Sweep result =
        sweep(spec, [&](const std::vector<float>& x, std::int64_t p) { return ggml_rotation(spec, x, p, GgmlPlanted::none); }, seed++);
    EXPECT_EQ(result.failed, 0u) << result.first_failure;
    EXPECT_GT(result.bounded, result.unconstrained) << spec.canonical();
    std::cout << spec.canonical() << ": worst error / bound " << result.worst_ratio << " over " << result.bounded << " elements, "
              << result.unconstrained << " unconstrained\n";
    EXPECT_GE(result.worst_ratio, 0.1) << spec.canonical() << ": the bound is tight (DESIGN.md section 2)";
  }
}

TEST(ModelRotation, GgmlsBugsBreakTheRecipeThatAcceptsIt) {
  for (const Spec& spec : ggml_specs()) {
    const bool yarn = spec.scaling.kind == PlanKind::yarn;
    for (const GgmlPlanted planted :
         {GgmlPlanted::ramp_reversed, GgmlPlanted::attention_dropped, GgmlPlanted::factors_multiply, GgmlPlanted::scale_in_bf16}) {
      if (planted != GgmlPlanted::scale_in_bf16 && yarn == (planted == GgmlPlanted::factors_multiply)) continue;
      const Sweep result = sweep(spec, [&](const std::vector<float>& x, std::int64_t p) { return ggml_rotation(spec, x, p, planted); }, 31);
      EXPECT_GT(result.failed, 0u) << spec.canonical() << " planted " << static_cast<int>(planted);
    }
  }
}

}  // namespace model_rotation
}  // namespace
}  // namespace peconform
