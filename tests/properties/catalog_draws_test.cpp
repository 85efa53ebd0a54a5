// What the catalog's properties draw: the cases a property exists for must come up, in the
// shares its generators state, whatever the run's seed. A generator is sampled from a fixed
// seed; a property is run on the fast tier, which records the points it is asked for. Linked
// into mutant_test, whose main sets the property profile.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "backends/reference_tiers.hpp"
#include "properties/generators.hpp"
#include "property_runs.hpp"

namespace peconform {
namespace {

constexpr int kRunCases = 2000;

// `count` values of `gen` at RapidCheck's nominal size, from a fixed seed.
template <class T> std::vector<T> sample(const rc::Gen<T>& gen, int count) {
  rc::Random random(20261123);
  std::vector<T> out;
  for (int i = 0; i < count; ++i) out.push_back(gen(random.split(), rc::kNominalSize).value());
  return out;
}

// The fast tier, keeping every (spec, point) a property asks it to evaluate.
struct Call {
  Spec spec;
  Point point;
};

class RecordingEvaluator final : public Evaluator {
 public:
  RecordingEvaluator(const Spec& spec, std::unique_ptr<Evaluator> fast, std::vector<Call>& calls)
      : spec_(spec), fast_(std::move(fast)), calls_(calls) {}
  std::vector<Wide> evaluate(const Point& point, std::span<const Wide> input) const override {
    calls_.push_back({spec_, point});
    return fast_->evaluate(point, input);
  }
  std::vector<Wide> error_bounds(const Point& point, std::span<const Wide> input) const override {
    return fast_->error_bounds(point, input);
  }

 private:
  Spec spec_;
  std::unique_ptr<Evaluator> fast_;
  std::vector<Call>& calls_;
};

class RecordingFastTier final : public Implementation {
 public:
  std::string name() const override { return "fast-tier (recorded)"; }
  std::unique_ptr<Evaluator> prepare(const Spec& spec, std::int64_t sequence_length) const override {
    return std::make_unique<RecordingEvaluator>(spec, fast_tier().prepare(spec, sequence_length), calls_);
  }
  const std::vector<Call>& calls() const { return calls_; }

 private:
  mutable std::vector<Call> calls_;
};

// Runs `name` on `implementation` for kRunCases cases, which the fast tier passes.
void expect_passes(std::string_view name, const Implementation& implementation) {
  const rc::detail::TestResult result =
      run_property(property_named(name), implementation, kRunCases, "CatalogDraws/" + std::string(name));
  EXPECT_TRUE(result.template is<rc::detail::SuccessResult>()) << name << " on " << implementation.name() << ": " << result;
}

std::int64_t t5_max_exact(const Spec& spec) { return (spec.bidirectional ? spec.buckets / 2 : spec.buckets) / 2; }

// gen_position's log-uniform draw (4 of its 10 weights) makes every bit width up to the limit's
// equally likely, so each width gets at least a fifth of the draws shared among them: the
// limit's own width too where it holds the limit alone (2^20, xl's clamp_len), and limits 0
// and 1 (a shift or a window with no room left) are drawn like any other.
TEST(CatalogDraws, PositionsComeFromEveryBitWidthUpToTheLimit) {
  constexpr int kDraws = 4000;
  for (const std::int64_t limit : {std::int64_t{0}, std::int64_t{1}, std::int64_t{2}, std::int64_t{1000}, std::int64_t{1} << 20,
                                   kLargestPosition}) {
    const int bits = std::bit_width(static_cast<std::uint64_t>(limit));
    std::vector<int> per_width(static_cast<std::size_t>(bits) + 1);
    for (const std::int64_t position : sample(gen_position(limit), kDraws)) {
      ASSERT_GE(position, 0) << "limit " << limit;
      ASSERT_LE(position, limit) << "limit " << limit;
      ++per_width[static_cast<std::size_t>(std::bit_width(static_cast<std::uint64_t>(position)))];
    }
    for (int width = 0; width <= bits; ++width)
      EXPECT_GE(per_width[static_cast<std::size_t>(width)], kDraws / (5 * (bits + 1)))
          << "limit " << limit << ": positions of bit width " << width;
  }
}

// gen_shaw_window_spec draws `right` in half the specs, half of those from {0, 1, 8}: no key
// past the query, one, and a few; so each of the three ends the window in about 1/12 of the
// specs (1 a little less: it is unset where k = 1, the symmetric window's one spelling).
TEST(CatalogDraws, ShawWindowsEndAtZeroOneAndEightKeysPastTheQuery) {
  constexpr int kDraws = 2400;
  std::map<int, int> specs_ending_at;
  for (const Spec& spec : sample(gen_shaw_window_spec(), kDraws))
    if (spec.right) ++specs_ending_at[*spec.right];
  for (const int right : {0, 1, 8}) EXPECT_GE(specs_ending_at[right], kDraws / 24) << "right = " << right;
}

// t5BucketsAreExactBelowMaxExact asks only for |rp| < max_exact = e, drawn uniformly, and so
// reaches both last exact buckets, rp = -(e - 1) behind the query and e - 1 ahead of it, where the
// exact range meets the logarithmic one: each in about 1/(2e - 1) of the cases whose query has
// e - 1 keys behind it (half of that is asked for).
TEST(CatalogDraws, T5ExactBucketsAreAskedForUpToMaxExactOnBothSides) {
  const RecordingFastTier recording;
  expect_passes("t5BucketsAreExactBelowMaxExact", recording);
  double uniform_share = 0;
  int last_behind = 0, last_ahead = 0;
  for (const auto& [spec, point] : recording.calls()) {
    const std::int64_t exact = t5_max_exact(spec), rp = point.c[1] - point.c[0];
    ASSERT_LT(std::abs(rp), exact) << spec.canonical() << " at " << format_point(spec.family, point);
    if (exact < 2 || point.c[0] < exact - 1) continue;
    uniform_share += 1.0 / static_cast<double>(2 * exact - 1);
    last_behind += rp == 1 - exact;
    last_ahead += rp == exact - 1;
  }
  EXPECT_GE(last_behind, uniform_share / 2) << "keys max_exact - 1 behind the query";
  EXPECT_GE(last_ahead, uniform_share / 2) << "keys max_exact - 1 ahead of the query";
}

// learnedPositionPastTheTableIsRejected asks for a negative position in a quarter of its cases
// (tagged "negative"), and past the table's end in the rest, where a clamp hides most often.
TEST(CatalogDraws, LearnedRejectionTriesANegativePositionInAQuarterOfCases) {
  const rc::detail::TestResult result =
      run_property(property_named("learnedPositionPastTheTableIsRejected"), fast_tier(), kRunCases, "CatalogDraws/learned");
  ASSERT_TRUE(result.template is<rc::detail::SuccessResult>()) << result;
  int negative = 0, cases = 0;
  for (const auto& [tags, count] : result.template get<rc::detail::SuccessResult>().distribution) {
    cases += count;
    if (std::find(tags.begin(), tags.end(), "\"negative\"") != tags.end()) negative += count;  // RC_TAG keeps the quotes
  }
  ASSERT_EQ(cases, kRunCases);
  // Five binomial deviations at n = 2000 are 0.048; the size-scaled draw it replaced gave 0.49.
  EXPECT_NEAR(static_cast<double>(negative) / cases, 0.25, 0.05) << negative << " of " << cases << " cases negative";
}

// t5BucketsSaturateAtTheLastBucket asks only for |rp| >= max_distance, where every bucket is
// the last, and reaches max_distance itself with the key behind the query and (bidirectional
// specs) ahead of it: the first distance a kernel clamping one too late gets wrong.
TEST(CatalogDraws, T5SaturationIsAskedForFromMaxDistanceOnBothSides) {
  const RecordingFastTier recording;
  expect_passes("t5BucketsSaturateAtTheLastBucket", recording);
  int behind = 0, ahead = 0;
  for (const auto& [spec, point] : recording.calls()) {
    const std::int64_t rp = point.c[1] - point.c[0];
    ASSERT_GE(std::abs(rp), spec.max_distance) << spec.canonical() << " at " << format_point(spec.family, point);
    behind += rp == -spec.max_distance;
    ahead += rp == spec.max_distance;
  }
  EXPECT_GT(behind, 0) << "no key exactly max_distance behind the query";
  EXPECT_GT(ahead, 0) << "no key exactly max_distance ahead of the query";
}

// The share of a run's cases that carry `tag` (RC_TAG stores it quoted).
double tag_share(const rc::detail::TestResult& result, const std::string& tag) {
  int tagged = 0, cases = 0;
  for (const auto& [tags, count] : result.template get<rc::detail::SuccessResult>().distribution) {
    cases += count;
    if (std::find(tags.begin(), tags.end(), "\"" + tag + "\"") != tags.end()) tagged += count;
  }
  return static_cast<double>(tagged) / cases;
}

// yarnScalesEveryPairByItsAttentionFactor draws each of YaRN's three attention factor forms in
// a third of its cases: the default 0.1 ln s + 1, the ratio of two mscales, a configured one.
TEST(CatalogDraws, YarnAttentionFactorsComeInEachOfTheirThreeForms) {
  const rc::detail::TestResult result = run_property(property_named("yarnScalesEveryPairByItsAttentionFactor"), fast_tier(),
                                                     kRunCases, "CatalogDraws/yarn-attention");
  ASSERT_TRUE(result.template is<rc::detail::SuccessResult>()) << result;
  for (const char* form : {"0.1 ln s + 1", "mscale / mscale_all_dim", "configured attention_factor"})
    EXPECT_NEAR(tag_share(result, form), 1.0 / 3, 0.053) << form;  // five binomial deviations at n = 2000
}

// YaRN's factors are drawn in hundredths over [1.01, 40): the ramp property meets hundreds of
// them, not the few a draw that lost its fractional digits would give.
TEST(CatalogDraws, YarnFactorsAreDrawnInHundredths) {
  const RecordingFastTier recording;
  expect_passes("yarnFrequenciesFollowTheRampFromDefaultToLinear", recording);
  std::set<std::string> factors, fractions;
  for (const auto& [spec, point] : recording.calls()) {
    if (spec.scaling.kind != PlanKind::yarn) continue;
    const std::string text = spec.scaling.factor.text();
    factors.insert(text);
    fractions.insert(text.substr(text.find('.') + 1));
  }
  EXPECT_GT(factors.size(), 300u);
  EXPECT_GT(fractions.size(), 90u) << "of the 100 two-digit fractions";
}

// rotationsComposeAdditively draws a and b within half the spec's position limit, so that a + b,
// where the direct rotation is asked for, stays where the tiers claim a bound.
TEST(CatalogDraws, CompositionAsksForNoPositionPastTheLimit) {
  const RecordingFastTier recording;
  expect_passes("rotationsComposeAdditively", recording);
  int one_axis = 0;
  for (const auto& [spec, point] : recording.calls()) {
    if (spec.family != Family::rope && spec.family != Family::xpos) continue;
    ++one_axis;
    EXPECT_LE(point.c[0], position_limit(spec)) << spec.canonical() << " at " << format_point(spec.family, point);
  }
  EXPECT_GT(one_axis, kRunCases);
}

}  // namespace
}  // namespace peconform
