// `peconform run` and `peconform merge` end to end: the same seed gives the same report at one
// and at two threads and under a two-way shard split; bad input exits 2 naming the value; a
// time budget writes a partial report; the main command writes all four reports.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sys/wait.h>

#include "harness/case_description.hpp"
#include "properties/property.hpp"
#include "support/scratch_dir.hpp"

namespace {

class CampaignCli : public testing::Test {
 protected:
  // Every run gets a regression corpus of its own, empty, so that runs compare alike.
  peconform::ToolRun run(const std::string& arguments) const {
    const std::string corpus =
        arguments.starts_with("run") ? fmt::format(" --regressions '{}'", (folder_ / "regressions").string()) : "";
    return peconform::run_tool(fmt::format("'{}' {}{}", PECONFORM_BINARY, arguments, corpus));
  }

  // report.json without the fields that may differ between identical runs.
  nlohmann::json report(const std::string& name) const {
    std::ifstream in(folder_ / name / "report.json");
    nlohmann::json json = nlohmann::json::parse(in);
    for (const char* field : {"threads", "wall_seconds", "elements_per_second", "draw_seconds", "kernel_seconds",
                              "verify_seconds", "verified_elements_per_second", "escalation_seconds", "shrink_seconds",
                              "property_seconds"})
      json["run"].erase(field);
    return json;
  }

  std::string out(const std::string& name) const { return (folder_ / name).string(); }

  peconform::ScratchDir scratch_;
  const std::filesystem::path& folder_ = scratch_.path();
};

// The ci profile's shapes and properties, with fewer cases so the test stays short: its long
// calls are where the verification splits one call across threads.
constexpr const char* kCampaign = "run --profile ci --cases 90 --seed 42 --quiet";
// Sharding splits the list of cases, whatever their size: 400 smoke cases reach every cell.
constexpr const char* kShardedCampaign = "run --profile smoke --cases 400 --seed 42 --quiet";

TEST_F(CampaignCli, SameReportAtOneAndTwoThreads) {
  ASSERT_EQ(run(fmt::format("{} --threads 1 --out '{}'", kCampaign, out("one"))).exit_code, 0);
  ASSERT_EQ(run(fmt::format("{} --threads 2 --out '{}'", kCampaign, out("two"))).exit_code, 0);
  const nlohmann::json one = report("one"), two = report("two");
  EXPECT_GT(one.at("total_elements").get<std::uint64_t>(), 1000000u);
  EXPECT_EQ(one.at("properties").size(), peconform::all_properties().size());
  EXPECT_EQ(one, two) << "reports differ beyond timings and threads";
}

TEST_F(CampaignCli, MergedShardsEqualTheUnshardedRun) {
  ASSERT_EQ(run(fmt::format("{} --out '{}'", kShardedCampaign, out("whole"))).exit_code, 0);
  ASSERT_EQ(run(fmt::format("{} --shard 1/2 --out '{}'", kShardedCampaign, out("first"))).exit_code, 0);
  // The second shard from GoogleTest's variables, as a CI matrix would set them.
  const std::string second = fmt::format("GTEST_TOTAL_SHARDS=2 GTEST_SHARD_INDEX=1 '{}' {} --out '{}' --regressions '{}'",
                                         PECONFORM_BINARY, kShardedCampaign, out("second"), out("regressions"));
  ASSERT_EQ(std::system(second.c_str()), 0);
  const peconform::ToolRun merged = run(fmt::format("merge '{}' '{}' --out '{}'", out("first"), out("second"), out("merged")));
  ASSERT_EQ(merged.exit_code, 0) << merged.output;
  nlohmann::json whole = report("whole"), joined = report("merged");
  EXPECT_GT(report("first").at("run").at("cases_run").get<int>(), 0);
  EXPECT_EQ(whole, joined);
  for (const char* file : {"report.json", "junit.xml", "summary.md", "report.html"})
    EXPECT_TRUE(std::filesystem::exists(folder_ / "merged" / file)) << file;
}

// A task of a job array cancelled before its report leaves its folder empty: the merge names that
// folder and the shard it lacks, exits 2 and writes no report that could pass for the campaign's.
TEST_F(CampaignCli, AShardFolderWithoutItsReportIsNamedAndNothingIsMerged) {
  const std::string campaign = "run --profile smoke --cases 8 --no-properties --seed 42 --quiet --shard 1/2";
  ASSERT_EQ(run(fmt::format("{} --out '{}'", campaign, out("shard-1"))).exit_code, 0);
  std::filesystem::create_directories(folder_ / "shard-2");
  const peconform::ToolRun merged = run(fmt::format("merge '{}' '{}' --out '{}'", out("shard-1"), out("shard-2"), out("merged")));
  EXPECT_EQ(merged.exit_code, 2) << merged.output;
  EXPECT_NE(merged.output.find("no report of shard 2/2"), std::string::npos) << merged.output;
  EXPECT_NE(merged.output.find(out("shard-2")), std::string::npos) << merged.output;
  EXPECT_FALSE(std::filesystem::exists(folder_ / "merged" / "report.json"));
}

// `run` waits passively unless told (tools/wait_policy.hpp): it executes itself again with
// OMP_WAIT_POLICY=passive, and the report says how its threads waited.
TEST_F(CampaignCli, RunsWaitPassivelyUnlessTold) {
  const std::string campaign = "run --profile smoke --cases 5 --no-properties --seed 1 --quiet --no-save";
  for (const auto& [environment, expected] : {std::pair{"env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT", "passive"},
                                              std::pair{"env OMP_WAIT_POLICY=active", "active"},
                                              std::pair{"env -u OMP_WAIT_POLICY GOMP_SPINCOUNT=1000", "default"}}) {
    const std::string name = std::string("policy-") + expected;
    const peconform::ToolRun ran =
        peconform::run_tool(fmt::format("{} '{}' {} --out '{}'", environment, PECONFORM_BINARY, campaign, out(name)));
    ASSERT_EQ(ran.exit_code, 0) << ran.output;
    EXPECT_EQ(report(name).at("run").at("wait_policy"), expected) << environment;
  }
}

TEST_F(CampaignCli, ShardsFromTheEnvironment) {
  const std::string command =
      fmt::format("SLURM_ARRAY_TASK_ID=3 SLURM_ARRAY_TASK_COUNT=4 SLURM_ARRAY_TASK_MIN=0 '{}' run --profile smoke --cases 8 "
                  "--no-properties --quiet --out '{}' --regressions '{}' 2>/dev/null",
                  PECONFORM_BINARY, out("slurm"), out("regressions"));
  ASSERT_EQ(std::system(command.c_str()), 0);
  const nlohmann::json json = report("slurm");
  EXPECT_EQ(json.at("run").at("shard").at("index"), 4);
  EXPECT_EQ(json.at("run").at("shard").at("count"), 4);
  EXPECT_EQ(json.at("run").at("cases_run"), 2);
}

TEST_F(CampaignCli, BadInputExitsTwoNamingTheValue) {
  for (const auto& [arguments, named] : std::vector<std::pair<std::string, std::string>>{
           {"run --profile sometimes", "'sometimes'"},
           {"run --backend gpu9", "'gpu9'"},
           {"run --shard 3/2", "3/2"},
           {"run --family ropes", "'ropes'"},
           {"run --dtype fp8", "'fp8'"},
           {"run --spec 'rope(d=7)'", "rope"},
           {"run --replay 'rope(d=8) | seq=0'", "'seq' has value '0'"},
           {"run --time-budget -3", "-3"},
           {"run --max-tokens 0", "--max-tokens"},
           {"run --spec 'rope(d=64,dtype=fp32)' --max-elements 63", "max_elements is 63, below the 64 elements"}}) {
    const peconform::ToolRun outcome = run(arguments + " --out " + out("bad"));
    EXPECT_EQ(outcome.exit_code, 2) << arguments << "\n" << outcome.output;
    EXPECT_NE(outcome.output.find(named), std::string::npos) << arguments << "\n" << outcome.output;
  }
  EXPECT_FALSE(std::filesystem::exists(folder_ / "bad" / "report.json")) << "no report from bad input";
  const peconform::ToolRun merge = run(fmt::format("merge '{}' --out '{}'", out("missing"), out("m")));
  EXPECT_EQ(merge.exit_code, 2) << merge.output;
}

// A slow backend's campaign bounds its calls (issue 48): every case within --max-elements per
// tensor and --max-tokens per call, the bounds in the report; the CPU kernels still conform.
TEST_F(CampaignCli, ShapeBoundsKeepEveryCallWithinThemAndAreReported) {
  const peconform::ToolRun outcome = run(fmt::format(
      "run --profile ci --cases 120 --max-elements 8192 --max-tokens 16 --no-properties --quiet --out '{}'", out("bounded")));
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  const nlohmann::json json = report("bounded");
  EXPECT_EQ(json.at("run").at("max_elements"), 8192);
  EXPECT_EQ(json.at("run").at("max_tokens"), 16);
  // Each cell's worst case is one the campaign drew: its batch x seq (or rows) within the bound.
  for (const nlohmann::json& cell : json.at("cells")) {
    const peconform::harness::CaseDescription c =
        peconform::harness::CaseDescription::parse(cell.at("worst_case").get<std::string>());
    EXPECT_LE(c.batch * c.seq, 16) << c.text();
    EXPECT_LE(std::max(c.seq, c.keys), 16) << c.text();
    if (peconform::is_rotary(c.spec.family)) {
      EXPECT_LE(c.batch * c.seq * c.heads * c.spec.d, 8192) << c.text();
    }
  }
}

TEST_F(CampaignCli, TimeBudgetWritesAPartialReport) {
  const peconform::ToolRun outcome = run(fmt::format("run --profile ci --time-budget 1 --out '{}'", out("partial")));
  EXPECT_EQ(outcome.exit_code, 0) << outcome.output;
  const nlohmann::json json = report("partial");
  EXPECT_TRUE(json.at("run").at("partial").get<bool>());
  EXPECT_NE(json.at("run").at("partial_reason").get<std::string>().find("time budget"), std::string::npos);
  EXPECT_LT(json.at("run").at("cases_run").get<int>(), json.at("run").at("cases_planned").get<int>());
  EXPECT_TRUE(std::filesystem::exists(folder_ / "partial" / "report.html"));
}

TEST_F(CampaignCli, CtrlCWritesAPartialReport) {
  // The interrupt comes once the progress line says a case has finished (at most 60 s), so a
  // loaded machine cannot make it land before the first case.
  const std::string progress = out("progress");
  const std::string command = fmt::format(
      "'{}' run --profile ci --out '{}' --regressions '{}' 2> '{}' & pid=$!; "
      "for i in $(seq 600); do grep -q '^cases' '{}' && break; sleep 0.1; done; kill -INT $pid; wait $pid",
      PECONFORM_BINARY, out("interrupted"), out("regressions"), progress, progress);
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  const nlohmann::json json = report("interrupted");
  EXPECT_TRUE(json.at("run").at("partial").get<bool>());
  EXPECT_EQ(json.at("run").at("partial_reason"), "interrupted");
  EXPECT_GT(json.at("run").at("cases_run").get<int>(), 0);
}

TEST_F(CampaignCli, ReplayRunsOneCase) {
  const std::string text =
      "rope(d=72,base=10000,layout=half,dtype=bf16) | batch=1 seq=3 heads=2 order=bshd pad=0 place=out ids=int32 "
      "positions=run offset=16777215 inputs=activations seed=0x5";
  const peconform::ToolRun outcome = run(fmt::format("run --replay '{}' --out '{}'", text, out("replay")));
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  const nlohmann::json json = report("replay");
  EXPECT_EQ(json.at("run").at("cases_run"), 1);
  EXPECT_EQ(json.at("total_elements"), 3 * 2 * 72);
}

}  // namespace
