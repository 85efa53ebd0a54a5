// Each broken kernel is caught by a campaign, shrunk to one token and one head, saved to the
// regression corpus, replayed by its case string, and replayed first by the next campaign;
// the correct kernels pass the same case.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <nlohmann/json.hpp>

#include "backends/backend_registry.hpp"
#include "broken_backends.hpp"
#include "harness/campaign.hpp"
#include "harness/case_run.hpp"
#include "support/scratch_dir.hpp"

namespace peconform::harness {
namespace {

struct BrokenCase {
  std::string bug;
  std::string spec;
  friend void PrintTo(const BrokenCase& c, std::ostream* os) { *os << c.bug << " on " << c.spec; }
};

class BrokenKernel : public testing::TestWithParam<BrokenCase> {
 protected:
  CampaignOptions options() const {
    CampaignOptions o;
    o.profile = profile_named("smoke");
    o.seed = 7;
    o.cases = 12;
    o.filters.spec = Spec::parse(GetParam().spec);
    o.regressions = scratch_.path();
    o.run_properties = false;
    return o;
  }

  ScratchDir scratch_;
};

TEST_P(BrokenKernel, IsCaughtShrunkSavedAndReplayed) {
  const std::unique_ptr<TensorBackend> broken = make_broken_backend(GetParam().bug);
  const std::atomic<bool> stop{false};
  const CampaignResult found = run_campaign(options(), *broken, {}, stop);
  ASSERT_FALSE(found.failures.empty()) << GetParam().bug << " was not caught";
  EXPECT_FALSE(found.conformant());
  const FailureRecord& failure = found.failures.front();

  // Shrunk: one batch row, one token, one head (the selection, or a shape that had only one).
  const CaseDescription shrunk = CaseDescription::parse(failure.case_text);
  const CaseDescription original = CaseDescription::parse(failure.original_case);
  EXPECT_TRUE(shrunk.select.token || original.seq == 1) << failure.case_text;
  EXPECT_TRUE(shrunk.select.head || (original.heads == 1 && original.kv_heads <= 1)) << failure.case_text;
  EXPECT_TRUE(shrunk.select.batch || original.batch == 1) << failure.case_text;
  EXPECT_EQ(failure.first.at[1], 0) << "the shrunk call has one token";
  EXPECT_EQ(failure.first.at[2], 0) << "the shrunk call has one head";
  EXPECT_FALSE(failure.flaky) << "a deterministic bug fails every replay: " << failure.shrink_note;
  EXPECT_NE(failure.first.reference.find("0x"), std::string::npos) << "hex float";
  EXPECT_NE(failure.first.reference.find('('), std::string::npos) << "and decimal";
  EXPECT_EQ(failure.seed, 7u);
  EXPECT_EQ(failure.replay_command.find("peconform run --backend " + broken->name() + " --replay '"), 0u);

  // Saved: the file holds the shrunk case.
  ASSERT_FALSE(failure.regression_file.empty());
  std::ifstream saved(failure.regression_file);
  const nlohmann::json json = nlohmann::json::parse(saved);
  EXPECT_EQ(json.at("case"), failure.case_text);

  // Replayed by its case string: the same element fails the same way.
  CampaignOptions replay = options();
  replay.replay = failure.case_text;
  const CampaignResult again = run_campaign(replay, *broken, {}, stop);
  ASSERT_EQ(again.failures.size(), 1u);
  EXPECT_EQ(again.failures.front().first.kind, failure.first.kind);
  EXPECT_EQ(again.failures.front().first.element, failure.first.element);
  EXPECT_EQ(again.failures.front().first.actual, failure.first.actual);

  // The correct kernels pass the same case.
  const std::unique_ptr<TensorBackend> cpu = make_backend("cpu");
  EXPECT_TRUE(run_campaign(replay, *cpu, {}, stop).conformant());

  // The next campaign replays the saved case before any random one.
  CampaignOptions next = options();
  next.cases = 0;
  const CampaignResult replayed = run_campaign(next, *broken, {}, stop);
  EXPECT_GE(replayed.info.regressions_replayed, 1u);
  ASSERT_FALSE(replayed.failures.empty());
  EXPECT_EQ(replayed.failures.front().case_index, 0u);
}

TEST(BrokenKernelInputs, AKernelThatWritesItsInputFails) {
  const CaseDescription c = CaseDescription::parse(
      "rope(d=64,base=10000,layout=half,dtype=fp32) | batch=2 seq=5 heads=4 place=out inputs=activations seed=5");
  const CaseOutcome outcome = run_case(c, *make_broken_backend("writes-its-input"));
  EXPECT_TRUE(outcome.failed());
  EXPECT_EQ(outcome.error_kind, "input-modified");
  EXPECT_FALSE(run_case(c, *make_backend("cpu")).failed());
}

// Llama-2/3-70B have 64 query heads, Llama-3-405B 128: a kernel whose grid stops at 32 heads
// fails the smoke profile's rope cases.
TEST(BrokenKernelHeads, AKernelThatRotatesOnlyTheFirst32HeadsIsCaught) {
  CampaignOptions options;
  options.profile = profile_named("smoke");
  options.seed = 7;
  options.cases = 24;
  options.filters.families = {Family::rope};
  options.save_regressions = false;
  options.run_properties = false;
  const std::atomic<bool> stop{false};
  const CampaignResult result = run_campaign(options, *make_broken_backend("first-32-heads"), {}, stop);
  ASSERT_FALSE(result.failures.empty());
  for (const FailureRecord& failure : result.failures) {
    const CaseDescription drawn = CaseDescription::parse(failure.original_case);
    EXPECT_GT(std::max(drawn.heads, drawn.kv_heads), 32) << failure.original_case;
    EXPECT_FALSE(failure.flaky) << failure.shrink_note;
  }
}

// A campaign over run_campaign's smoke profile of `spec`, on `backend`, saving nothing.
CampaignResult smoke_campaign(const std::string& spec, const TensorBackend& backend, const ScratchDir& scratch) {
  CampaignOptions o;
  o.profile = profile_named("smoke");
  o.seed = 7;
  o.cases = 12;
  o.filters.spec = Spec::parse(spec);
  o.regressions = scratch.path();
  o.run_properties = false;
  const std::atomic<bool> stop{false};
  return run_campaign(o, backend, {}, stop);
}

TEST(BrokenKernelGuards, ACopyPastEachRowIsCaughtAndTheShrunkCasePassesTheCpuKernels) {
  // ggml's odd-d pass-through loop: the input's sentinel lands in the output's padding or guard.
  const ScratchDir scratch;
  const CampaignResult found =
      smoke_campaign("rope(d=65,base=10000,layout=half,rot=64,dtype=fp32)", *make_broken_backend("copies-past-each-row"), scratch);
  ASSERT_FALSE(found.failures.empty());
  const std::atomic<bool> stop{false};
  for (const FailureRecord& failure : found.failures) {
    EXPECT_EQ(failure.first.kind, "out-of-bounds") << failure.case_text;
    EXPECT_NE(failure.first.actual.find("sentinel of input"), std::string::npos) << failure.first.actual;
    // A sentinel in the guard past the end names no element: the case narrows to the last one,
    // the last token of the drawn case (and its last batch row and head).
    std::smatch drawn, narrowed;
    ASSERT_TRUE(std::regex_search(failure.original_case, drawn, std::regex(" batch=(\\d+) seq=(\\d+) heads=(\\d+) ")));
    ASSERT_TRUE(std::regex_search(failure.case_text, narrowed, std::regex("select=b(\\d+),s(\\d+),h(\\d+)"))) << failure.case_text;
    EXPECT_EQ(std::stoll(narrowed[1]), std::stoll(drawn[1]) - 1) << failure.case_text;
    EXPECT_EQ(std::stoll(narrowed[2]), std::stoll(drawn[2]) - 1) << failure.case_text;
    EXPECT_EQ(std::stoll(narrowed[3]), std::stoll(drawn[3]) - 1) << failure.case_text;
    CampaignOptions replay;
    replay.profile = profile_named("smoke");
    replay.seed = 7;
    replay.replay = failure.case_text;
    replay.regressions = scratch.path();
    replay.run_properties = false;
    EXPECT_TRUE(run_campaign(replay, *make_backend("cpu"), {}, stop).conformant()) << failure.case_text;
  }
}

TEST(BrokenKernelZeros, NegativeZerosForComputedZerosPassACampaign) {
  // Every +0 of a sinusoid table written as -0: the odd-d spare column included, a number.
  const ScratchDir scratch;
  const CampaignResult result =
      smoke_campaign("sinusoidal(d=33,base=10000,layout=half,dtype=fp32)", *make_broken_backend("writes-negative-zeros"), scratch);
  EXPECT_TRUE(result.conformant()) << (result.failures.empty() ? "" : result.failures.front().first.kind + " " +
                                                                         result.failures.front().case_text);
  std::uint64_t cases = 0;
  for (const auto& [key, stats] : result.cells) cases += stats.cases;
  EXPECT_GE(cases, 12u);
}

INSTANTIATE_TEST_SUITE_P(
    Campaign, BrokenKernel,
    testing::Values(BrokenCase{"fp32-angle-as-exact", "rope(d=64,base=10000,layout=half,dtype=fp32)"},
                    BrokenCase{"swapped-layout", "rope(d=80,base=10000,layout=interleaved,dtype=bf16)"},
                    BrokenCase{"regrouped-written-interleaved",
                               "rope(d=192,base=10000,layout=interleaved-to-half,rot=64,rot_at=last,dtype=bf16)"},
                    BrokenCase{"position-off-by-one", "rope(d=96,base=500000,layout=half,dtype=fp16)"},
                    BrokenCase{"last-element-unwritten", "rope(d=72,base=10000,layout=half,dtype=fp32)"},
                    BrokenCase{"zeroes-past-the-horizon", "rope(d=64,base=10000,layout=half,dtype=fp32,precision=fp32-angle)"}),
    [](const testing::TestParamInfo<BrokenCase>& info) {
      std::string name = info.param.bug;
      for (char& c : name)
        if (c == '-') c = '_';
      return name;
    });

}  // namespace
}  // namespace peconform::harness
