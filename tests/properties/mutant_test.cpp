// Every property proves it can fail: it must reject the planted bug meant for it. Registered as
// Mutants.<property>; a run stops at the first falsifying case, without shrinking.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <iostream>
#include <map>
#include <set>

#include "mutants.hpp"
#include "properties/property.hpp"
#include "property_profile.hpp"

namespace peconform {
namespace {

// The mutant each property is meant to catch.
const std::map<std::string_view, std::string_view> kCatches{
    {"rotationPreservesNormPerPair", "bf16-cos-sin-cache"},
    {"innerProductDependsOnlyOnRelativePosition", "fp32-angle"},
    {"rotationsComposeAdditively", "fp32-angle"},
    {"rotationAtPositionZeroIsTheIdentity", "position-off-by-one"},
    {"rotationAtNegatedPositionIsTheTranspose", "position-off-by-one"},
    {"interleavedAndHalfLayoutsDifferByAFixedPermutation", "gptj-neox-swap"},
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
};

// Enough cases that a property meets its mutant's bug; a caught mutant stops at the first.
constexpr int kMutantCases = 2000;

class MutantTest : public testing::Test {
 public:
  explicit MutantTest(const Property& property) : property_(property) {}
  void TestBody() override {
    const auto entry = kCatches.find(property_.name);
    ASSERT_NE(entry, kCatches.end()) << property_.name << " names no mutant it catches";
    const Implementation& broken = mutant(entry->second);
    rc::detail::TestMetadata metadata;
    metadata.id = std::string("Mutants/") + std::string(property_.name);
    rc::detail::TestParams params = rc::detail::configuration().testParams;
    params.maxSuccess = kMutantCases;
    params.disableShrinking = true;
    const rc::detail::TestResult result = rc::detail::checkProperty(
        rc::detail::toProperty([&] { property_.check(broken); }), metadata, params);
    const auto* failure = result.template is<rc::detail::FailureResult>() ? &result.template get<rc::detail::FailureResult>() : nullptr;
    ASSERT_NE(failure, nullptr) << property_.name << " accepted the mutant " << entry->second << " in " << kMutantCases
                                << " cases";
    // A failure must carry what replays it: the case string and the seed.
    EXPECT_NE(failure->description.find("case: "), std::string::npos) << failure->description;
    EXPECT_NE(failure->description.find("seed: "), std::string::npos) << failure->description;
    std::cout << property_.name << " rejects " << entry->second << " after " << failure->numSuccess
              << " passing cases:\n" << failure->description << "\n";
  }

 private:
  const Property& property_;
};

TEST(MutantCatalog, EveryMutantIsMeantForSomeProperty) {
  std::set<std::string_view> used;
  for (const auto& [property, name] : kCatches) used.insert(name);
  for (const MutantInfo& info : all_mutants()) EXPECT_TRUE(used.count(info.name)) << info.name << " is caught by no property";
  EXPECT_EQ(kCatches.size(), all_properties().size()) << "a mapped property is missing from the catalog";
}

}  // namespace
}  // namespace peconform

int main(int argc, char** argv) {
  if (!peconform::start_property_run(argc, argv)) return 2;
  for (const peconform::Property& property : peconform::all_properties())
    testing::RegisterTest("Mutants", std::string(property.name).c_str(), nullptr, nullptr, __FILE__, __LINE__,
                          [&property]() -> testing::Test* { return new peconform::MutantTest(property); });
  return RUN_ALL_TESTS();
}
