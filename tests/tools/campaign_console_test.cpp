// What `peconform run` prints for a failure: everything needed to see it and replay it, and,
// for a failure that did not reproduce on every replay, the flaky mark and which replay passed.
#include <gtest/gtest.h>

#include "tools/campaign_console.hpp"

namespace peconform {
namespace {

harness::FailureRecord numeric_failure() {
  harness::FailureRecord f;
  f.case_text = "rope(d=8,base=10000) | batch=2 seq=4 heads=2 kv_heads=0 seed=0x00000000000000b1 select=b1,h0";
  f.original_case = "rope(d=8,base=10000) | batch=2 seq=4 heads=2 kv_heads=0 seed=0x00000000000000b1";
  f.seed = 20261121;
  f.case_index = 17;
  f.first = {"numeric", "q", 21, {0, 2, 0, 5}, "131074", "x[5]=0x1p-1 (0.5)", "0x1.2p-2 (0.28125)",
             "0x1.3p-2 (0.296875)", 4.0, 3.5, "0x1p-24 (5.96e-08)"};
  f.failing_elements = 4;
  f.replay_command = "peconform run --backend cpu --replay '" + f.case_text + "'";
  return f;
}

std::string printed(const harness::FailureRecord& failure) {
  testing::internal::CaptureStderr();
  print_failure(failure);
  return testing::internal::GetCapturedStderr();
}

TEST(CampaignConsole, PrintsTheFailureInFull) {
  const std::string out = printed(numeric_failure());
  EXPECT_NE(out.find("FAIL [numeric] rope(d=8,base=10000) | batch=2"), std::string::npos) << out;
  for (const char* line : {"  element   q 21 at [0, 2, 0, 5] (batch, token, head, dim), position 131074\n",
                           "  reference 0x1.2p-2 (0.28125)\n", "  actual    0x1.3p-2 (0.296875)\n",
                           "  error     4 ulp, 3.5 x bound", "  seed 20261121 case 17\n", "  replay: peconform run"})
    EXPECT_NE(out.find(line), std::string::npos) << line << " in\n" << out;
  EXPECT_EQ(out.find("flaky"), std::string::npos) << out;
  EXPECT_EQ(out.find("shrinking:"), std::string::npos) << out;
}

TEST(CampaignConsole, MarksAFlakyFailureAndSaysWhichReplayPassed) {
  harness::FailureRecord failure = numeric_failure();
  failure.flaky = true;
  failure.shrink_note = "flaky: replay 3 of 5 of the smaller case 'X' passed; this case failed all 5";
  const std::string out = printed(failure);
  EXPECT_NE(out.find("FAIL [numeric, flaky] rope(d=8"), std::string::npos) << out;
  EXPECT_NE(out.find("  shrinking: flaky: replay 3 of 5 of the smaller case 'X' passed; this case failed all 5\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("  replay: peconform run"), std::string::npos) << out;
}

TEST(CampaignConsole, SaysWhyAHangWasNotShrunk) {
  harness::FailureRecord failure = numeric_failure();
  failure.first = {};
  failure.first.kind = "hang";
  failure.message = "the kernel gave no result within 600 s; its process was killed";
  failure.shrink_note = "not shrunk or replayed: every run of a hanging kernel costs the whole case timeout";
  const std::string out = printed(failure);
  EXPECT_NE(out.find("FAIL [hang] "), std::string::npos) << out;
  EXPECT_NE(out.find("  shrinking: not shrunk or replayed: "), std::string::npos) << out;
}

}  // namespace
}  // namespace peconform
