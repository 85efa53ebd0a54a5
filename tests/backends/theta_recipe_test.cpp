// fp32-angle's theta recipes in float32 (backends/cpu/theta_recipe.hpp) against the operations
// each library performs, spelled out here in float.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <fmt/format.h>

#include "spec/spec_error.hpp"

#include "backends/cpu/alibi_slopes.hpp"
#include "backends/cpu/frequency_plan.hpp"
#include "backends/cpu/rotary_plan.hpp"
#include "backends/cpu/theta_recipe.hpp"
#include "precision/error_model.hpp"

namespace peconform::cpu {
namespace {

Float32Theta recipe_of(const char* text) {
  const Spec spec = Spec::parse(text);
  return float32_theta(spec, rotary_frequencies(spec, 1).theta, spec.rotary_dims(), 1);
}

TEST(ThetaRecipe, ExactRoundsTheHighPrecisionThetaOnce) {
  const Spec spec = Spec::parse("rope(d=8,base=500000,precision=fp32-angle)");
  const std::vector<Quad> theta = rotary_frequencies(spec, 1).theta;
  const Float32Theta recipe = float32_theta(spec, theta, 8, 1);
  for (std::size_t k = 0; k < theta.size(); ++k) EXPECT_EQ(recipe.theta[k], static_cast<double>(static_cast<float>(theta[k])));
}

TEST(ThetaRecipe, HuggingFaceDividesOneByAFloat32PowThenByTheFactor) {
  const Float32Theta recipe = recipe_of("rope(d=72,base=1e6,precision=fp32-angle,theta=hf,scaling=linear(factor=3))");
  ASSERT_EQ(recipe.theta.size(), 36u);
  for (int k = 0; k < 36; ++k) {
    const float exponent = static_cast<float>(2 * k) / 72.0f;
    const float expected = 1.0f / std::pow(1e6f, exponent) / 3.0f;
    EXPECT_EQ(recipe.theta[static_cast<std::size_t>(k)], expected) << k;
  }
  EXPECT_EQ(recipe_of("rope(d=72,base=1e6,precision=fp32-angle,theta=meta)").theta,
            recipe_of("rope(d=72,base=1e6,precision=fp32-angle,theta=hf)").theta);
}

TEST(ThetaRecipe, GgmlMultipliesThePositionByThetaScaleOncePerPairRoundingEachTime) {
  const Float32Theta recipe = recipe_of("rope(d=128,base=1e4,precision=fp32-angle,theta=ggml,scaling=linear(factor=4))");
  ASSERT_TRUE(recipe.running);
  const float scale = std::pow(1e4f, -2.0f / 128.0f);
  EXPECT_EQ(recipe.scale, scale);
  double angles[64];
  ggml_angles(recipe, 131071.0f, 64, angles);
  float theta = 131071.0f;
  for (int k = 0; k < 64; ++k) {
    EXPECT_EQ(angles[k], static_cast<double>(0.25f * theta)) << k;
    theta *= scale;
  }
}

// Dynamic NTK's float32 base as transformers 5.23 on torch 2.15 forms it, printed by torch:
// past orig, base * ((factor * seq_len / orig) - (factor - 1)) ** (d / (d - 2)) with seq_len
// the int64 tensor dynamic_rope_update passes; at orig (the last row), the Python floats of
// construction cast to float32. The recipe's theta_k is then 1 / powf(base', 2k/d).
TEST(ThetaRecipe, HuggingFaceFormsDynamicNtksBaseAsTorchDoes) {
  struct Row {
    const char* shape;
    std::int64_t length;
    float torch_base;
  };
  for (const Row& row : {Row{"d=128,base=10000,scaling=dynamic(factor=2,orig=2048)", 2049, 0x1.38cf5ep+13f},
                         Row{"d=128,base=10000,scaling=dynamic(factor=2,orig=2048)", 1048576, 0x1.5c7fbcp+23f},
                         Row{"d=96,base=500000,scaling=dynamic(factor=7.3,orig=3000)", 123456789, 0x1.6de4b4p+37f},
                         Row{"d=64,base=1000000,scaling=dynamic(factor=4,orig=4096)", 2147483647, 0x1.8672a2p+41f},
                         Row{"d=80,base=12345.678,scaling=dynamic(factor=0.5,orig=8192)", 1693778700, 0x1.99232ep+30f},
                         Row{"d=6,base=10000,scaling=dynamic(factor=16,orig=2048)", 2064, 0x1.74e36ap+13f},
                         Row{"d=128,base=500000,scaling=dynamic(factor=8,orig=8192)", 50000, 0x1.529b6ap+24f},
                         Row{"d=128,base=10000,scaling=dynamic(factor=3,orig=4096)", 4096, 0x1.388p+13f}}) {
    const Spec spec = Spec::parse(fmt::format("rope({},precision=fp32-angle,theta=hf)", row.shape));
    const Float32Theta recipe = float32_theta(spec, rotary_frequencies(spec, row.length).theta, spec.rotary_dims(), row.length);
    for (int k = 0; k < spec.rotary_dims() / 2; ++k) {
      const float exponent = static_cast<float>(2 * k) / static_cast<float>(spec.rotary_dims());
      EXPECT_EQ(recipe.theta[static_cast<std::size_t>(k)], 1.0f / std::pow(row.torch_base, exponent)) << row.shape << " at " << row.length << " k " << k;
    }
  }
}

// ggml's rope_yarn: freq_scale = 1/factor, the ramp from ends ggml_rope_yarn_corr_dims floors and
// ceils (for d=64, base 10000, orig 4096, beta 32 and 1: 10.47 and 22.51, so 10 and 23), and
// the angle interpolated (1 - ramp) + extrapolated ramp; freq_factors divide the running product.
TEST(ThetaRecipe, GgmlBlendsYarnsAnglesAndDividesByTheFreqFactors) {
  const Float32Theta yarn = recipe_of("rope(d=64,base=1e4,precision=fp32-angle,theta=ggml,scaling=yarn(factor=16,orig=4096))");
  ASSERT_EQ(yarn.ramp.size(), 32u);
  EXPECT_EQ(yarn.freq_scale, 1.0f / 16.0f);
  EXPECT_EQ(yarn.ramp[0], 1.0f);   // below the ramp: extrapolated
  EXPECT_EQ(yarn.ramp[10], 1.0f);
  EXPECT_EQ(yarn.ramp[11], 1.0f - 1.0f / 13.0f);
  EXPECT_EQ(yarn.ramp[22], 1.0f - 12.0f / 13.0f);
  EXPECT_EQ(yarn.ramp[23], 0.0f);  // past it: interpolated
  EXPECT_EQ(yarn.ramp[31], 0.0f);
  double angles[32];
  ggml_angles(yarn, 4097.0f, 32, angles);
  float theta = 4097.0f;
  for (int k = 0; k < 32; ++k) {
    const float mix = yarn.ramp[static_cast<std::size_t>(k)], interpolated = theta / 16.0f;
    EXPECT_EQ(angles[k], static_cast<double>(interpolated * (1.0f - mix) + theta * mix)) << k;
    theta *= yarn.scale;
  }
  const Float32Theta custom = recipe_of("rope(d=8,base=5e5,precision=fp32-angle,theta=ggml,scaling=custom(factors=[1,1.5,3.25,0.1]))");
  ASSERT_EQ(custom.divisor, (std::vector<float>{1.0f, 1.5f, 3.25f, 0.1f}));
  ggml_angles(custom, 1000.0f, 4, angles);
  theta = 1000.0f;
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(angles[k], static_cast<double>(theta / custom.divisor[static_cast<std::size_t>(k)])) << k;
    theta *= custom.scale;
  }
}

TEST(ThetaRecipe, AxialRopeTakesEachAxisExponentOverHalfTheDims) {
  // rope2d d=16: each axis's theta_j = base^(-4j/16); under hf 1/powf(base, 2j/8).
  const RotaryPlan plan = make_rotary_plan(Spec::parse("rope2d(d=16,base=1e4,precision=fp32-angle,theta=hf)"), 1);
  for (int pair = 0; pair < 8; ++pair)
    EXPECT_EQ(plan.frequency_f32[static_cast<std::size_t>(pair)], 1.0f / std::pow(1e4f, static_cast<float>(2 * (pair % 4)) / 8.0f));
}

TEST(ThetaRecipe, ExpLogTablesFollowThePyTorchTutorialAndFairseq) {
  // The PyTorch tutorial: div_term = exp(arange(0, d, 2) * (-math.log(base) / d)), float32.
  const Spec power = Spec::parse("sinusoidal(d=10,base=10000,layout=half,precision=fp32-angle,theta=exp-log)");
  const std::vector<double> tutorial = float32_table_theta(power, sinusoid_frequencies(power));
  ASSERT_EQ(tutorial.size(), 5u);
  const float power_step = static_cast<float>(-std::log(10000.0) / 10);
  for (int k = 0; k < 5; ++k) EXPECT_EQ(tutorial[static_cast<std::size_t>(k)], std::exp(static_cast<float>(2 * k) * power_step)) << k;
  // fairseq: emb = math.log(base) / (half_dim - 1); exp(arange(half_dim) * -emb), float32.
  const Spec geometric = Spec::parse("sinusoidal(d=16,base=83200,layout=half,freq=geometric,precision=fp32-angle,theta=exp-log)");
  const std::vector<double> fairseq = float32_table_theta(geometric, sinusoid_frequencies(geometric));
  const float geometric_step = static_cast<float>(-std::log(83200.0) / 7);
  for (int k = 0; k < 8; ++k) EXPECT_EQ(fairseq[static_cast<std::size_t>(k)], std::exp(static_cast<float>(k) * geometric_step)) << k;
  // The exact recipe rounds the high-precision theta once.
  const Spec exact = Spec::parse("xl(d=8,base=10000,precision=fp32-angle)");
  const std::vector<Quad> theta = sinusoid_frequencies(exact);
  const std::vector<double> rounded = float32_table_theta(exact, theta);
  for (std::size_t k = 0; k < theta.size(); ++k) EXPECT_EQ(rounded[k], static_cast<double>(static_cast<float>(theta[k])));
}

// mlx 0.32.4's theta for fast.rope(base=...) on the CPU, printed from mlx's own ops as its rope
// fallback composes them, exp(arange(0, -h, -1) * array(logf(base) / h)), and checked against
// fast.rope's own cos and sin at position 1, bit for bit: pairs 1, 2, 3, d/4 and d/2 - 1.
TEST(ThetaRecipe, MlxFormsThetaByItsOwnExpAsMlxDoes) {
  struct Printed {
    int d;
    const char* base;
    float theta[5];
  };
  const Printed printed[] = {
      {64, "10000", {0x1.7ff222p-1f, 0x1.1feb34p-1f, 0x1.afd136p-2f, 0x1.47ae16p-7f, 0x1.17a8dep-13f}},
      {128, "10000", {0x1.bb5faep-1f, 0x1.7ff222p-1f, 0x1.4c7bc0p-1f, 0x1.47ae16p-7f, 0x1.e459bap-14f}},
      {128, "500000", {0x1.a11584p-1f, 0x1.53c38ap-1f, 0x1.14c70ap-1f, 0x1.72ba48p-10f, 0x1.498616p-19f}},
      {128, "1000000", {0x1.9c975ap-1f, 0x1.4c7bc0p-1f, 0x1.0beddcp-1f, 0x1.0624e0p-10f, 0x1.4d1c92p-20f}},
      {96, "10000", {0x1.a69b60p-1f, 0x1.5cd250p-1f, 0x1.1feb34p-1f, 0x1.47ae16p-7f, 0x1.fc26c6p-14f}},
      {80, "10000", {0x1.96b230p-1f, 0x1.430cd8p-1f, 0x1.009b9ep-1f, 0x1.47ae16p-7f, 0x1.080416p-13f}},
      {64, "1000000", {0x1.4c7bc0p-1f, 0x1.afd136p-2f, 0x1.186a06p-2f, 0x1.0624e0p-10f, 0x1.9d5f00p-20f}},
  };
  for (const Printed& row : printed) {
    const Float32Theta recipe = recipe_of(fmt::format("rope(d={},base={},precision=fp32-angle,theta=mlx)", row.d, row.base).c_str());
    EXPECT_EQ(recipe.theta.at(0), 1.0);
    const int pairs[5] = {1, 2, 3, row.d / 4, row.d / 2 - 1};
    for (int i = 0; i < 5; ++i)
      EXPECT_EQ(recipe.theta.at(static_cast<std::size_t>(pairs[i])), static_cast<double>(row.theta[i]))
          << "d " << row.d << " base " << row.base << " pair " << pairs[i];
  }
}

// mlx 0.32.4's nn.SinusoidalPositionalEncoding(dims, min_freq=1/base, max_freq=1)._sigmas, printed
// from mlx: pairs 0, 1, 2, 3, h/2 and h - 1, bit for bit (the float32 interpolation of ln(min_freq)
// and mlx's own exp).
TEST(ThetaRecipe, MlxTablesFormThetaAsMlxsSinusoidalEncodingDoes) {
  struct Printed {
    int d;
    const char* base;
    float theta[6];
  };
  const Printed printed[] = {
      {64, "10000", {1.0f, 0x1.7c65c8p-1f, 0x1.1a9f28p-1f, 0x1.a3f49ap-2f, 0x1.1a71e6p-7f, 0x1.a36e34p-14f}},
      {320, "9441", {1.0f, 0x1.e35beep-1f, 0x1.c85204p-1f, 0x1.aecb50p-1f, 0x1.47ac50p-7f, 0x1.bc43d6p-14f}},
      {768, "1000000", {1.0f, 0x1.eddc42p-1f, 0x1.dc5d0ap-1f, 0x1.cb7c84p-1f, 0x1.01755ep-10f, 0x1.0c6f80p-20f}},
  };
  for (const Printed& row : printed) {
    const Spec spec = Spec::parse(
        fmt::format("sinusoidal(d={},base={},layout=half,freq=geometric,precision=fp32-angle,theta=mlx)", row.d, row.base));
    const std::vector<double> theta = float32_table_theta(spec, sinusoid_frequencies(spec));
    const int pairs = row.d / 2;
    const int chosen[6] = {0, 1, 2, 3, pairs / 2, pairs - 1};
    for (int i = 0; i < 6; ++i)
      EXPECT_EQ(theta.at(static_cast<std::size_t>(chosen[i])), static_cast<double>(row.theta[i]))
          << "d " << row.d << " base " << row.base << " pair " << chosen[i];
  }
}

// The angle fl(fl(p) theta_f) from mlx's theta stays within theta=mlx's bound, and the bound is
// tight: below 2^24, where the position is exact, some pair's angle past pair 0 (theta_0 = 1
// exactly) reaches a tenth of it.
TEST(ThetaRecipe, MlxsAnglesStayWithinTheirBound) {
  double worst = 0;
  for (const char* base : {"10000", "500000", "1000000", "12345.678", "100", "2.5"}) {
    for (const int d : {64, 80, 96, 128}) {
      const Spec spec = Spec::parse(fmt::format("rope(d={},base={},precision=fp32-angle,theta=mlx)", d, base));
      const std::vector<Quad> theta = rotary_frequencies(spec, 1).theta;
      const Float32Theta recipe = float32_theta(spec, theta, d, 1);
      for (std::size_t k = 0; k < theta.size(); ++k) {
        const double bound = theta_recipe_error<double>(spec, static_cast<int>(k));
        for (const std::int64_t p : {std::int64_t{1}, std::int64_t{999}, std::int64_t{65537}, (std::int64_t{1} << 24) + 1,
                                     std::int64_t{2147483647}}) {
          const float angle = static_cast<float>(p) * static_cast<float>(recipe.theta[k]);
          const Quad exact = Quad(p) * theta[k];
          const Quad difference = Quad(angle) - exact;
          const double error = static_cast<double>((difference < 0 ? -difference : difference) / exact);
          EXPECT_LE(error, bound) << "base " << base << " d " << d << " pair " << k << " p " << p;
          if (k > 0 && p < (std::int64_t{1} << 24)) worst = std::max(worst, error / bound);
        }
      }
    }
  }
  std::cout << "mlx: worst angle error / bound " << worst << "\n";
  EXPECT_GE(worst, 0.1);
}

// theta alone, against the part of theta=mlx's bound that is theta's (the whole bound less the
// position's and the product's roundings), over 48 bases and four widths: each charge is needed,
// since mlx's exp polynomial alone errs by up to 1.34 ulp where x is small and the rest of the
// bound is small too.
TEST(ThetaRecipe, MlxsThetaNeedsEveryChargeOfItsBound) {
  const double u = 0x1p-24;
  double worst = 0;
  for (int step = 0; step < 48; ++step) {
    const std::string base = fmt::format("{:.6g}", 100 * std::pow(10.0, step / 9.6));
    for (const int d : {64, 96, 128, 256}) {
      const Spec spec = Spec::parse(fmt::format("rope(d={},base={},precision=fp32-angle,theta=mlx)", d, base));
      const std::vector<Quad> theta = rotary_frequencies(spec, 1).theta;
      const Float32Theta recipe = float32_theta(spec, theta, d, 1);
      for (std::size_t k = 1; k < theta.size(); ++k) {
        const double part = (1 + theta_recipe_error<double>(spec, static_cast<int>(k))) / ((1 + u) * (1 + u)) - 1;
        const Quad difference = Quad(recipe.theta[k]) - theta[k];
        const double error = static_cast<double>((difference < 0 ? -difference : difference) / theta[k]);
        EXPECT_LE(error, part) << "base " << base << " d " << d << " pair " << k;
        worst = std::max(worst, error / part);
      }
    }
  }
  std::cout << "mlx theta: worst error / its part of the bound " << worst << "\n";
  EXPECT_GE(worst, 0.5);
}

// Tables under hf: 1 / powf(base, fl(m_k / D)), timm's build_sincos2d_pos_embed per axis. Its
// bound also holds keras-hub's SinePositionEncoding (powf of the float32 1/base, no reciprocal)
// and x-transformers' ScaledSinusoidalEmbedding (powf(base, -fl(m_k / D))), each spelled out
// here; and it is tight: some angle below 2^24 reaches a tenth of it.
TEST(ThetaRecipe, PowTablesStayWithinTheHfBound) {
  double worst = 0;
  for (const char* text : {"sinusoidal(d=64,base=10000,precision=fp32-angle,theta=hf)",
                           "sinusoidal(d=33,base=100,layout=interleaved,precision=fp32-angle,theta=hf)",
                           "sinusoidal(d=384,base=12345.678,layout=half,freq=geometric,precision=fp32-angle,theta=hf)",
                           "xl(d=128,base=500000,precision=fp32-angle,theta=hf)"}) {
    const Spec spec = Spec::parse(text);
    const std::vector<Quad> theta = sinusoid_frequencies(spec);
    const std::vector<double> timm = float32_table_theta(spec, theta);
    const double base = spec.base.to_double();
    const float base_f = static_cast<float>(base), reciprocal_f = static_cast<float>(1 / base);
    for (std::size_t k = 0; k < theta.size(); ++k) {
      const TableExponent exponent = table_exponent(spec, static_cast<int>(k));
      const float e = static_cast<float>(exponent.multiple) / static_cast<float>(exponent.divisor);
      EXPECT_EQ(timm[k], static_cast<double>(1.0f / std::pow(base_f, e))) << text << " " << k;
      const float forms[3] = {static_cast<float>(timm[k]), std::pow(reciprocal_f, e), std::pow(base_f, -e)};
      const double bound = theta_recipe_error<double>(spec, static_cast<int>(k));
      for (const float theta_f : forms) {
        for (const std::int64_t p : {std::int64_t{1}, std::int64_t{4097}, std::int64_t{1000003}, std::int64_t{2147483647}}) {
          const Quad exact = Quad(p) * theta[k];
          const Quad difference = Quad(static_cast<float>(p) * theta_f) - exact;
          const double error = static_cast<double>((difference < 0 ? -difference : difference) / exact);
          EXPECT_LE(error, bound) << text << " pair " << k << " p " << p;
          if (p < (std::int64_t{1} << 24)) worst = std::max(worst, error / bound);
        }
      }
    }
  }
  std::cout << "pow tables: worst angle error / bound " << worst << "\n";
  EXPECT_GE(worst, 0.1);
}

TEST(ThetaRecipe, BloomSlopesArePowfOfAFloat32Base) {
  // 12 heads: c = 8, base = 2^-1 (exact), then extra_base = 2^-0.5 in float32, odd powers.
  const std::vector<float> slopes = bloom_slopes(12);
  ASSERT_EQ(slopes.size(), 12u);
  for (int h = 0; h < 8; ++h) EXPECT_EQ(slopes[static_cast<std::size_t>(h)], std::ldexp(1.0f, -(h + 1))) << h;
  const float extra_base = static_cast<float>(std::sqrt(0.5));
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(slopes[static_cast<std::size_t>(8 + i)], std::pow(extra_base, static_cast<float>(2 * i + 1))) << i;
  // 44 heads: base 2^(-1/4) is not a float32; the slopes drift from the exact series by up to
  // about k ulps, which is what slopes=bloom charges.
  const std::vector<float> bloom44 = bloom_slopes(44);
  const std::vector<double> exact44 = alibi_slopes(44);
  int differing = 0;
  for (std::size_t h = 0; h < 44; ++h) differing += bloom44[h] != static_cast<float>(exact44[h]);
  EXPECT_GT(differing, 10);
  EXPECT_THROW(bloom_slopes(0), SpecError);
}

// transformers 5.23's build_mpt_alibi_tensor on torch 2.15 (CPU), printed: 12 heads take the
// paper's order (2^-1 .. 2^-8, then 2^-0.5 .. 2^-3.5 in float32), and 96 heads' heads 64, 65,
// 66 and 72 are one ulp above the correctly rounded 2^(-(2k+1)/16): 1 / powf(2, e) rounds twice.
TEST(ThetaRecipe, MptSlopesAreTheReciprocalOfPowfAsTransformersFormsThem) {
  const std::vector<float> twelve = mpt_slopes(12);
  const float printed_twelve[12] = {0x1p-1f, 0x1p-2f, 0x1p-3f, 0x1p-4f, 0x1p-5f, 0x1p-6f, 0x1p-7f, 0x1p-8f,
                                    0x1.6a09e6p-1f, 0x1.6a09e6p-2f, 0x1.6a09e6p-3f, 0x1.6a09e6p-4f};
  ASSERT_EQ(twelve.size(), 12u);
  for (std::size_t h = 0; h < 12; ++h) EXPECT_EQ(twelve[h], printed_twelve[h]) << h;
  const std::vector<float> ninety_six = mpt_slopes(96);
  ASSERT_EQ(ninety_six.size(), 96u);
  const std::pair<std::size_t, float> printed[] = {{64, 0x1.ea4afcp-1f}, {65, 0x1.c199c0p-1f}, {66, 0x1.9c491ap-1f}, {72, 0x1.ea4afcp-2f}};
  const std::vector<double> exact = alibi_slopes(96);
  for (const auto& [head, value] : printed) {
    EXPECT_EQ(ninety_six[head], value) << head;
    EXPECT_NE(static_cast<float>(exact[head]), value) << head << ": the printed slope is not the correctly rounded one";
  }
  EXPECT_THROW(mpt_slopes(0), SpecError);
}

}  // namespace
}  // namespace peconform::cpu
