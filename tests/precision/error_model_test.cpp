// The precision classes' bounds (precision/error_model.hpp): the final rounding is relative to
// the element, fp32-angle follows the recipe that forms theta, and what a bound no longer
// constrains is reported as +inf.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <iostream>

#include <fmt/format.h>

#include "precision/error_model.hpp"

namespace peconform {
namespace {

float round_to_bf16(float value) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  return std::bit_cast<float>((bits + 0x7fffu + ((bits >> 16) & 1u)) & 0xffff0000u);
}

TEST(ErrorModel, FinalRoundingIsRelativeToTheElementSoAStorageDtypeCacheShows) {
  // x = (sin phi, cos phi) rotates to y_a = sin cos - cos sin = 0 exactly. A kernel that caches
  // cos and sin in bf16 while claiming exact-angle writes about 2^-9 there; the bound of an
  // element that is exactly 0 is far below, though the pair's own scale A r is 1.
  const Spec spec = Spec::parse("rope(d=2,base=10000,dtype=bf16)");
  const double phi = 0.7;
  const float c = static_cast<float>(std::cos(phi)), s = static_cast<float>(std::sin(phi));
  const double cached = static_cast<double>(s) * round_to_bf16(c) - static_cast<double>(c) * round_to_bf16(s);
  const RotaryBoundTerms<double> terms = rotary_bound_terms<double>(spec, phi, 0.0, angle_growth<double>(spec, 0, 1.0));
  const double bound_at_zero = terms.bound(1.0, 1.0, 0.0);
  EXPECT_GT(std::abs(cached), 8 * bound_at_zero) << "a bf16 cache must be visible on a zero element";
  // The same element at full size may round by a bf16 unit.
  EXPECT_GT(terms.bound(1.0, 1.0, 1.0), 0x1p-9);
  // lowp-cache admits the cache: its bound at zero covers it.
  Spec lowp = spec;
  lowp.precision = PrecisionClass::lowp_cache;
  EXPECT_GE(rotary_bound_terms<double>(lowp, phi, 0.0, angle_growth<double>(lowp, 0, 1.0)).bound(1.0, 1.0, 0.0), std::abs(cached));
}

// theta_i = base^(-2i/d) in binary128, the exact value each recipe approximates.
Wide exact_theta(double base, int pair, int d) { return pow(Wide(base), Wide(-2 * pair) / Wide(d)); }

// |phi_f - p theta| / |p theta| for a float angle phi_f.
double relative_angle_error(float angle, std::int64_t position, const Wide& theta) {
  const Wide exact = Wide(position) * theta;
  return static_cast<double>(abs(Wide(angle) - exact) / exact);
}

// Hugging Face's inv_freq in float32: 1 / base^(float(2i) / d); with `inv_freq_in_bf16`, the
// buffer as a module cast to bf16 holds it.
float hf_angle(float base, int pair, int d, std::int64_t position, bool inv_freq_in_bf16) {
  const float exponent = static_cast<float>(2 * pair) / static_cast<float>(d);
  float inv_freq = 1.0f / std::pow(base, exponent);
  if (inv_freq_in_bf16) inv_freq = round_to_bf16(inv_freq);
  return static_cast<float>(position) * inv_freq;
}

// ggml's running product: theta = float(p), times powf(base, -2/d) once per pair.
float ggml_angle(float base, int pair, int d, std::int64_t position) {
  const float scale = std::pow(base, -2.0f / static_cast<float>(d));
  float theta = static_cast<float>(position);
  for (int i = 0; i < pair; ++i) theta *= scale;
  return theta;
}

const std::int64_t kPositions[] = {1, 3, 17, 1000, 4097, 65537, 1 << 20, 16777217, 123456789, 2147483647};

TEST(ErrorModel, Float32EmulationsOfEachRecipeStayWithinItsThetaError) {
  // The worst error over the bound per recipe, and whether hf and ggml would break the bound of
  // a correctly rounded theta (why fp32-angle needs the recipe: DESIGN.md section 5).
  double worst_hf = 0, worst_ggml = 0, worst_exact = 0;
  bool hf_beyond_exact = false, ggml_beyond_exact = false;
  for (const double base : {10000.0, 500000.0, 1e6}) {
    for (const int d : {64, 96, 128}) {
      Spec hf = Spec::parse(fmt::format("rope(d={},base={},precision=fp32-angle,theta=hf)", d, base));
      Spec ggml = hf, meta = hf, exact = hf;
      ggml.theta = ThetaRecipe::ggml;
      meta.theta = ThetaRecipe::meta;
      exact.theta = ThetaRecipe::exact;
      for (int pair = 0; pair < d / 2; ++pair) {
        const Wide theta = exact_theta(base, pair, d);
        for (const std::int64_t p : kPositions) {
          const std::string where = fmt::format("base {} d {} pair {} p {}", base, d, pair, p);
          const double exact_bound = theta_recipe_error<double>(exact, pair, static_cast<double>(theta));
          const double hf_bound = theta_recipe_error<double>(hf, pair, static_cast<double>(theta));
          const double ggml_bound = theta_recipe_error<double>(ggml, pair, static_cast<double>(theta));
          const double hf_error = relative_angle_error(hf_angle(static_cast<float>(base), pair, d, p, false), p, theta);
          EXPECT_LE(hf_error, hf_bound) << where;
          EXPECT_EQ(hf_bound, theta_recipe_error<double>(meta, pair, static_cast<double>(theta))) << where;
          const double ggml_error = relative_angle_error(ggml_angle(static_cast<float>(base), pair, d, p), p, theta);
          EXPECT_LE(ggml_error, ggml_bound) << where;
          const float rounded = static_cast<float>(static_cast<float>(p) * static_cast<float>(theta));
          const double exact_error = relative_angle_error(rounded, p, theta);
          EXPECT_LE(exact_error, exact_bound) << where;
          worst_hf = std::max(worst_hf, hf_error / hf_bound);
          worst_ggml = std::max(worst_ggml, ggml_error / ggml_bound);
          worst_exact = std::max(worst_exact, exact_error / exact_bound);
          hf_beyond_exact = hf_beyond_exact || hf_error > exact_bound;
          ggml_beyond_exact = ggml_beyond_exact || ggml_error > exact_bound;
        }
      }
    }
  }
  EXPECT_TRUE(hf_beyond_exact);
  EXPECT_TRUE(ggml_beyond_exact);
  std::cout << "worst error / bound: hf " << worst_hf << ", ggml " << worst_ggml << ", exact " << worst_exact << "\n";
}

TEST(ErrorModel, HuggingFaceRecipeWithABf16InvFreqBreaksItsBound) {
  const Spec hf = Spec::parse("rope(d=128,base=10000,precision=fp32-angle,theta=hf)");
  int rejected = 0, pairs = 0;
  for (int pair = 1; pair < 64; ++pair) {
    const Wide theta = exact_theta(10000, pair, 128);
    const double error = relative_angle_error(hf_angle(10000.0f, pair, 128, 1000, true), 1000, theta);
    ++pairs;
    if (error > theta_recipe_error<double>(hf, pair, static_cast<double>(theta))) ++rejected;
  }
  // A bf16 inv_freq is off by up to 2^-9 relative; only pairs whose theta bf16 happens to hold
  // closely escape.
  EXPECT_GT(rejected, pairs * 9 / 10) << rejected << " of " << pairs;
}

TEST(ErrorModel, RecipesOrderedByTheRoundingsTheyTake) {
  const Spec hf = Spec::parse("rope(d=128,base=10000,precision=fp32-angle,theta=hf)");
  Spec ggml = hf, exact = hf;
  ggml.theta = ThetaRecipe::ggml;
  exact.theta = ThetaRecipe::exact;
  const double last = std::pow(10000.0, -126.0 / 128);
  EXPECT_LT(theta_recipe_error<double>(exact, 63, last), 4 * 0x1p-24);
  EXPECT_GT(theta_recipe_error<double>(hf, 63, last), theta_recipe_error<double>(exact, 63, last));
  EXPECT_GT(theta_recipe_error<double>(ggml, 63, last), 32 * theta_recipe_error<double>(ggml, 1, 0.9));
}

TEST(ErrorModel, BeyondTheHorizonAnElementIsUnconstrained) {
  const Spec spec = Spec::parse("rope(d=4,base=10000,precision=fp32-angle)");
  const double horizon = angle_horizon(spec);
  // Three float32 roundings: |phi| 3 u reaches 1 at about 2^22.4.
  EXPECT_GT(horizon, 0x1p22);
  EXPECT_LT(horizon, 0x1p23);
  EXPECT_GT(angle_horizon(Spec::parse("rope(d=4,base=10000)")), 0x1p90);
  EXPECT_TRUE(std::isinf(angle_horizon(Spec::parse("t5(buckets=32,max_distance=128)"))));
  EXPECT_NEAR(std::log2(angle_horizon(Spec::parse("sinusoidal(d=8,precision=fp32-angle)"))), 22, 1e-9);
  // Pair 0 (theta = 1) at p = 2^23 lies past the horizon; pair 1 (theta = 1e-2) does not.
  const Reference<FastReal> reference(spec, std::int64_t{1} << 24);
  const std::vector<Wide> input{Wide(0.5), Wide(-0.25), Wide(0.75), Wide(1)};
  const std::vector<Wide> bounds = claimed_error_bounds(reference, Point{{std::int64_t{1} << 23}}, input);
  EXPECT_TRUE(isinf(bounds[0]) && isinf(bounds[2])) << "pair 0 (elements 0 and 2 in the half layout)";
  EXPECT_TRUE(isfinite(bounds[1]) && isfinite(bounds[3]));
  EXPECT_LT(bounds[1], Wide(1));
}

}  // namespace
}  // namespace peconform
