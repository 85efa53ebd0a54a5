// With --isolate, a kernel that crashes or hangs fails its own cases and the campaign goes on:
// this binary is both the test and, run as `isolation_test --worker BUG`, the worker that
// serves a broken backend's kernels.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <tuple>
#include <utility>

#include "broken_backends.hpp"
#include "harness/campaign.hpp"
#include "harness/case_run.hpp"
#include "harness/isolated_backend.hpp"

namespace peconform::harness {
namespace {

CampaignResult campaign_on(const std::string& bug, double timeout) {
  CampaignOptions options;
  options.profile = profile_named("smoke");
  options.seed = 3;
  options.cases = 4;  // two fp32 cases and two bf16 ones
  options.filters.families = {Family::rope};
  options.filters.dtypes = {Dtype::fp32, Dtype::bf16};
  options.filters.precisions = {PrecisionClass::exact_angle};
  options.save_regressions = false;
  options.run_properties = false;
  const std::unique_ptr<TensorBackend> isolated =
      make_isolated_backend(make_broken_backend(bug), {"/proc/self/exe", "--worker", bug}, timeout);
  const std::atomic<bool> stop{false};
  return run_campaign(options, *isolated, {}, stop);
}

void expect_only_bf16_failed(const CampaignResult& result, const std::string& kind) {
  EXPECT_EQ(result.info.cases_run, 4u) << "the campaign went on after the " << kind;
  ASSERT_FALSE(result.failures.empty());
  for (const FailureRecord& failure : result.failures) {
    EXPECT_EQ(failure.first.kind, kind);
    EXPECT_EQ(failure.cell_dtype, "bf16");
    EXPECT_FALSE(failure.message.empty());
  }
  std::uint64_t fp32_elements = 0;
  for (const auto& [key, stats] : result.cells)
    if (key.dtype == "fp32") fp32_elements += stats.elements;
  EXPECT_GT(fp32_elements, 0u) << "the fp32 cases ran in a fresh worker";
}

TEST(Isolation, ACrashFailsItsCaseAndTheCampaignGoesOn) {
  const CampaignResult result = campaign_on("crash-on-bf16", 60);
  expect_only_bf16_failed(result, "crash");
  EXPECT_NE(result.failures.front().message.find("signal 11"), std::string::npos) << result.failures.front().message;
}

TEST(Isolation, ACrashIsShrunkInTheWorkerToOneTokenOfOneHead) {
  const CampaignResult result = campaign_on("crash-on-bf16", 60);
  ASSERT_FALSE(result.failures.empty());
  for (const FailureRecord& failure : result.failures) {
    const CaseDescription shrunk = CaseDescription::parse(failure.case_text);
    EXPECT_TRUE(shrunk.select.token && shrunk.select.head && shrunk.select.batch) << failure.case_text;
    EXPECT_FALSE(failure.flaky) << "a crash on every bf16 call crashes every replay";
    EXPECT_EQ(failure.shrink_note, "");
  }
}

TEST(Isolation, AHangIsKilledAfterTheTimeout) {
  const CampaignResult result = campaign_on("hang-on-bf16", 1);
  expect_only_bf16_failed(result, "hang");
  for (const FailureRecord& failure : result.failures) {
    EXPECT_EQ(failure.case_text, failure.original_case) << "not shrunk";
    EXPECT_TRUE(failure.shrink_note.starts_with("not shrunk or replayed: ")) << failure.shrink_note;
  }
}

TEST(Isolation, WrongValuesComeBackAcrossTheProcessBoundary) {
  // In place, an unwritten element keeps its input, which passes where the rotation is near
  // the identity; out of place it keeps the sentinel, which never passes.
  const CampaignResult result = campaign_on("last-element-unwritten", 60);
  ASSERT_FALSE(result.failures.empty());
  for (const FailureRecord& failure : result.failures) {
    EXPECT_TRUE(failure.first.kind == "unwritten" || failure.first.kind == "numeric") << failure.first.kind;
    EXPECT_EQ(failure.first.at[3], CaseDescription::parse(failure.case_text).spec.d - 1) << "the last element";
  }
}

// A kernel that throws, or refuses the call, in the worker: its case fails with that kind and
// that message, read back across the process boundary, and the campaign goes on.
TEST(Isolation, AThrowOrARefusalComesBackWithItsMessage) {
  for (const auto& [bug, kind, message] : {std::tuple{"throws-on-bf16", "error", "cudaErrorInvalidValue: bf16 is not built for this kernel"},
                                           std::tuple{"refuses-bf16", "refused", "this kernel takes fp16 and fp32 only, not bf16"}}) {
    const CampaignResult result = campaign_on(bug, 60);
    expect_only_bf16_failed(result, kind);
    for (const FailureRecord& failure : result.failures) EXPECT_NE(failure.message.find(message), std::string::npos) << failure.message;
  }
}

// One case's outcome, whatever ended it: one case, one failed case, and nothing verified where
// the kernel gave no result.
TEST(Isolation, ACaseTheKernelEndedCountsOneFailedCaseAndVerifiesNothing) {
  const CaseDescription bf16 = CaseDescription::parse("rope(d=8,base=10000,layout=half,dtype=bf16) | seq=3 seed=1");
  for (const auto& [bug, kind] : {std::pair{"crash-on-bf16", "crash"}, std::pair{"throws-on-bf16", "error"}, std::pair{"refuses-bf16", "refused"}}) {
    const std::unique_ptr<TensorBackend> isolated =
        make_isolated_backend(make_broken_backend(bug), {"/proc/self/exe", "--worker", bug}, 60);
    const CaseOutcome outcome = run_case(bf16, *isolated);
    EXPECT_EQ(outcome.error_kind, kind);
    EXPECT_EQ(outcome.verdict.stats.cases, 1u) << bug;
    EXPECT_EQ(outcome.verdict.stats.failed_cases, 1u) << bug;
    EXPECT_EQ(outcome.verdict.stats.elements, 0u) << bug;
  }
}

// Our kernels write into the buffers the harness gave them, never an array of their own.
TEST(Isolation, AnOutputInTheHarnessesBufferIsNotTheKernelsOwnArray) {
  const CaseOutcome outcome =
      run_case(CaseDescription::parse("rope(d=8,base=10000,layout=half,dtype=fp32) | seq=3 seed=1"), *make_broken_backend("writes-its-input"));
  EXPECT_FALSE(outcome.kernel_array);
  EXPECT_EQ(outcome.error_kind, "input-modified");
  EXPECT_EQ(outcome.verdict.stats.cases, 1u);
  EXPECT_EQ(outcome.verdict.stats.failed_cases, 1u) << "its values pass, but it wrote into its input";
}

// A case states the time of each of its steps apart (the campaign's "time:" line sums them):
// drawing the call, the kernel, verifying; each took some, and together no more than the whole.
TEST(Isolation, ACaseTimesEachOfItsStepsApart) {
  const CaseDescription big =
      CaseDescription::parse("rope(d=128,base=10000,layout=half,dtype=fp32) | batch=2 seq=1024 heads=8 seed=1");
  const auto start = std::chrono::steady_clock::now();
  const CaseOutcome outcome = run_case(big, *make_broken_backend("position-off-by-one"));
  const double whole = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GT(outcome.draw_seconds, 0);
  EXPECT_GT(outcome.kernel_seconds, 0);
  EXPECT_GT(outcome.verify_seconds, 0);
  EXPECT_LE(outcome.draw_seconds + outcome.kernel_seconds + outcome.verify_seconds, whole);
}

}  // namespace
}  // namespace peconform::harness

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--worker") == 0)
    return peconform::harness::serve_worker(*peconform::harness::make_broken_backend(argv[2]));
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
