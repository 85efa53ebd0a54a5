// fp32-angle's theta recipes in float32 (backends/cpu/theta_recipe.hpp) against the operations
// each library performs, spelled out here in float.
#include <gtest/gtest.h>

#include <cmath>

#include "backends/cpu/frequency_plan.hpp"
#include "backends/cpu/rotary_plan.hpp"
#include "backends/cpu/theta_recipe.hpp"

namespace peconform::cpu {
namespace {

Float32Theta recipe_of(const char* text) {
  const Spec spec = Spec::parse(text);
  return float32_theta(spec, rotary_frequencies(spec, 1).theta, spec.rotary_dims());
}

TEST(ThetaRecipe, ExactRoundsTheHighPrecisionThetaOnce) {
  const Spec spec = Spec::parse("rope(d=8,base=500000,precision=fp32-angle)");
  const std::vector<Quad> theta = rotary_frequencies(spec, 1).theta;
  const Float32Theta recipe = float32_theta(spec, theta, 8);
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

}  // namespace
}  // namespace peconform::cpu
