// fp32-angle's theta recipes in float32 (backends/cpu/theta_recipe.hpp) against the operations
// each library performs, spelled out here in float.
#include <gtest/gtest.h>

#include <cmath>

#include "spec/spec_error.hpp"

#include "backends/cpu/alibi_slopes.hpp"
#include "backends/cpu/frequency_plan.hpp"
#include "backends/cpu/rotary_plan.hpp"
#include "backends/cpu/theta_recipe.hpp"

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

}  // namespace
}  // namespace peconform::cpu
