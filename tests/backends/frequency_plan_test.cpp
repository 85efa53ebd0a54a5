// The CPU backend's own frequency plans (backends/cpu/frequency_plan.hpp, rotary_axes.hpp)
// against values derived by hand from the definitions: the counts variants.md quotes for llama3
// and YaRN, attention factors in closed form, and frequencies that are exact powers of ten.
#include <gtest/gtest.h>

#include <cmath>
#include <fmt/format.h>

#include "backends/cpu/frequency_plan.hpp"
#include "backends/cpu/rotary_axes.hpp"
#include "backends/cpu/rotary_plan.hpp"

namespace peconform::cpu {
namespace {

// |a - b| / |b| as a double, for a Quad b != 0.
double relative_error(Quad a, Quad b) { return static_cast<double>(fabsq(a - b) / fabsq(b)); }

std::vector<Quad> default_theta(const char* base, int d) {
  return rotary_frequencies(Spec::parse(fmt::format("rope(d={},base={})", d, base)), 1).theta;
}

TEST(FrequencyPlan, DefaultFrequenciesThatArePowersOfTenAreExactTo2ToTheMinus110) {
  // base^(-2i/d) is a power of ten where (2i/d) log10(base) is an integer: 1e4 at d=128
  // (i = 16, 32, 48), 1e6 at d=6 (exponents 1/3 and 2/3, not binary fractions: pow's
  // amplification of the rounded exponent by ln(base) ~ 14 shows there), 5e5 has none.
  const std::vector<Quad> base4 = default_theta("1e4", 128), base6 = default_theta("1e6", 6);
  const Quad ten = 10;
  EXPECT_EQ(base4[0], 1);
  for (int i : {16, 32, 48})
    EXPECT_LT(relative_error(base4[static_cast<std::size_t>(i)], powq(ten, -i / 16)), 0x1p-110) << "pair " << i;
  EXPECT_LT(relative_error(base6[1], Quad(1) / 100), 0x1p-110);
  EXPECT_LT(relative_error(base6[2], Quad(1) / 10000), 0x1p-110);
}

TEST(FrequencyPlan, SplitFrequencyHoldsThetaTo2ToTheMinus105) {
  for (const Quad theta : default_theta("5e5", 128)) {
    const SplitFrequency parts = split(theta);
    EXPECT_LT(relative_error(static_cast<Quad>(parts.hi) + static_cast<Quad>(parts.lo), theta), 0x1p-105);
  }
}

TEST(FrequencyPlan, Llama3KeepsTwentyNineSmoothsSixAndDividesTwentyNine) {
  // Meta's defaults, d=128, theta=5e5 (variants.md: 29 unchanged, 6 smoothed, 29 divided by 8).
  const Spec spec = Spec::parse("rope(d=128,base=500000,scaling=llama3(factor=8,orig=8192,low=1,high=4))");
  const std::vector<Quad> plain = default_theta("500000", 128);
  const std::vector<Quad> scaled = rotary_frequencies(spec, 1).theta;
  int kept = 0, smoothed = 0, divided = 0;
  for (std::size_t i = 0; i < plain.size(); ++i) {
    if (scaled[i] == plain[i]) ++kept;
    else if (scaled[i] == plain[i] / 8) ++divided;
    else if (scaled[i] < plain[i] && scaled[i] > plain[i] / 8) ++smoothed;
  }
  EXPECT_EQ(kept, 29);
  EXPECT_EQ(smoothed, 6);
  EXPECT_EQ(divided, 29);
}

TEST(FrequencyPlan, YarnRampsBetweenCorrectionDimsTwentyAndFortySix) {
  // d=128, base=1e4, orig=4096: d ln(4096/(2 pi 32))/(2 ln 1e4) = 20.94 floors to 20 and
  // d ln(4096/(2 pi))/(2 ln 1e4) = 45.03 ceils to 46. Pairs up to 20 extrapolate (theta), pairs
  // from 46 interpolate (theta/factor), and pair 33 sits 13/26 of the way: the mean of the two.
  const Spec spec = Spec::parse("rope(d=128,base=1e4,scaling=yarn(factor=4,orig=4096))");
  const std::vector<Quad> plain = default_theta("1e4", 128);
  const Frequencies yarn = rotary_frequencies(spec, 1);
  for (std::size_t i = 0; i < plain.size(); ++i) {
    if (i <= 20) EXPECT_EQ(yarn.theta[i], plain[i]) << "pair " << i;
    else if (i >= 46) EXPECT_LT(relative_error(yarn.theta[i], plain[i] / 4), 0x1p-110) << "pair " << i;
    else EXPECT_TRUE(yarn.theta[i] < plain[i] && yarn.theta[i] > plain[i] / 4) << "pair " << i;
  }
  EXPECT_LT(relative_error(yarn.theta[33], plain[33] * 5 / 8), 0x1p-110);
  // get_mscale(4) = 0.1 ln 4 + 1.
  EXPECT_LT(relative_error(yarn.attention, logq(4) / 10 + 1), 0x1p-110);
}

TEST(FrequencyPlan, YarnAttentionFollowsDeepSeeksMscaleRatioOrTheGivenValue) {
  const Quad deepseek =
      rotary_frequencies(Spec::parse("rope(d=64,base=1e4,scaling=yarn(factor=40,orig=4096,mscale=1,mscale_all_dim=0.707))"), 1)
          .attention;
  const Quad ln40 = logq(40);
  EXPECT_LT(relative_error(deepseek, (ln40 / 10 + 1) / (Quad(707) / 1000 * ln40 / 10 + 1)), 0x1p-110);
  EXPECT_EQ(rotary_frequencies(Spec::parse("rope(d=64,base=1e4,scaling=yarn(factor=40,orig=4096,attention=1.5))"), 1).attention,
            Quad(3) / 2);
}

TEST(FrequencyPlan, LongRopeSwitchesFactorsPastTheOriginalContext) {
  // factor 32, orig 4096: sqrt(1 + ln 32/ln 4096) = sqrt(1 + 5/12) = sqrt(17/12).
  const Spec spec = Spec::parse("rope(d=4,base=1e4,scaling=longrope(factor=32,orig=4096,short=[1,2],long=[4,8]))");
  const std::vector<Quad> plain = default_theta("1e4", 4);
  const Frequencies within = rotary_frequencies(spec, 4096), past = rotary_frequencies(spec, 4097);
  EXPECT_EQ(within.theta[1], plain[1] / 2);
  EXPECT_EQ(past.theta[1], plain[1] / 8);
  EXPECT_LT(relative_error(past.attention, sqrtq(Quad(17) / 12)), 0x1p-110);
}

TEST(FrequencyPlan, DynamicNtkIsDefaultWithinTheOriginalContextAndRaisesTheBasePastIt) {
  const Spec spec = Spec::parse("rope(d=4,base=1e4,scaling=dynamic(factor=2,orig=1000))");
  EXPECT_EQ(rotary_frequencies(spec, 1000).theta, default_theta("1e4", 4));
  // L = 3000: base' = 1e4 (2 * 3 - 1)^(4/2) = 2.5e5, so theta_1 = 1/500.
  EXPECT_LT(relative_error(rotary_frequencies(spec, 3000).theta[1], Quad(1) / 500), 0x1p-110);
}

TEST(FrequencyPlan, LinearAndCustomFactorsDivideAndCustomFrequenciesReplace) {
  const std::vector<Quad> plain = default_theta("1e4", 4);
  EXPECT_EQ(rotary_frequencies(Spec::parse("rope(d=4,base=1e4,scaling=linear(factor=4))"), 1).theta[1], plain[1] / 4);
  EXPECT_EQ(rotary_frequencies(Spec::parse("rope(d=4,base=1e4,scaling=custom(factors=[1,3]))"), 1).theta[1], plain[1] / 3);
  EXPECT_EQ(rotary_frequencies(Spec::parse("rope(d=4,base=1e4,scaling=custom(freqs=[0.5,0.25]))"), 1).theta[1], Quad(1) / 4);
}

TEST(FrequencyPlan, SinusoidFrequenciesFollowTheirRule) {
  // power: d=8, 1e4^(-2i/8) = 1, 0.1, 0.01, 0.001 (the PyTorch tutorial); geometric (fairseq,
  // tensor2tensor): exp(-i ln(1e4)/3), from 1 down to exactly 1e-4.
  const std::vector<Quad> power = sinusoid_frequencies(Spec::parse("sinusoidal(d=8,base=1e4)"));
  const std::vector<Quad> geometric = sinusoid_frequencies(Spec::parse("sinusoidal(d=9,base=1e4,layout=half,freq=geometric)"));
  ASSERT_EQ(power.size(), 4u);
  ASSERT_EQ(geometric.size(), 4u);
  for (int i = 0; i < 4; ++i) EXPECT_LT(relative_error(power[static_cast<std::size_t>(i)], powq(10, -i)), 0x1p-110);
  EXPECT_LT(relative_error(geometric[3], Quad(1) / 10000), 0x1p-108);
  EXPECT_LT(relative_error(geometric[1] * geometric[1] * geometric[1], Quad(1) / 10000), 0x1p-108);
}

TEST(RotaryPlan, PartialRotarySitsFirstOrLastAndXposZetaIsTorchscales) {
  const RotaryPlan first = make_rotary_plan(Spec::parse("rope(d=10,base=1e4,rot=4)"), 1);
  const RotaryPlan last = make_rotary_plan(Spec::parse("rope(d=10,base=1e4,rot=4,rot_at=last)"), 1);
  EXPECT_EQ(first.start, 0);
  EXPECT_EQ(last.start, 6);
  EXPECT_EQ(last.pairs, 2);
  // d_rot = 4: theta_1 = 1e4^(-1/2) = 0.01, and zeta_1 = (2 + 1.6)/5.6 = 9/14 over scale_base 512.
  EXPECT_DOUBLE_EQ(last.frequency[1].hi, 0.01);
  const RotaryPlan key = make_rotary_plan(Spec::parse("xpos(d=8,base=1e4,rot=4,role=key)"), 1);
  EXPECT_DOUBLE_EQ(key.xpos_log_zeta[1], -std::log(9.0 / 14.0) / 512);
}

TEST(RotaryAxes, MropeSectionsBlockedAndInterleaved) {
  // Qwen2-VL [16, 24, 24]: frequencies 0-15 follow t, 16-39 h, 40-63 w.
  const Spec blocked = Spec::parse("mrope(d=128,base=1e6,sections=[16,24,24])");
  for (int pair : {0, 15, 16, 39, 40, 63}) EXPECT_EQ(pair_axis(blocked, pair).axis, pair < 16 ? 0 : pair < 40 ? 1 : 2) << pair;
  // Qwen3-VL [24, 20, 20]: h on i = 1 mod 3 and w on i = 2 mod 3 below 60, t on the rest.
  const Spec interleaved = Spec::parse("mrope(d=128,base=1e6,sections=[24,20,20],section_mode=interleaved)");
  for (int pair = 0; pair < 64; ++pair) EXPECT_EQ(pair_axis(interleaved, pair).axis, pair < 60 ? pair % 3 : 0) << pair;
  // The windows, not the counts, decide when they do not fit: [1, 2, 2] gives t h w t h, so t
  // takes 2 frequencies and w 1, as Qwen3-VL's and vLLM's kernels do.
  const Spec uneven = Spec::parse("mrope(d=10,base=1e4,sections=[1,2,2],section_mode=interleaved)");
  const int expected[] = {0, 1, 2, 0, 1};
  for (int pair = 0; pair < 5; ++pair) EXPECT_EQ(pair_axis(uneven, pair).axis, expected[pair]) << pair;
}

TEST(RotaryAxes, AxialRopeGivesXTheFirstQuarterAndYTheNext) {
  // d=16: x on pairs 0-3 with 1e4^(-4j/16), y on pairs 4-7 with the same frequencies.
  const RotaryPlan plan = make_rotary_plan(Spec::parse("rope2d(d=16,base=1e4)"), 1);
  for (int pair = 0; pair < 8; ++pair) {
    EXPECT_EQ(plan.pair_axis[static_cast<std::size_t>(pair)], pair < 4 ? 0 : 1);
    EXPECT_DOUBLE_EQ(plan.frequency[static_cast<std::size_t>(pair)].hi, std::pow(10.0, -(pair % 4)));
  }
}

// The remembered tables (default_theta keeps them per base and d) are the computed ones, bit for
// bit: on first use, from memory, for bases one binary128 ulp apart and lengths that differ by
// one, and after the memory is forgotten (more tables than it keeps).
TEST(FrequencyPlan, RememberedFrequenciesAreTheComputedOnes) {
  auto computed = [](Quad base, int d) {
    std::vector<Quad> theta;
    for (int i = 0; i < d / 2; ++i) theta.push_back(powq(base, -static_cast<Quad>(2 * i) / d));
    return theta;
  };
  // 2e-30 lies nearest one ulp of 1e4 in binary128 (2^-99, 1.6e-30).
  const char* const next_base = "10000.000000000000000000000000000002";
  ASSERT_EQ(strtoflt128(next_base, nullptr), 10000 + scalbnq(1, -99));
  for (int round = 0; round < 2; ++round)
    for (const char* base : {"10000", next_base})
      for (const int d : {64, 66, 128})
        EXPECT_EQ(default_theta(base, d), computed(strtoflt128(base, nullptr), d)) << base << " d=" << d << " round " << round;
  EXPECT_NE(default_theta("10000", 64), default_theta(next_base, 64));
  for (int k = 0; k < 5000; ++k) default_theta(fmt::format("{}", k + 2).c_str(), 4);
  EXPECT_EQ(default_theta("10000", 128), computed(10000, 128));
  EXPECT_EQ(default_theta("4999", 4), computed(4999, 4));
}

}  // namespace
}  // namespace peconform::cpu
