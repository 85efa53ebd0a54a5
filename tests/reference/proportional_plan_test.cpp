// transformers' proportional rope (scaling=proportional(factor=F,pairs=N)): the reference in both
// tiers against values derived by hand and with mpmath, the CPU kernels' plan and a call on still
// pairs, and a short campaign of the CPU kernels on it.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>

#include "backends/backend_registry.hpp"
#include "backends/cpu/rotary_kernels.hpp"
#include "harness/campaign.hpp"
#include "reference/reference.hpp"
#include "reference/tier_conversion.hpp"

namespace peconform {
namespace {

// base 10000 over d = 8 gives base^(-2i/8) = 1, 0.1, 0.01, 0.001: with factor 4 and three
// rotating pairs, theta = 0.25, 0.025, 0.0025 and 0, so at position 1000 the angles are 250, 25,
// 2.5 and 0 exactly.
constexpr const char* kSpec = "rope(d=8,base=10000,layout=half,scaling=proportional(factor=4,pairs=3))";

template <class Real> std::vector<Real> input() {
  std::vector<Real> x;
  for (const char* text : {"0.5", "-1.25", "2", "0.75", "-0.3", "1.5", "-2.5", "1"}) x.emplace_back(text);
  return x;
}

template <class Real> std::vector<Real> at_1000() {
  const Spec spec = Spec::parse(kSpec);
  const Point point{{1000}};
  return Reference<Real>(spec, sequence_length_for(spec, std::span(&point, 1))).evaluate(point, input<Real>());
}

// y_i = x_i cos phi_i - x_{i+4} sin phi_i, y_{i+4} = x_{i+4} cos phi_i + x_i sin phi_i, evaluated
// by mpmath at 40 digits (mp.dps = 40) with the angles above.
const std::vector<const char*> kExpected{
    "-0.1706642532199122947856134108417555",  "-1.0404758896826824542511107576944958",
    "-0.10610687083397619453736882546929765", "0.75",
    "-0.55756050135648028696562507374500194", "1.6522439054174266832524484455783942",
    "3.1998033270752472751874663805407037",   "1"};

TEST(ProportionalPlan, FrequenciesAreLinearsOnTheRotatingPairsAndZeroPastThem) {
  const Reference<ExactReal> reference(Spec::parse(kSpec), 1);
  const std::vector<ExactReal>& theta = reference.frequencies().inv_freq;
  ASSERT_EQ(theta.size(), 4u);
  EXPECT_EQ(theta[0], ExactReal("0.25"));
  EXPECT_LT(abs(theta[1] - ExactReal("0.025")), ExactReal("1e-55"));
  EXPECT_LT(abs(theta[2] - ExactReal("0.0025")), ExactReal("1e-55"));
  EXPECT_EQ(theta[3], ExactReal(0));
}

TEST(ProportionalPlan, BothTiersMatchMpmath) {
  const std::vector<ExactReal> exact = at_1000<ExactReal>();
  const std::vector<FastReal> fast = at_1000<FastReal>();
  for (std::size_t e = 0; e < kExpected.size(); ++e) {
    const ExactReal expected(kExpected[e]);
    // mpmath's 35 printed digits; the tiers carry 200 and 113 bits.
    EXPECT_LT(abs(exact[e] - expected), ExactReal("1e-33")) << "exact tier, element " << e;
    EXPECT_LT(abs(to_exact_tier(fast[e]) - expected), ExactReal("1e-32")) << "fast tier, element " << e;
  }
  // The still pair (3, 7) is the input itself, bit for bit, in both tiers.
  EXPECT_EQ(exact[3], ExactReal("0.75"));
  EXPECT_EQ(exact[7], ExactReal(1));
  EXPECT_EQ(fast[3], FastReal("0.75"));
  EXPECT_EQ(fast[7], FastReal(1));
}

TEST(ProportionalPlan, CpuKernelsLeaveStillPairsBitIdentical) {
  const cpu::RotaryPlan plan = cpu::make_rotary_plan(Spec::parse(kSpec), 1 << 20);
  ASSERT_EQ(plan.frequency.size(), 4u);
  EXPECT_EQ(plan.frequency[3].hi, 0.0);
  EXPECT_EQ(plan.frequency[3].lo, 0.0);
  std::vector<float> x{0.5f, -1.25f, 2.0f, 0.75f, -0.3f, 1.5f, -2.5f, 1.0f}, y(8, 0.0f);
  const std::int64_t position = 987654;
  cpu::PositionIds ids;
  ids.data = &position;
  const cpu::RotaryOperand<float> operand{cpu::bshd<const float>(x.data(), 1, 1, 1, 8), cpu::bshd(y.data(), 1, 1, 1, 8)};
  cpu::apply_rotary<float>(plan, {&operand, 1}, ids);
  EXPECT_EQ(y[3], x[3]);
  EXPECT_EQ(y[7], x[7]);
  EXPECT_NE(y[0], x[0]);
}

class ProportionalCampaign : public testing::TestWithParam<const char*> {};

TEST_P(ProportionalCampaign, CpuKernelsConform) {
  harness::CampaignOptions options;
  options.profile = harness::profile_named("smoke");
  options.seed = 21;
  options.cases = 12;
  options.filters.spec = Spec::parse(GetParam());
  options.save_regressions = false;
  options.run_properties = false;
  const std::unique_ptr<TensorBackend> cpu = make_backend("cpu");
  const std::atomic<bool> stop{false};
  const harness::CampaignResult result = harness::run_campaign(options, *cpu, {}, stop);
  EXPECT_TRUE(result.conformant()) << GetParam();
  EXPECT_GT(result.total_elements(), 0u);
}

// Gemma 4's full-attention plan (head 512, a quarter of it rotating) in each class, and a
// smaller head with a factor, under Hugging Face's float32 recipe and at fp16.
INSTANTIATE_TEST_SUITE_P(
    Specs, ProportionalCampaign,
    testing::Values("rope(d=512,base=1000000,layout=half,scaling=proportional(factor=1,pairs=64))",
                    "rope(d=512,base=1000000,layout=half,scaling=proportional(factor=1,pairs=64),precision=fp32-angle,theta=hf)",
                    "rope(d=64,base=10000,layout=interleaved,scaling=proportional(factor=8,pairs=5),dtype=fp16)",
                    "rope(d=64,base=10000,layout=half,scaling=proportional(factor=2,pairs=20),precision=lowp-cache,dtype=bf16)"));

}  // namespace
}  // namespace peconform
