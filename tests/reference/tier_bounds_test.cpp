#include <gtest/gtest.h>

#include <boost/math/constants/constants.hpp>
#include <string>
#include <vector>

#include "reference/point.hpp"
#include "reference/reference.hpp"
#include "reference/tier_bounds.hpp"

namespace peconform {
namespace {

// The fast tier's bound is loose by design, so the tier staying inside it (fast_tier_test.cpp)
// cannot tell a term nudged from the right one. These tests recompute the bound of chosen pairs
// from precision/measured_constants.md section 2 ("From a frequency to an element" and the
// "theta, plan by plan" table) and hold fast_tier_bounds to it.

// What a spec's plan sets in section 2's B: w on |ln theta| and x per radian. Its a, a YaRN mscale
// ratio's, is 0 for every spec here.
struct DocumentedPlanTerms {
  ExactReal weight{1};
  ExactReal extra{0};
};

// Section 2: B = S u (|phi| (w |ln theta| + 16 + x) + 20 + a + g), u = 2^-113, S = A r for a
// rotated pair of amplitude A and input norm r, g xPos's amplitude growth (0 elsewhere), a = 0.
ExactReal documented_pair_bound(const DocumentedPlanTerms& terms, const ExactReal& scale, const ExactReal& angle,
                                const ExactReal& theta, const ExactReal& xpos_growth) {
  const ExactReal u = ldexp(ExactReal(1), -113);
  return scale * u * (abs(angle) * (terms.weight * abs(log(theta)) + 16 + terms.extra) + 20 + xpos_growth);
}

// Section 2's YaRN and llama3 rows: theta_0 / f and theta_0 mixed with a weight off by `weight_error`
// u come to |ln f| (the divided frequency's exponent) + (f - 1)(weight_error + 2) + 3 in the bound.
ExactReal documented_mixing_extra(const ExactReal& factor, const ExactReal& weight_error) {
  return log(factor) + (factor - 1) * (weight_error + 2) + 3;
}

// The fast tier's bounds of an interleaved rotary spec at `point`, every pair (2i, 2i+1) fed (3, 4),
// so that r = 5 on each.
struct InterleavedPairBounds {
  Spec spec;
  Reference<ExactReal> reference;
  std::vector<ExactReal> bounds;
};

InterleavedPairBounds interleaved_pair_bounds(const std::string& text, const Point& point) {
  const Spec spec = Spec::parse(text);
  const Reference<ExactReal> reference(spec, sequence_length_for(spec, std::vector<Point>{point}));
  std::vector<ExactReal> input;
  for (std::size_t e = 0; e < reference.input_size(); ++e) input.emplace_back(e % 2 == 0 ? 3 : 4);
  return {spec, reference, fast_tier_bounds<ExactReal>(reference, point, input)};
}

// Both elements of pair `pair` against the derivation's bound, to 1e-12 relative: both sides are
// 60-digit arithmetic that only the order of operations sets apart, while each term these tests
// pin moves the bound of some pair by 1e-3 of itself or more.
void expect_pair_bound(const InterleavedPairBounds& got, int pair, const ExactReal& expected) {
  for (const std::size_t e : {std::size_t(2 * pair), std::size_t(2 * pair + 1)})
    EXPECT_LE(abs(got.bounds[e] - expected), expected * ExactReal("1e-12"))
        << got.spec.canonical() << " element " << e << ": bound " << to_decimal_string(got.bounds[e], 20)
        << ", the derivation's " << to_decimal_string(expected, 20);
}

// At position 0 no angle rounds, and every pair is held to the constant allowance: "it is now 20"
// (section 2, "The constant part, plan by plan").
TEST(TierBounds, AtPositionZeroAPairIsHeldToTheConstantAllowanceTwentyAlone) {
  const InterleavedPairBounds got = interleaved_pair_bounds("rope(d=8,base=10000,layout=interleaved)", Point{{0}});
  for (int pair = 0; pair < 4; ++pair) expect_pair_bound(got, pair, 5 * ldexp(ExactReal(1), -113) * 20);
}

// With no plan, the power rule's row: w = 1, x = 0, so |phi| (|ln theta| + 16) + 20; a rope spec has
// no xPos growth, even at a position where xPos's would be large.
TEST(TierBounds, APlainRopePairIsChargedItsLogFrequencyPlusSixteenPerRadian) {
  const std::int64_t position = 1 << 20;
  const InterleavedPairBounds got = interleaved_pair_bounds("rope(d=8,base=10000,layout=interleaved)", Point{{position}});
  for (int pair = 0; pair < 4; ++pair) {
    const ExactReal theta = pow(ExactReal(10000), ExactReal(-2 * pair) / 8);
    expect_pair_bound(got, pair, documented_pair_bound({}, ExactReal(5), position * theta, theta, ExactReal(0)));
  }
}

// Section 2's xPos item: A carries zeta^(+-n/s), zeta = (2i + 0.4 d)/(1.4 d), and g = 2 |ln a_xpos|
// (the exponent's two roundings) + 6 |n/s| (zeta's six, raised to the power n/s).
TEST(TierBounds, XposAddsTwiceTheLogOfItsAmplitudeAndSixTimesItsExponent) {
  const std::int64_t position = 4096;
  const ExactReal exponent = ExactReal(position) / 512;  // scale_base's default
  for (const auto& [text, sign] : {std::pair{"xpos(d=8,base=10000,layout=interleaved)", 1},
                                  std::pair{"xpos(d=8,base=10000,layout=interleaved,role=key)", -1}}) {
    const InterleavedPairBounds got = interleaved_pair_bounds(text, Point{{position}});
    for (int pair = 0; pair < 4; ++pair) {
      const ExactReal zeta = ExactReal(20 * pair + 4 * 8) / (14 * 8);  // (2i + 0.4 d)/(1.4 d), times 10/10
      const ExactReal amplitude = pow(zeta, sign * exponent);
      const ExactReal theta = pow(ExactReal(10000), ExactReal(-2 * pair) / 8);
      const ExactReal growth = 2 * abs(log(amplitude)) + 6 * abs(exponent);
      expect_pair_bound(got, pair, documented_pair_bound({}, 5 * amplitude, position * theta, theta, growth));
    }
  }
}

// A plan's term belongs to the frequencies, whichever rotary family turns at them: mRoPE with a
// linear plan is charged the linear row's |ln f| as RoPE is (its pairs all at one position here).
TEST(TierBounds, AnMropePlanIsChargedAsARopePlanIs) {
  const std::int64_t position = 1000;
  const DocumentedPlanTerms linear{.extra = log(ExactReal(4))};
  for (const char* text : {"rope(d=8,base=10000,layout=interleaved,scaling=linear(factor=4))",
                           "mrope(d=8,base=10000,layout=interleaved,sections=[2,1,1],scaling=linear(factor=4))"}) {
    const InterleavedPairBounds got = interleaved_pair_bounds(text, Point{{position, position, position}});
    for (int pair = 0; pair < 4; ++pair) {
      const ExactReal theta = pow(ExactReal(10000), ExactReal(-2 * pair) / 8) / 4;
      expect_pair_bound(got, pair, documented_pair_bound(linear, ExactReal(5), position * theta, theta, ExactReal(0)));
    }
  }
}

// Section 2's dynamic NTK row, "2l + 16 + 2f + 2": w = 2 and x = 2f + 2, on the spec whose
// cancellation at L = orig the old bound missed ("What the old bound missed").
TEST(TierBounds, DynamicNtkWeighsTheLogTwiceAndAddsTwiceItsFactorPlusTwo) {
  const std::int64_t position = 1000;
  const InterleavedPairBounds got =
      interleaved_pair_bounds("rope(d=4,base=10000,layout=interleaved,scaling=dynamic(factor=1000.7,orig=3,len=3))", Point{{position}});
  const DocumentedPlanTerms dynamic{.weight = ExactReal(2), .extra = 2 * ExactReal("1000.7") + 2};
  for (int pair = 0; pair < 2; ++pair) {
    const ExactReal& theta = got.reference.frequencies().inv_freq[static_cast<std::size_t>(pair)];
    expect_pair_bound(got, pair, documented_pair_bound(dynamic, ExactReal(5), position * theta, theta, ExactReal(0)));
  }
}

// YaRN's default attention factor, 1 + 0.1 ln f, is A; the default mscale adds no a.
ExactReal yarn_default_attention(const ExactReal& factor) { return 1 + log(factor) / 10; }

// Section 2's YaRN row with "YaRN ramp, truncate=true": integer ends, the ramp rounds once, dk = 1.
TEST(TierBounds, ATruncatedYarnRampMixesWithAWeightErrorOfOne) {
  const std::int64_t position = 1000;
  const ExactReal factor(40);
  const InterleavedPairBounds got =
      interleaved_pair_bounds("rope(d=128,base=10000,layout=interleaved,scaling=yarn(factor=40,orig=4096))", Point{{position}});
  const DocumentedPlanTerms yarn{.extra = documented_mixing_extra(factor, ExactReal(1))};
  for (int pair = 0; pair < 64; ++pair) {
    const ExactReal& theta = got.reference.frequencies().inv_freq[static_cast<std::size_t>(pair)];
    expect_pair_bound(got, pair, documented_pair_bound(yarn, 5 * yarn_default_attention(factor), position * theta, theta, ExactReal(0)));
  }
}

// Section 2's "YaRN ramp, truncate=false" row: each end d ln(x)/(2 ln base), x = orig/(beta 2 pi), is
// off by (d / (2 ln base)) ((10 + 1/ln base) |ln x| + 4), and the ramp's weight by
// (2 d_low + d_high)/(high - low) + 3; low is beta_fast's end, high beta_slow's.
TEST(TierBounds, AnUntruncatedYarnRampCarriesTheRoundingOfBothItsEnds) {
  const std::int64_t position = 1000;
  const int dims = 128;
  const ExactReal factor(40), ln_base = log(ExactReal(10000)), orig(4096);
  const InterleavedPairBounds got = interleaved_pair_bounds(
      "rope(d=128,base=10000,layout=interleaved,scaling=yarn(factor=40,orig=4096,truncate=false))", Point{{position}});
  const ExactReal two_pi = boost::math::constants::two_pi<ExactReal>();
  const ExactReal ln_x_low = log(orig / (32 * two_pi)), ln_x_high = log(orig / (1 * two_pi));  // beta_fast 32, beta_slow 1
  const ExactReal low = dims * ln_x_low / (2 * ln_base), high = dims * ln_x_high / (2 * ln_base);
  ASSERT_GT(low, 0);  // neither end is clamped to [0, d - 1], which the row does not cover
  ASSERT_LT(high, dims - 1);
  auto end_error = [&](const ExactReal& ln_x) { return dims / (2 * ln_base) * ((10 + 1 / ln_base) * abs(ln_x) + 4); };
  const ExactReal ramp_error = (2 * end_error(ln_x_low) + end_error(ln_x_high)) / (high - low) + 3;
  const DocumentedPlanTerms yarn{.extra = documented_mixing_extra(factor, ramp_error)};
  for (int pair = 0; pair < 64; ++pair) {
    const ExactReal& theta = got.reference.frequencies().inv_freq[static_cast<std::size_t>(pair)];
    expect_pair_bound(got, pair, documented_pair_bound(yarn, 5 * yarn_default_attention(factor), position * theta, theta, ExactReal(0)));
  }
}

// Section 2's "llama3 smoothed band" row: s = (orig/wavelength - low)/(high - low) is off by
// ds = (high (ln base + 8) + low + high)/(high - low) + 3, mixed as for YaRN. Checked on the band
// the row derives it for: wavelengths 2 pi / theta_0 between orig/high and orig/low, the 6 pairs
// DESIGN.md's known values say d = 128, base 5e5 smooths.
TEST(TierBounds, ALlama3MixingTermIsTheDerivationsWidthOverTheBand) {
  const std::int64_t position = 1000;
  const ExactReal factor(8), low(1), high(4), orig(8192), base(500000);
  const InterleavedPairBounds got = interleaved_pair_bounds(
      "rope(d=128,base=500000,layout=interleaved,scaling=llama3(factor=8,orig=8192))", Point{{position}});
  const ExactReal smoothing_error = (high * (log(base) + 8) + low + high) / (high - low) + 3;
  const DocumentedPlanTerms llama3{.extra = documented_mixing_extra(factor, smoothing_error)};
  int smoothed = 0;
  for (int pair = 0; pair < 64; ++pair) {
    const ExactReal wavelength = boost::math::constants::two_pi<ExactReal>() / pow(base, ExactReal(-2 * pair) / 128);
    if (wavelength < orig / high || wavelength > orig / low) continue;
    ++smoothed;
    const ExactReal& theta = got.reference.frequencies().inv_freq[static_cast<std::size_t>(pair)];
    expect_pair_bound(got, pair, documented_pair_bound(llama3, ExactReal(5), position * theta, theta, ExactReal(0)));
  }
  EXPECT_EQ(smoothed, 6);
}

}  // namespace
}  // namespace peconform
