// The generators draw special values and the large-position bands at every RapidCheck size
// (size-scaled draws would hide them below size 75 to 100), comparable vectors stay within
// their spread, value_kinds() labels subnormals by each dtype's own threshold, and T5 distances
// come close to their bucket boundaries on both sides.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>

#include "properties/generators.hpp"
#include "spec/spec.hpp"

namespace peconform {
namespace {

constexpr Dtype kDtypes[] = {Dtype::fp64, Dtype::fp32, Dtype::fp16, Dtype::bf16};
constexpr int kSmallSizes[] = {0, 10};

// `count` values of `gen` at RapidCheck size `size`, from a fixed seed.
template <class T> std::vector<T> sample(const rc::Gen<T>& gen, int size, int count) {
  rc::Random random(20261122);
  std::vector<T> out;
  for (int i = 0; i < count; ++i) out.push_back(gen(random.split(), size).value());
  return out;
}

struct DtypeRange {
  Wide smallest_normal, largest;
};

DtypeRange range_of(Dtype dtype) {
  switch (dtype) {
    case Dtype::fp64: return {ldexp(Wide(1), -1022), Wide(std::numeric_limits<double>::max())};
    case Dtype::fp32: return {ldexp(Wide(1), -126), Wide(std::numeric_limits<float>::max())};
    case Dtype::fp16: return {ldexp(Wide(1), -14), Wide(65504)};
    case Dtype::bf16: return {ldexp(Wide(1), -126), ldexp(Wide(255), 120)};
  }
  return {};
}

const char* dtype_text(Dtype dtype) {
  constexpr const char* kNames[] = {"fp64", "fp32", "fp16", "bf16"};
  return kNames[static_cast<int>(dtype)];
}

TEST(Generators, ValuesOfEveryKindAppearAtSmallSizes) {
  for (Dtype dtype : kDtypes)
    for (int size : kSmallSizes) {
      const DtypeRange range = range_of(dtype);
      const std::vector<std::pair<const char*, std::function<bool(const Wide&)>>> kinds{
          {"+0", [](const Wide& v) { return v == 0 && !signbit(v); }},
          {"-0", [](const Wide& v) { return v == 0 && signbit(v); }},
          {"subnormal", [&](const Wide& v) { return v != 0 && abs(v) < range.smallest_normal; }},
          {"largest finite", [&](const Wide& v) { return abs(v) == range.largest; }},
          {"NaN", [](const Wide& v) { return isnan(v); }},
          {"Inf", [](const Wide& v) { return isinf(v); }},
          {"above 2^8", [](const Wide& v) { return isfinite(v) && abs(v) > 256 && abs(v) < 1e300; }},
          {"normal below 2^-8", [&](const Wide& v) { return abs(v) >= range.smallest_normal && abs(v) < Wide(1) / 256; }}};
      std::vector<Wide> values;
      for (const std::vector<Wide>& drawn : sample(gen_values(dtype, 4, Finiteness::specials_too), size, 1000))
        values.insert(values.end(), drawn.begin(), drawn.end());
      for (const auto& [name, holds] : kinds)
        EXPECT_TRUE(std::any_of(values.begin(), values.end(), holds)) << dtype_text(dtype) << " at size " << size << ": no " << name;
      std::vector<Wide> finite;
      for (const std::vector<Wide>& drawn : sample(gen_values(dtype, 4, Finiteness::finite_only), size, 1000))
        finite.insert(finite.end(), drawn.begin(), drawn.end());
      EXPECT_TRUE(std::all_of(finite.begin(), finite.end(), [](const Wide& v) { return isfinite(v); })) << dtype_text(dtype);
      EXPECT_TRUE(std::any_of(finite.begin(), finite.end(), [&](const Wide& v) { return abs(v) == range.smallest_normal; }))
          << dtype_text(dtype) << " at size " << size << ": no smallest normal";
    }
}

TEST(Generators, LargePositionBandsAppearAtSmallSizes) {
  for (int size : kSmallSizes) {
    const std::vector<std::int64_t> positions = sample(gen_position(), size, 2000);
    auto any_in = [&](std::int64_t lo, std::int64_t hi) {
      return std::any_of(positions.begin(), positions.end(), [&](std::int64_t p) { return p >= lo && p < hi; });
    };
    EXPECT_TRUE(any_in(0, 1)) << "size " << size;
    EXPECT_TRUE(any_in(2, 1 << 10)) << "size " << size;
    EXPECT_TRUE(any_in(std::int64_t{1} << 23, std::int64_t{1} << 24)) << "size " << size << ": fp32-angle's horizon band";
    EXPECT_TRUE(any_in((std::int64_t{1} << 24) + 2, kLargestPosition)) << "size " << size;
    EXPECT_TRUE(any_in(kLargestPosition, kLargestPosition + 1)) << "size " << size;
    const std::vector<std::int64_t> limited = sample(gen_position(1000), size, 2000);
    EXPECT_TRUE(std::all_of(limited.begin(), limited.end(), [](std::int64_t p) { return p >= 0 && p <= 1000; }));
    EXPECT_TRUE(std::any_of(limited.begin(), limited.end(), [](std::int64_t p) { return p > 500; })) << "size " << size;
  }
}

TEST(Generators, ComparableValuesShareTheirVectorsBinades) {
  for (Dtype dtype : kDtypes)
    for (int size : kSmallSizes) {
      const DtypeRange range = range_of(dtype);
      bool specials = false;
      for (const std::vector<Wide>& values : sample(gen_comparable_values(dtype, 16), size, 500)) {
        // Elements other than the special ones lie within the spread below the vector's top
        // binade (one more binade for the mantissa).
        Wide top(0), bottom = range.largest;
        for (const Wide& v : values) {
          ASSERT_TRUE(isfinite(v));
          if (v == 0 || abs(v) < range.smallest_normal || abs(v) == range.largest) {
            specials = true;
            continue;
          }
          top = std::max(top, abs(v));
          bottom = std::min(bottom, abs(v));
        }
        if (top > 0) {
          EXPECT_LT(top / bottom, ldexp(Wide(1), kComparableSpread + 1)) << dtype_text(dtype);
        }
      }
      EXPECT_TRUE(specials) << dtype_text(dtype) << " at size " << size;
    }
}

TEST(Generators, T5LogDistancesReachJustBelowTheirBucketBoundaries) {
  for (int size : kSmallSizes) {
    int just_below = 0, at_or_just_past = 0;
    for (const T5Distance& drawn : sample(gen_t5_log_distance(), size, 1000)) {
      const Spec& spec = drawn.spec;
      ASSERT_EQ(Spec::parse(spec.canonical()), spec);
      const std::int64_t half = spec.bidirectional ? spec.buckets / 2 : spec.buckets, exact = half / 2;
      ASSERT_GE(drawn.distance, exact) << spec.canonical();
      ASSERT_LT(drawn.distance, spec.max_distance) << spec.canonical();
      // c ln(r/e)/ln(D/e), whose integer part is the logarithmic bucket.
      const Wide value = Wide(half - exact) * log(Wide(drawn.distance) / Wide(exact)) /
                         log(Wide(spec.max_distance) / Wide(exact));
      const Wide gap = round(value) - value;
      just_below += gap > 0 && gap < Wide("1e-6");
      at_or_just_past += gap <= 0 && gap > Wide("-1e-6");
    }
    // Below 1e-6 a float32 log can no longer tell the value from the integer above it.
    EXPECT_GE(just_below, 30) << "size " << size;
    EXPECT_GE(at_or_just_past, 30) << "size " << size;
  }
}

TEST(Generators, ValueKindsUseEachDtypesOwnSubnormalThreshold) {
  EXPECT_EQ(value_kinds({ldexp(Wide(1), -20)}, Dtype::fp16), "subnormal");
  EXPECT_EQ(value_kinds({ldexp(Wide(1), -14)}, Dtype::fp16), "normal");
  EXPECT_EQ(value_kinds({ldexp(Wide(1), -20)}, Dtype::fp32), "normal");
  EXPECT_EQ(value_kinds({ldexp(Wide(1), -130)}, Dtype::fp32), "subnormal");
  EXPECT_EQ(value_kinds({ldexp(Wide(1), -130)}, Dtype::bf16), "subnormal");
  EXPECT_EQ(value_kinds({ldexp(Wide(1), -130)}, Dtype::fp64), "normal");
  EXPECT_EQ(value_kinds({ldexp(Wide(1), -1030)}, Dtype::fp64), "subnormal");
  EXPECT_EQ(value_kinds({Wide(0), Wide(1)}, Dtype::fp64), "zero");
}

// Issue 51: the decoded bit patterns are values of their dtype. Every finite value of a binary
// format is an integer multiple of its smallest subnormal 2^(emin - p) (emin the smallest normal
// exponent, p the fraction bits) no larger than its largest finite value, so a pattern decoded
// with a wrong scale or field width lands between them or past the largest.
TEST(Generators, DrawnValuesAreValuesOfTheirDtype) {
  constexpr int kFractionBits[] = {52, 23, 10, 7};  // fp64, fp32, fp16, bf16, in kDtypes' order
  for (Dtype dtype : kDtypes) {
    const DtypeRange range = range_of(dtype);
    const Wide smallest_subnormal = range.smallest_normal * ldexp(Wide(1), -kFractionBits[static_cast<int>(dtype)]);
    for (const std::vector<Wide>& drawn : sample(gen_values(dtype, 4, Finiteness::finite_only), 10, 1000))
      for (const Wide& value : drawn) {
        const Wide units = value / smallest_subnormal;
        ASSERT_EQ(units, trunc(units)) << dtype_text(dtype) << ": " << static_cast<double>(value);
        ASSERT_LE(abs(value), range.largest) << dtype_text(dtype);
      }
  }
}

// Issue 51: the position edges, where rounding to float32 and the int32 range change behaviour.
// The edges share weight 2 of gen_position's 10, at most six of them, so each is drawn with
// probability at least 1/30 per draw: 2000 draws miss one with probability (29/30)^2000 < e^-67.
TEST(Generators, EveryPositionEdgeUnderTheLimitIsDrawn) {
  const std::int64_t two_24 = std::int64_t{1} << 24;
  for (std::int64_t limit : {kLargestPosition, two_24}) {
    const std::vector<std::int64_t> positions = sample(gen_position(limit), 10, 2000);
    for (std::int64_t edge : {std::int64_t{0}, std::int64_t{1}, two_24 - 1, two_24, two_24 + 1, kLargestPosition}) {
      if (edge > limit) continue;
      EXPECT_NE(std::find(positions.begin(), positions.end(), edge), positions.end()) << "edge " << edge << " under " << limit;
    }
  }
}

TEST(Generators, PositionBandTagsSplitAtTwoToTheTenthAndTwentyFourth) {
  const std::int64_t two_10 = std::int64_t{1} << 10, two_24 = std::int64_t{1} << 24;
  EXPECT_EQ(position_band(0), "0");
  EXPECT_EQ(position_band(1), "<2^10");
  EXPECT_EQ(position_band(-two_24), "<2^31");  // by magnitude: negated positions too
  EXPECT_EQ(position_band(two_10 - 1), "<2^10");
  EXPECT_EQ(position_band(two_10), "<2^24");
  EXPECT_EQ(position_band(two_24 - 1), "<2^24");
  EXPECT_EQ(position_band(two_24), "<2^31");
  EXPECT_EQ(position_band(kLargestPosition), "<2^31");
}

}  // namespace
}  // namespace peconform
