// With --isolate, a kernel that crashes or hangs fails its own cases and the campaign goes on:
// this binary is both the test and, run as `isolation_test --worker BUG`, the worker that
// serves a broken backend's kernels.
#include <gtest/gtest.h>

#include <cstring>

#include "broken_backends.hpp"
#include "harness/campaign.hpp"
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

}  // namespace
}  // namespace peconform::harness

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--worker") == 0)
    return peconform::harness::serve_worker(*peconform::harness::make_broken_backend(argv[2]));
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
