// The CPU backend's own ALiBi slopes and T5 bucket plan against the published series and the
// bucket starts variants.md derives from transformers' _relative_position_bucket.
#include <gtest/gtest.h>

#include <cmath>

#include "backends/cpu/alibi_slopes.hpp"
#include "backends/cpu/t5_plan.hpp"

namespace peconform::cpu {
namespace {

TEST(AlibiSlopes, EightHeadsHalveFromOneHalfToOneOver256) {
  const std::vector<double> slopes = alibi_slopes(8);
  ASSERT_EQ(slopes.size(), 8u);
  for (int h = 0; h < 8; ++h) EXPECT_EQ(slopes[static_cast<std::size_t>(h)], std::ldexp(1.0, -(h + 1))) << h;
}

TEST(AlibiSlopes, TwelveHeadsTakeEightThenEveryOtherOfSixteen) {
  // 2^-1 .. 2^-8, then 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5 (Press et al., get_slopes).
  const std::vector<double> slopes = alibi_slopes(12);
  ASSERT_EQ(slopes.size(), 12u);
  for (int h = 0; h < 8; ++h) EXPECT_EQ(slopes[static_cast<std::size_t>(h)], std::ldexp(1.0, -(h + 1))) << h;
  for (int k = 0; k < 4; ++k) {
    const double expected = std::sqrt(0.5) * std::ldexp(1.0, -k);
    EXPECT_NEAR(slopes[static_cast<std::size_t>(8 + k)], expected, expected * 0x1p-52) << 8 + k;
  }
}

TEST(AlibiSlopes, OneHeadAndFiveHeads) {
  EXPECT_EQ(alibi_slopes(1), std::vector<double>{std::ldexp(1.0, -8)});
  // 4 heads: 2^-2, 2^-4, 2^-6, 2^-8; then the first of 8 heads' every other: 2^-1.
  EXPECT_EQ(alibi_slopes(5), (std::vector<double>{0.25, 0.0625, 0x1p-6, 0x1p-8, 0.5}));
}

TEST(T5Plan, BidirectionalDefaultsStartTheirBucketsWhereTransformersDoes) {
  // 32 buckets, max_distance 128, bidirectional: 16 a side, 8 exact; buckets 9..15 start at
  // 12, 16, 23, 32, 46, 64, 91 (16, 32 and 64 are exact integer log ratios).
  const T5Plan plan = make_t5_plan(Spec::parse("t5(buckets=32,max_distance=128)"));
  EXPECT_EQ(plan.exact, 8);
  EXPECT_EQ(plan.bucket_start, (std::vector<std::int64_t>{12, 16, 23, 32, 46, 64, 91}));
}

TEST(T5Plan, CausalDefaultsStartTheirBucketsWhereTransformersDoes) {
  const T5Plan plan = make_t5_plan(Spec::parse("t5(buckets=32,max_distance=128,bidirectional=false)"));
  EXPECT_EQ(plan.exact, 16);
  EXPECT_EQ(plan.bucket_start,
            (std::vector<std::int64_t>{19, 21, 24, 27, 31, 35, 40, 46, 52, 59, 67, 77, 87, 99, 113}));
}

}  // namespace
}  // namespace peconform::cpu
