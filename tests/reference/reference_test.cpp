#include <gtest/gtest.h>

#include "reference/frequency_plans.hpp"
#include "reference/reference.hpp"
#include "reference/relative_bias.hpp"
#include "spec/spec_error.hpp"

namespace peconform {
namespace {

std::vector<ExactReal> exact(std::initializer_list<const char*> texts) {
  std::vector<ExactReal> out;
  for (const char* text : texts) out.emplace_back(text);
  return out;
}

std::vector<ExactReal> evaluate(const std::string& spec_text, Point point, const std::vector<ExactReal>& input = {}) {
  const Spec spec = Spec::parse(spec_text);
  return Reference<ExactReal>(spec, sequence_length_for(spec, std::span(&point, 1))).evaluate(point, input);
}

TEST(Reference, PositionZeroIsTheIdentityForEveryRotaryLayout) {
  const auto x = exact({"0.5", "-1.25", "2", "0.75", "-0.3", "1.5", "-2.5", "1"});
  for (const char* spec : {"rope(d=8,layout=half)", "rope(d=8,layout=interleaved,sign=-1)", "xpos(d=8)",
                           "rope(d=8,rot=4,rot_at=last)", "mrope(d=8,sections=[1,1,2])", "rope2d(d=8)"})
    EXPECT_EQ(evaluate(spec, Point{}, x), x) << spec;
}

TEST(Reference, PartialRotaryLeavesPassThroughDimsBitIdentical) {
  const auto x = exact({"0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8"});
  const auto first = evaluate("rope(d=8,layout=interleaved,rot=4)", Point{{12345}}, x);
  const auto last = evaluate("rope(d=8,layout=interleaved,rot=4,rot_at=last)", Point{{12345}}, x);
  for (int e = 4; e < 8; ++e) EXPECT_EQ(first[static_cast<std::size_t>(e)], x[static_cast<std::size_t>(e)]);
  for (int e = 0; e < 4; ++e) EXPECT_EQ(last[static_cast<std::size_t>(e)], x[static_cast<std::size_t>(e)]);
  EXPECT_NE(first[0], x[0]);
  EXPECT_NE(last[4], x[4]);
}

TEST(Reference, NanochatIsHfAtTheNegatedAngle) {
  const auto x = exact({"1", "2", "3", "4"});
  EXPECT_EQ(evaluate("rope(d=4,layout=half,sign=-1)", Point{{77}}, x), evaluate("rope(d=4,layout=half)", Point{{-77}}, x));
}

TEST(Reference, MropeWithEqualCoordinatesIsOneDimensionalRope) {
  const auto x = exact({"1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "16"});
  for (const char* mode : {"blocked", "interleaved"})
    EXPECT_EQ(evaluate(std::string("mrope(d=16,sections=[2,3,3],section_mode=") + mode + ")", Point{{999, 999, 999}}, x),
              evaluate("rope(d=16)", Point{{999}}, x));
}

TEST(Reference, AlibiSlopesFollowThePublishedSeries) {
  const std::vector<ExactReal> twelve = alibi_slopes<ExactReal>(12);
  const double exponents[] = {-1, -2, -3, -4, -5, -6, -7, -8, -0.5, -1.5, -2.5, -3.5};
  ASSERT_EQ(twelve.size(), 12u);
  for (std::size_t h = 0; h < 12; ++h) EXPECT_EQ(twelve[h], pow(ExactReal(2), ExactReal(exponents[h]))) << h;
  const auto causal = evaluate("alibi(heads=12,mode=causal)", Point{{2, 5}});
  EXPECT_TRUE(isinf(causal[0]) && causal[0] < 0);
}

TEST(Reference, T5LogBoundariesAreExactAndFlagged) {
  const Spec spec = Spec::parse("t5(buckets=32,max_distance=128)");
  const Reference<ExactReal> reference(spec, 1);
  for (std::int64_t rp : {16, 32, 64}) {
    EXPECT_TRUE(reference.is_t5_boundary(Point{{0, rp}})) << rp;
    EXPECT_FALSE(reference.is_t5_boundary(Point{{0, rp + 1}})) << rp;
  }
  // Bucket 24+2 = 26 starts exactly at rp = 16: floor(8 ln(16/8)/ln(16)) = 2 with no slack.
  EXPECT_EQ(reference.evaluate(Point{{0, 16}}, {}).front(), 26);
  EXPECT_EQ(reference.evaluate(Point{{0, 15}}, {}).front(), 25);
  EXPECT_EQ(reference.evaluate(Point{{0, 100000}}, {}).front(), 31);  // saturates
}

TEST(Reference, LearnedRejectsPositionsPastTheTableAndNeverClamps) {
  const Spec spec = Spec::parse("learned(d=2,rows=3)");
  const Reference<ExactReal> reference(spec, 1);
  const auto table = exact({"1", "2", "3", "4", "5", "6"});
  EXPECT_EQ(reference.evaluate(Point{{2}}, table), exact({"5", "6"}));
  try {
    reference.evaluate(Point{{3}}, table);
    ADD_FAILURE();
  } catch (const SpecError& error) {
    EXPECT_NE(std::string(error.what()).find("position 3 is past the learned table of 3 rows"), std::string::npos);
  }
  EXPECT_THROW(reference.evaluate(Point{{-1}}, table), SpecError);
}

TEST(Reference, InputOfTheWrongSizeIsRejected) {
  EXPECT_THROW(evaluate("rope(d=4)", Point{{1}}, exact({"1", "2"})), SpecError);
}

TEST(Reference, DynamicNtkIsDefaultBelowTheOriginalLength) {
  const Spec dynamic = Spec::parse("rope(d=16,scaling=dynamic(factor=4,orig=64))");
  EXPECT_EQ(rotary_frequencies<ExactReal>(dynamic, 64).inv_freq,
            rotary_frequencies<ExactReal>(Spec::parse("rope(d=16)"), 64).inv_freq);
  EXPECT_NE(rotary_frequencies<ExactReal>(dynamic, 65).inv_freq,
            rotary_frequencies<ExactReal>(Spec::parse("rope(d=16)"), 65).inv_freq);
}

TEST(Reference, YarnWithFactorOneIsDefaultAndLinearDividesByTheFactor) {
  const auto base = rotary_frequencies<ExactReal>(Spec::parse("rope(d=16)"), 1).inv_freq;
  const auto yarn = rotary_frequencies<ExactReal>(Spec::parse("rope(d=16,scaling=yarn(factor=1,orig=64))"), 1);
  EXPECT_EQ(yarn.inv_freq, base);
  EXPECT_EQ(yarn.attention, 1);
  const auto linear = rotary_frequencies<ExactReal>(Spec::parse("rope(d=16,scaling=linear(factor=4))"), 1).inv_freq;
  for (std::size_t i = 0; i < base.size(); ++i) EXPECT_EQ(linear[i], base[i] / 4);
}

}  // namespace
}  // namespace peconform
