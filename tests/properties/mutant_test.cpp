// Every property proves it can fail: it must reject the planted bug meant for it, registered as
// Mutants.<property>; and every mutant named in issue 10 is rejected by the relation named for
// it, registered as NamedMutants.<mutant>. A mutant claims the bound of the kernel it imitates
// (mutants.hpp), and only a failed comparison of values counts: a mutant that throws is not
// rejected. A run stops at the first falsifying case, without shrinking.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <fmt/format.h>
#include <iostream>
#include <map>
#include <regex>
#include <set>

#include "backends/reference_tiers.hpp"
#include "mutants.hpp"
#include "properties/checks.hpp"
#include "properties/property.hpp"
#include "properties/variant_relations.hpp"
#include "property_profile.hpp"
#include "property_runs.hpp"

namespace peconform {
namespace {

// The mutant each property is meant to catch.
const std::map<std::string_view, std::string_view> kCatches{
    {"rotationPreservesNormPerPair", "bf16-cos-sin-cache"},
    {"innerProductDependsOnlyOnRelativePosition", "fp32-angle"},
    {"rotationsComposeAdditively", "fp32-angle"},
    {"rotationAtPositionZeroIsTheIdentity", "position-off-by-one"},
    {"rotationAtNegatedPositionIsTheTranspose", "position-off-by-one"},
    {"rotationIsLinearInX", "input-sign-dropped"},
    {"interleavedAndHalfLayoutsDifferByAFixedPermutation", "gptj-neox-swap"},
    {"interleavedToHalfIsInterleavedThenRegrouped", "interleaved-to-half-written-interleaved"},
    {"negatedSignEqualsStandardRotationAtNegatedPosition", "sign-ignored"},
    {"partialRotaryLeavesPassThroughDimsBitIdentical", "pass-through-not-copied"},
    {"partialRotaryMatchesFullRotaryOfItsSlice", "partial-theta-from-full-d"},
    {"defaultFrequenciesFormTheBasePowerSeries", "base-ignored"},
    {"mropeWithEqualAxesIsOneDimensionalRope", "mrope-section-local-frequencies"},
    {"mropePairsFollowOnlyTheirSectionAxis", "mrope-blocked-as-interleaved"},
    {"axialRopeXPairsIgnoreYAndYPairsIgnoreX", "rope2d-axes-swapped"},
    {"xposLogitsDoNotDependOnTheCentringOffset", "xpos-key-uses-query-scale"},
    {"linearScalingEqualsDefaultAtScaledPosition", "scaling-dropped"},
    {"yarnWithFactorOneIsDefaultRope", "yarn-dynamic-factor"},
    {"dynamicNtkIsDefaultWithinTheOriginalLength", "ntk-static"},
    {"llama3FrequenciesAreContinuousAtBothBandEdges", "llama3-smoothing-reversed"},
    {"llama3KeepsFrequenciesDecreasing", "llama3-smoothing-reversed"},
    {"sinusoidShiftIsAFixedBlockRotation", "fp32-table"},
    {"sinusoidEntriesLieOnTheUnitCircle", "bf16-cos-sin-cache"},
    {"cosFirstOrderIsAFixedPermutationOfSinFirst", "cos-first-ignored"},
    {"interleavedAndConcatenatedSinusoidsDifferByAFixedPermutation", "gptj-neox-swap"},
    {"oddDimensionLeavesAZeroLastColumn", "odd-dim-column-unwritten"},
    {"oddInterleavedSinusoidIsDistilBertsTable", "odd-interleaved-frequencies-over-d-minus-1"},
    {"sinusoidOffsetShiftsPositions", "padding-offset-dropped"},
    {"sinusoidAtPositionZeroIsSinZeroCosOne", "position-off-by-one"},
    {"xlRowDependsOnlyOnTheClampedDistance", "xl-clamp-ignored"},
    {"learnedGatherReturnsTheTableRowBitForBit", "position-off-by-one"},
    {"learnedPositionPastTheTableIsRejected", "learned-clamp"},
    {"alibiBiasIsTranslationInvariant", "alibi-key-position-as-distance"},
    {"alibiBiasIsLinearInDistance", "alibi-distance-off-by-one"},
    {"alibiSlopesFormThePublishedSeries", "alibi-pow2-slopes-for-any-heads"},
    {"alibiCausalMaskHidesExactlyTheFutureKeys", "alibi-mask-includes-diagonal"},
    {"t5BucketsAreExactBelowMaxExact", "t5-relative-position-reversed"},
    {"t5BucketsAreMonotoneInDistance", "t5-log-branch-missing-offset"},
    {"t5BucketsSaturateAtTheLastBucket", "t5-no-saturation"},
    {"t5SignSelectsTheBucketHalf", "t5-bidirectional-offset-dropped"},
    {"shawIndicesAreClippedToTheWindow", "shaw-unclipped"},
    {"shawIndexIsTheOffsetDistanceInsideTheWindow", "shaw-reversed"},
    {"agreesWithTheExactReferenceWithinItsBound", "fp32-angle"},
    {"yarnFrequenciesFollowTheRampFromDefaultToLinear", "yarn-ramp-reversed"},
    {"yarnScalesEveryPairByItsAttentionFactor", "yarn-attention-factor-dropped"},
    {"dynamicNtkPastTheOriginalLengthIsDefaultRopeWithTheGrownBase", "stale-dynamic-ntk-cache"},
    {"llama3OuterBandsAreDefaultAndLinearRopeAtEveryPosition", "llama3-read-as-linear"},
    {"longropeSwitchesToLongFactorsOnlyPastTheOriginalLength", "longrope-switch-at-orig"},
    {"t5LogBucketsLieBetweenIntegerPowerBoundaries", "t5-float32-log-truncated"},
};

// The mutants issue 10 names, each with the property whose relation rejects it. Where a bug
// changes values consistently at every position (a frequency or amplitude off, a bucket
// rounded), the relations between positions cannot see it; the comparison with the exact tier
// is then the relation named for it.
const std::vector<std::pair<std::string_view, std::string_view>> kNamedMutants{
    {"positions-in-fp16", "rotationsComposeAdditively"},
    {"positions-in-bf16", "rotationsComposeAdditively"},
    {"storage-dtype-cache-exact-angle", "agreesWithTheExactReferenceWithinItsBound"},
    {"hf-inv-freq-bf16", "defaultFrequenciesFormTheBasePowerSeries"},
    {"yarn-attention-factor-dropped", "yarnScalesEveryPairByItsAttentionFactor"},
    {"stale-dynamic-ntk-cache", "dynamicNtkPastTheOriginalLengthIsDefaultRopeWithTheGrownBase"},
    {"llama3-smoothing-dropped", "llama3FrequenciesAreContinuousAtBothBandEdges"},
    {"unrotated-beyond-2p23", "innerProductDependsOnlyOnRelativePosition"},
    {"kv-cache-offset-ignored", "innerProductDependsOnlyOnRelativePosition"},
    {"longrope-switch-at-orig", "longropeSwitchesToLongFactorsOnlyPastTheOriginalLength"},
    {"yarn-ramp-reversed", "yarnFrequenciesFollowTheRampFromDefaultToLinear"},
    {"t5-float32-log-truncated", "t5LogBucketsLieBetweenIntegerPowerBoundaries"},
    {"shaw-window-symmetric", "shawIndicesAreClippedToTheWindow"},
    {"rope2d-row-in-bf16", "innerProductDependsOnlyOnRelativePosition"},
};

// Past fp32-angle's horizon (|phi| about 2^22.4 with a correctly rounded theta) no bound can
// tell a rotation from none: such a mutant must be caught where its bug shows inside the
// horizon, or else its elements must be reported unconstrained, never passed.
const std::set<std::string_view> kCaughtOrUnconstrained{"unrotated-beyond-2p23"};

// Enough cases that a property meets its mutant's bug; a caught mutant stops at the first.
constexpr int kMutantCases = 2000;

// Runs `property` on the mutant `name` and asserts a rejection by a failed comparison of values.
void expect_rejected(const Property& property, std::string_view name) {
  const VerdictTally before = verdict_tally();
  const rc::detail::TestResult result =
      run_property(property, mutant(name), kMutantCases, fmt::format("Mutants/{}/{}", property.name, name));
  const auto* failure = result.template is<rc::detail::FailureResult>() ? &result.template get<rc::detail::FailureResult>() : nullptr;
  if (failure == nullptr && kCaughtOrUnconstrained.count(name)) {
    const std::uint64_t unconstrained = verdict_tally().unconstrained - before.unconstrained;
    EXPECT_GT(unconstrained, 0u) << property.name << " neither rejected " << name << " nor reported an unconstrained element";
    std::cout << property.name << " reports " << name << "'s " << unconstrained << " unconstrained terms (not a pass)\n";
    return;
  }
  ASSERT_NE(failure, nullptr) << property.name << " accepted the mutant " << name << " in " << kMutantCases << " cases";
  // Thrown, not compared: the evaluator's exception (checks.cpp evaluate(), or RelationSubject::evaluate
  // for the N-D bodies rope2d and mRoPE run) or one escaping the property.
  EXPECT_EQ(failure->description.find("  threw: "), std::string::npos) << failure->description;
  EXPECT_EQ(failure->description.find("a thrown exception: "), std::string::npos) << failure->description;
  EXPECT_EQ(failure->description.find("Exception"), std::string::npos) << failure->description;
  // A failure must carry what replays it: the case string and the seed.
  EXPECT_NE(failure->description.find("case: "), std::string::npos) << failure->description;
  EXPECT_NE(failure->description.find("seed: "), std::string::npos) << failure->description;
  std::cout << property.name << " rejects " << name << " after " << failure->numSuccess << " passing cases:\n"
            << failure->description << "\n";
}

class MutantTest : public testing::Test {
 public:
  MutantTest(const Property& property, std::string_view mutant) : property_(property), mutant_(mutant) {}
  void TestBody() override { expect_rejected(property_, mutant_); }

 private:
  const Property& property_;
  std::string_view mutant_;
};

// rope2d states its relations through the N-D bodies over its two axes (rotary_properties.cpp):
// a bug on one axis fails the relation along that axis, the failure naming the axis and printing
// the case's points as rope2d's x:y, and the relation holds along the other axis.
TEST(MultiAxisCatalog, ARowIndexInBf16FailsRelativePositionAlongTheRowAxisOnly) {
  const Spec spec = Spec::parse("rope2d(d=8)");
  const auto evaluator = mutant("rope2d-row-in-bf16").prepare(spec, 2);
  const auto run_along = [&](int axis) {
    RelationSubject subject = rotary_spec_subject(*evaluator, spec);
    subject.scope = {axis};
    rc::detail::TestMetadata metadata;
    metadata.id = fmt::format("MultiAxisCatalog/axis{}", axis);
    rc::detail::TestParams params = rc::detail::configuration().testParams;
    params.maxSuccess = 500;
    params.disableShrinking = true;
    return rc::detail::checkProperty(rc::detail::toProperty([&] { kVariantRelativePosition.check(subject); }), metadata, params);
  };
  const rc::detail::TestResult along_x = run_along(0), along_y = run_along(1);
  EXPECT_TRUE(along_x.template is<rc::detail::SuccessResult>()) << "the x axis is exact, and its relation failed";
  ASSERT_TRUE(along_y.template is<rc::detail::FailureResult>()) << "y in bf16 passed 500 cases along the y axis";
  const std::string& description = along_y.template get<rc::detail::FailureResult>().description;
  EXPECT_NE(description.find("group by group along axis 1"), std::string::npos) << description;
  const std::string prefix = "case: " + spec.canonical() + " at ";
  const std::size_t at = description.find(prefix);
  ASSERT_NE(at, std::string::npos) << description;
  const std::size_t from = at + prefix.size();
  const std::string first_point = description.substr(from, description.find_first_of(";\n ", from) - from);
  EXPECT_TRUE(std::regex_match(first_point, std::regex("[0-9]+:[0-9]+"))) << "a rope2d point prints as x:y: " << description;
}

// A learned gather that steps from row to row by d - 1 elements instead of d (a row pitch that
// forgot a column): row 0 is right, every later row reads the wrong table slots. Every other
// family is the fast tier's.
class ShortPitchGatherEvaluator final : public Evaluator {
 public:
  ShortPitchGatherEvaluator(const Spec& spec, std::unique_ptr<Evaluator> correct) : d_(spec.d), correct_(std::move(correct)) {}
  std::vector<Wide> evaluate(const Point& point, std::span<const Wide> input) const override {
    std::vector<Wide> row(static_cast<std::size_t>(d_));
    for (std::size_t e = 0; e < row.size(); ++e) row[e] = input[static_cast<std::size_t>(point.c[0] * (d_ - 1)) + e];
    return row;
  }
  std::vector<Wide> error_bounds(const Point& point, std::span<const Wide> input) const override {
    return correct_->error_bounds(point, input);
  }

 private:
  std::int64_t d_;
  std::unique_ptr<Evaluator> correct_;
};

class ShortPitchGather final : public Implementation {
 public:
  std::string name() const override { return "short-pitch-gather"; }
  std::unique_ptr<Evaluator> prepare(const Spec& spec, std::int64_t sequence_length) const override {
    auto correct = fast_tier().prepare(spec, sequence_length);
    if (spec.family != Family::learned) return correct;
    return std::make_unique<ShortPitchGatherEvaluator>(spec, std::move(correct));
  }
};

// The comparison with the exact tier names, for a learned element, the table slot it must come
// from, table[p d + e], so that a kernel's author sees which row and column were read wrong.
TEST(CatalogFailure, AWrongLearnedElementNamesItsTableSlot) {
  const ShortPitchGather kernel;
  const rc::detail::TestResult result = run_property(property_named("agreesWithTheExactReferenceWithinItsBound"), kernel,
                                                     kMutantCases, "CatalogFailure/short-pitch-gather");
  ASSERT_TRUE(result.template is<rc::detail::FailureResult>())
      << "a gather with a short row pitch passed " << kMutantCases << " cases";
  const std::string& description = result.template get<rc::detail::FailureResult>().description;
  std::smatch found;
  const std::regex learned_site(R"(case: (learned\([^)]*\)) at ([0-9]+)\n  element ([0-9]+); input table\[([0-9]+)\])");
  ASSERT_TRUE(std::regex_search(description, found, learned_site)) << description;
  const Spec spec = Spec::parse(found[1].str());
  const std::int64_t p = std::stoll(found[2].str()), e = std::stoll(found[3].str());
  EXPECT_EQ(std::stoll(found[4].str()), p * spec.d + e) << description;
}

// A planted bug on the one-axis families alone (rope, xPos); mRoPE and rope2d are the fast tier's.
// The relations that take the N-D body for those two (check_over_its_axes) must reject such a
// bug through their own one-axis body too: Mutants.* meets either body first.
class OnOneAxisOnly final : public Implementation {
 public:
  explicit OnOneAxisOnly(std::string_view bug) : bug_(bug) {}
  std::string name() const override { return fmt::format("{} on rope and xpos", bug_); }
  std::unique_ptr<Evaluator> prepare(const Spec& spec, std::int64_t sequence_length) const override {
    const bool one_axis = spec.family == Family::rope || spec.family == Family::xpos;
    return (one_axis ? mutant(bug_) : fast_tier()).prepare(spec, sequence_length);
  }

 private:
  std::string bug_;
};

// Runs `property` on `bug` planted on the one-axis families and expects a failure of `relation`.
void expect_one_axis_body_rejects(std::string_view property, std::string_view bug, std::string_view relation) {
  const OnOneAxisOnly kernel(bug);
  const rc::detail::TestResult result =
      run_property(property_named(property), kernel, kMutantCases, fmt::format("CatalogFailure/{}/{}", property, kernel.name()));
  ASSERT_TRUE(result.template is<rc::detail::FailureResult>()) << property << " passed " << kernel.name() << " in " << kMutantCases << " cases";
  const std::string& description = result.template get<rc::detail::FailureResult>().description;
  EXPECT_NE(description.find(relation), std::string::npos) << description;
}

TEST(CatalogFailure, OneAxisBodiesRejectTheirBugsOnRopeAndXposAlone) {
  expect_one_axis_body_rejects("rotationAtPositionZeroIsTheIdentity", "position-off-by-one", "R(0)x = A x on every rotated pair");
  expect_one_axis_body_rejects("rotationsComposeAdditively", "positions-in-bf16", "R(a)R(b)x = R(a+b)R(0)x");
}

// The causal mask's failure prints the bias the kernel returned: a mask that also hides the
// query's own key fails on the diagonal i = j with the -inf it put there.
TEST(CatalogFailure, AMaskedDiagonalPrintsTheMaskedBias) {
  const rc::detail::TestResult result = run_property(property_named("alibiCausalMaskHidesExactlyTheFutureKeys"),
                                                     mutant("alibi-mask-includes-diagonal"), kMutantCases,
                                                     "CatalogFailure/alibi-mask-includes-diagonal");
  ASSERT_TRUE(result.template is<rc::detail::FailureResult>()) << "a mask on the diagonal passed " << kMutantCases << " cases";
  const std::string& description = result.template get<rc::detail::FailureResult>().description;
  std::smatch found;
  const std::regex mask_site(R"(case: alibi\([^)]*\) at ([0-9]+):([0-9]+)\n  head [0-9]+; input \(none\)\n  observed (.*))");
  ASSERT_TRUE(std::regex_search(description, found, mask_site)) << description;
  EXPECT_EQ(found[1].str(), found[2].str()) << "the failing key is the query's own: " << description;
  EXPECT_EQ(found[3].str(), "bias -inf") << description;
}

// The catalog's order is the order every listing, report and README table uses: the rotary
// relations, then the frequency plans', the tables', the relative biases', and the comparison
// with the exact tier last; within a part, as that part lists them.
TEST(MutantCatalog, ThePropertiesComeInTheirPartsOrder) {
  std::vector<std::string_view> names;
  for (const Property& property : all_properties()) names.push_back(property.name);
  const auto index_of = [&](std::string_view name) {
    return static_cast<std::size_t>(std::find(names.begin(), names.end(), name) - names.begin());
  };
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(names.front(), "rotationPreservesNormPerPair");
  EXPECT_EQ(names.back(), "agreesWithTheExactReferenceWithinItsBound");
  EXPECT_LT(index_of("xposLogitsDoNotDependOnTheCentringOffset"), index_of("linearScalingEqualsDefaultAtScaledPosition"));
  EXPECT_LT(index_of("linearScalingEqualsDefaultAtScaledPosition"), index_of("sinusoidShiftIsAFixedBlockRotation"));
  EXPECT_LT(index_of("sinusoidShiftIsAFixedBlockRotation"), index_of("alibiBiasIsTranslationInvariant"));
  EXPECT_LT(index_of("alibiBiasIsTranslationInvariant"), index_of("agreesWithTheExactReferenceWithinItsBound"));
}

TEST(MutantCatalog, EveryMutantIsMeantForSomeProperty) {
  std::set<std::string_view> used;
  for (const auto& [property, name] : kCatches) used.insert(name);
  for (const auto& [name, property] : kNamedMutants) used.insert(name);
  for (const MutantInfo& info : all_mutants()) EXPECT_TRUE(used.count(info.name)) << info.name << " is caught by no property";
  EXPECT_EQ(kCatches.size(), all_properties().size()) << "a mapped property is missing from the catalog";
}

}  // namespace
}  // namespace peconform

int main(int argc, char** argv) {
  if (!peconform::start_property_run(argc, argv)) return 2;
  for (const peconform::Property& property : peconform::all_properties()) {
    const auto entry = peconform::kCatches.find(property.name);
    const std::string_view name = entry == peconform::kCatches.end() ? std::string_view("(none)") : entry->second;
    testing::RegisterTest("Mutants", std::string(property.name).c_str(), nullptr, nullptr, __FILE__, __LINE__,
                          [&property, name]() -> testing::Test* { return new peconform::MutantTest(property, name); });
  }
  for (const auto& [name, property] : peconform::kNamedMutants) {
    std::string test_name(name);
    std::replace(test_name.begin(), test_name.end(), '-', '_');
    const peconform::Property& by = peconform::property_named(property);
    testing::RegisterTest("NamedMutants", test_name.c_str(), nullptr, nullptr, __FILE__, __LINE__,
                          [&by, name = name]() -> testing::Test* { return new peconform::MutantTest(by, name); });
  }
  return RUN_ALL_TESTS();
}
