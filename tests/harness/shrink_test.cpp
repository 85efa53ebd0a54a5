// Shrinking keeps only what reproduces: a smaller case that passes one of its replays is not
// reported, and the failure is marked flaky (issue 18, point 3).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "backends/backend_registry.hpp"
#include "broken_backends.hpp"
#include "harness/campaign.hpp"
#include "harness/shrink.hpp"
#include "spec/spec_error.hpp"

namespace peconform::harness {
namespace {

// Several tokens, heads and batch rows, out of place, so that shrinking has every axis to narrow.
CaseDescription racy_case() {
  return CaseDescription::parse(
      "rope(d=64,base=10000,layout=half,dtype=fp32) | batch=2 seq=6 heads=4 order=bhsd pad=2 place=out inputs=activations "
      "seed=11");
}

TEST(Shrink, AShrunkCaseThatPassesAReplayGivesWayToTheLastCaseThatFailedEveryReplay) {
  const std::unique_ptr<TensorBackend> racy = make_broken_backend("racy-one-token");
  const CaseOutcome drawn = run_case(racy_case(), *racy);
  ASSERT_TRUE(drawn.failed());
  const Shrunk shrunk = shrink_case(racy_case(), drawn, *racy);

  EXPECT_TRUE(shrunk.flaky);
  EXPECT_TRUE(shrunk.note.starts_with("flaky: replay ")) << shrunk.note;
  EXPECT_NE(shrunk.note.find("this case failed all 5"), std::string::npos) << shrunk.note;
  // One-token calls lose the race only sometimes: the case kept has all six tokens, but was
  // narrowed as far as the race allows (one batch row, one head).
  EXPECT_FALSE(shrunk.description.select.token) << shrunk.description.text();
  EXPECT_TRUE(shrunk.description.select.head) << shrunk.description.text();
  EXPECT_TRUE(shrunk.description.select.batch) << shrunk.description.text();
  for (int replay = 0; replay < kShrunkReplays; ++replay)
    EXPECT_TRUE(run_case(shrunk.description, *racy).failed()) << "replay " << replay << " of " << shrunk.description.text();
}

// A kernel that is broken for its first `failing_calls` calls and correct from then on.
class BrokenForAWhile : public TensorBackend {
 public:
  explicit BrokenForAWhile(int failing_calls)
      : broken_(make_broken_backend("last-element-unwritten")), correct_(make_backend("cpu")), failing_calls_(failing_calls) {}
  std::string name() const override { return "broken-for-a-while"; }
  BackendCapabilities capabilities() const override { return correct_->capabilities(); }
  void run(KernelCall& call) const override { (++calls_ <= failing_calls_ ? broken_ : correct_)->run(call); }

 private:
  std::unique_ptr<TensorBackend> broken_, correct_;
  int failing_calls_;
  mutable int calls_ = 0;
};

// A kernel that throws on calls of several batch rows and refuses calls of one: the narrowed
// case fails too, but another way (refused, not error), so it is not the same failure.
class ThrowsOnManyRowsRefusesOne : public TensorBackend {
 public:
  std::string name() const override { return "throws-on-many-rows"; }
  BackendCapabilities capabilities() const override { return make_backend("cpu")->capabilities(); }
  void run(KernelCall& call) const override {
    if (call.batch > 1) throw std::runtime_error("many rows");
    throw SpecError("one row is refused");
  }
};

// "Fails the same way" compares a kernel's error kind too (the checklist's shrink #1): a
// narrowed case that is refused does not stand for one that threw.
TEST(Shrink, ANarrowedCaseThatFailsWithAnotherErrorKindIsNotKept) {
  const ThrowsOnManyRowsRefusesOne kernel;
  const CaseOutcome drawn = run_case(racy_case(), kernel);
  ASSERT_EQ(drawn.error_kind, "error");
  const Shrunk shrunk = shrink_case(racy_case(), drawn, kernel);
  EXPECT_FALSE(shrunk.description.select.batch) << shrunk.description.text();
  EXPECT_EQ(run_case(shrunk.description, kernel).error_kind, "error") << shrunk.description.text();
}

// The replays counted one by one (issue 38: a mutant that replayed six times, numbering them
// from 0, survived). The case is already one element, out of place, unpadded and bshd, so no
// narrowing runs it: the kernel's calls are the drawn run, then replays 1 to 5.
TEST(Shrink, ReplaysAreFiveNumberedFromOne) {
  CaseDescription one_element = racy_case();
  one_element.select = {1, 5, 3, std::nullopt};  // the last batch row, token and head
  one_element.pad = 0;
  one_element.order = "bshd";
  // Broken for the drawn run and replays 1 and 2: replay 3 is the first to pass.
  BrokenForAWhile three(3);
  const Shrunk flaky = shrink_case(one_element, run_case(one_element, three), three);
  EXPECT_TRUE(flaky.flaky);
  EXPECT_EQ(flaky.note, "flaky: replay 3 of 5 of this case passed");
  // Broken for the drawn run and all five replays: reproduced, and a sixth run would pass.
  BrokenForAWhile six(6);
  const Shrunk reproduced = shrink_case(one_element, run_case(one_element, six), six);
  EXPECT_FALSE(reproduced.flaky) << reproduced.note;
  EXPECT_EQ(reproduced.note, "");
}

TEST(Shrink, ACaseThatFailsEveryReplayIsShrunkToOneElementAndNotFlaky) {
  const std::unique_ptr<TensorBackend> broken = make_broken_backend("last-element-unwritten");
  const CaseOutcome drawn = run_case(racy_case(), *broken);
  ASSERT_TRUE(drawn.failed());
  const Shrunk shrunk = shrink_case(racy_case(), drawn, *broken);
  EXPECT_FALSE(shrunk.flaky);
  EXPECT_EQ(shrunk.note, "");
  EXPECT_TRUE(shrunk.description.select.token && shrunk.description.select.head && shrunk.description.select.batch)
      << shrunk.description.text();
}

TEST(Shrink, TheCampaignMarksTheFailureFlakyInItsRecordAndReport) {
  CampaignOptions options;
  options.profile = profile_named("smoke");
  options.seed = 5;
  options.cases = 4;
  options.filters.spec = racy_case().spec;
  options.save_regressions = false;
  options.run_properties = false;
  const std::unique_ptr<TensorBackend> racy = make_broken_backend("racy-one-token");
  const std::atomic<bool> stop{false};
  const CampaignResult result = run_campaign(options, *racy, {}, stop);
  const nlohmann::json json = to_json(result);
  ASSERT_EQ(json.at("failures").size(), result.failures.size());
  int flaky = 0;
  for (std::size_t i = 0; i < result.failures.size(); ++i) {
    const FailureRecord& failure = result.failures[i];
    const CaseDescription kept = CaseDescription::parse(failure.case_text);
    // This kernel fails a one-token call on every second run only: never five runs in a row.
    if (kept.select.token || kept.seq == 1) {
      EXPECT_TRUE(failure.flaky) << failure.case_text;
    }
    if (failure.flaky) {
      EXPECT_TRUE(failure.shrink_note.starts_with("flaky: ")) << failure.shrink_note;
    }
    EXPECT_EQ(json.at("failures").at(i).at("flaky"), failure.flaky);
    EXPECT_EQ(json.at("failures").at(i).at("shrink_note"), failure.shrink_note);
    flaky += failure.flaky;
  }
  EXPECT_GT(flaky, 0) << "seed 5 draws cases of several tokens, whose one-token shrinks are flaky";
}

}  // namespace
}  // namespace peconform::harness
