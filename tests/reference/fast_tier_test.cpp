#include <gtest/gtest.h>

#include "fixtures/golden_check.hpp"
#include "reference/frequency_plans.hpp"
#include "reference/point.hpp"
#include "reference/reference.hpp"
#include "reference/tier_bounds.hpp"
#include "tools/sample_points.hpp"

namespace peconform {
namespace {

// Every golden spec, at its own points and 64 sampled ones (edges up to 2^31 - 1 included),
// stays within the documented fast-tier bound.
TEST(FastTier, StaysWithinItsBoundOnEveryGoldenSpec) {
  const nlohmann::json golden = load_golden(default_golden_path());
  std::uint64_t seed = 7;
  for (const nlohmann::json& entry : golden.at("cases")) {
    const Spec spec = Spec::parse(entry.at("spec").get<std::string>());
    std::vector<Point> points = sample_points(spec, seed++, 64);
    std::vector<double> input;
    for (const nlohmann::json& value : entry.at("input")) input.push_back(std::stod(value.get<std::string>()));
    const TierComparison comparison = compare_tiers(spec, points, input);
    EXPECT_LE(comparison.worst_ratio, 1.0) << spec.canonical() << ": " << comparison.worst_detail;
  }
}

// The bound is no formality: a result correct only to double precision breaks it by far.
TEST(FastTier, BoundRejectsDoublePrecisionResults) {
  const Spec spec = Spec::parse("rope(d=8,base=10000,layout=half)");
  const Reference<ExactReal> exact(spec, 1);
  const std::vector<ExactReal> input{ExactReal(1), ExactReal(-2), ExactReal(3), ExactReal(0.5),
                                     ExactReal(1), ExactReal(1), ExactReal(-1), ExactReal(2)};
  for (std::int64_t position : {1, 1000, 2147483647}) {
    const Point point{{position}};
    const std::vector<ExactReal> values = exact.evaluate(point, input);
    const std::vector<ExactReal> bounds = fast_tier_bounds<ExactReal>(exact, point, input);
    for (std::size_t e = 0; e < values.size(); ++e) {
      const ExactReal as_double(static_cast<double>(values[e]));
      if (as_double != values[e]) {
        EXPECT_GT(abs(as_double - values[e]), 1000 * bounds[e]) << position << " " << e;
      }
    }
  }
}

// The fast tier's bound is its own error, far below any kernel's: on every golden spec, at its
// sampled points, each element's bound is under 2^-70 of the row's scale (1 plus its largest
// value), where a double kernel's rounding alone is 2^-53. A term that stops constraining (an
// ALiBi bound of 1, say) fails here, though the tier still stays within it.
TEST(FastTier, EveryBoundIsFarBelowAnyKernelsOwn) {
  const nlohmann::json golden = load_golden(default_golden_path());
  std::uint64_t seed = 11;
  for (const nlohmann::json& entry : golden.at("cases")) {
    const Spec spec = Spec::parse(entry.at("spec").get<std::string>());
    const std::vector<Point> points = sample_points(spec, seed++, 16);
    std::vector<ExactReal> input;
    for (const nlohmann::json& value : entry.at("input")) input.emplace_back(std::stod(value.get<std::string>()));
    const Reference<ExactReal> exact(spec, sequence_length_for(spec, points));
    for (const Point& point : points) {
      const std::vector<ExactReal> values = exact.evaluate(point, input);
      const std::vector<ExactReal> bounds = fast_tier_bounds<ExactReal>(exact, point, input);
      ExactReal scale(1);
      for (const ExactReal& value : values)
        if (isfinite(value)) scale = std::max(scale, ExactReal(1) + abs(value));
      for (std::size_t e = 0; e < bounds.size(); ++e)
        EXPECT_LE(bounds[e], ldexp(scale, -70)) << spec.canonical() << " at " << format_point(spec.family, point) << " element " << e;
    }
  }
}

TEST(FastTier, IntegerFamiliesAndGathersMustMatchExactly) {
  for (const char* text : {"t5(buckets=32,max_distance=128)", "shaw(k=4)"}) {
    const Spec spec = Spec::parse(text);
    const Reference<ExactReal> exact(spec, 1);
    EXPECT_EQ(fast_tier_bounds<ExactReal>(exact, Point{{0, 40}}, {}).front(), 0) << text;
  }
}

TEST(FastTier, SamplePointsAreReproducibleAndReachTheEdges) {
  const Spec spec = Spec::parse("rope(d=8)");
  const std::vector<Point> first = sample_points(spec, 42, 32), again = sample_points(spec, 42, 32);
  EXPECT_EQ(first, again);
  EXPECT_NE(first, sample_points(spec, 43, 32));
  EXPECT_TRUE(std::count(first.begin(), first.end(), Point{{2147483647}}));
  EXPECT_TRUE(std::count(first.begin(), first.end(), Point{{(1 << 24) + 1}}));
}

// The remembered frequency tables are the computed ones, bit for bit: on first use, from memory,
// for bases and lengths that differ in their last bit or by one, and after the memory is
// forgotten (more tables than it keeps).
TEST(FastTier, RememberedFrequenciesAreTheComputedOnes) {
  auto same = [](const std::vector<FastReal>& a, const std::vector<FastReal>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (a[i].backend().value() != b[i].backend().value()) return false;
    return true;
  };
  const FastReal base(10000), next_base = base + ldexp(FastReal(1), 13 - 112);  // one ulp above, in [2^13, 2^14)
  for (int round = 0; round < 2; ++round)
    for (const FastReal& b : {base, next_base})
      for (const int dims : {64, 66, 128})
        EXPECT_TRUE(same(default_inv_freq(b, dims), powers_of_base(b, dims))) << dims << " round " << round;
  EXPECT_FALSE(same(default_inv_freq(base, 64), default_inv_freq(next_base, 64)));
  for (int k = 0; k < 5000; ++k) default_inv_freq(FastReal(k + 2), 4);
  EXPECT_TRUE(same(default_inv_freq(base, 128), powers_of_base(base, 128)));
  EXPECT_TRUE(same(default_inv_freq(FastReal(4999), 4), powers_of_base(FastReal(4999), 4)));
}

}  // namespace
}  // namespace peconform
