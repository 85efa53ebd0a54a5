// CellStats::merge and report.json's cell fields, held to values written out by hand rather than
// to a round trip through the same code (issue 38: a tie-break removed from merge, and a counter
// written under another's name, each survived every test before these); merge_results naming
// missing and partial shards (issue 37).
#include <gtest/gtest.h>

#include <cmath>
#include <tuple>

#include <nlohmann/json.hpp>

#include "harness/campaign_result.hpp"

namespace peconform::harness {
namespace {
namespace campaign_result_test {  // the harness tests build as one unit: names of their own

CellStats worst_at(double ratio, std::uint64_t case_index, const std::string& case_text) {
  CellStats stats;
  stats.cases = 1;
  stats.worst_ratio = ratio;
  stats.worst_case_index = case_index;
  stats.worst_case = case_text;
  return stats;
}

// The unsharded run keeps the first case of a tied worst ratio; two shards holding the two tied
// cases must merge to that one whichever comes first.
TEST(CellStatsMerge, ATiedWorstRatioKeepsTheLowerCaseIndexInEitherOrder) {
  const CellStats early = worst_at(0.5, 3, "rope(d=8) | seed=0x3"), late = worst_at(0.5, 7, "rope(d=8) | seed=0x7");
  CellStats late_first = late;
  late_first.merge(early);
  CellStats early_first = early;
  early_first.merge(late);
  for (const CellStats& merged : {late_first, early_first}) {
    EXPECT_EQ(merged.worst_case_index, 3u);
    EXPECT_EQ(merged.worst_case, "rope(d=8) | seed=0x3");
    EXPECT_EQ(merged.cases, 2u);
  }
  // A larger ratio wins whatever its index; an empty cell takes the other's worst.
  CellStats larger = early;
  larger.merge(worst_at(0.75, 9, "rope(d=8) | seed=0x9"));
  EXPECT_EQ(larger.worst_case_index, 9u);
  CellStats empty;
  empty.merge(early);
  EXPECT_EQ(empty.worst_case, early.worst_case);
}

// A report of another schema, older or newer, is refused naming both schemas, never read as
// this one (its keys may mean other things); a document that is no report says so.
TEST(CampaignResultJson, AReportOfAnotherSchemaIsRefusedNamingBoth) {
  const nlohmann::json ours = to_json(CampaignResult{});
  for (const char* other : {"peconform.report/0", "peconform.report/2", "something.else/1"}) {
    nlohmann::json theirs = ours;
    theirs["schema"] = other;
    try {
      from_json(theirs);
      ADD_FAILURE() << "read a report of schema " << other;
    } catch (const std::runtime_error& error) {
      const std::string message = error.what();
      EXPECT_NE(message.find(std::string("schema is '\"") + other + "\"', expected 'peconform.report/1'"), std::string::npos)
          << message;
    }
  }
  nlohmann::json headless = ours;
  headless.erase("run");
  try {
    from_json(headless);
    ADD_FAILURE() << "read a report without its run facts";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("not a peconform.report/1 report: "), std::string::npos) << error.what();
  }
}

// Every counter of a cell under its own name in report.json: each holds a value no other does.
// Every run fact with a value of its own, written under its key (the expected object is written
// by hand) and read back into its own field (issue 38: a mutant that read property_seconds
// from another key survived, as every report had it 0).
TEST(CampaignResultJson, EachRunFactIsWrittenAndReadUnderItsOwnName) {
  CampaignResult result;
  RunInfo& i = result.info;
  i.tool_version = "v";
  i.commit = "c";
  i.machine = "m";
  i.compiler = "g";
  i.backend = "b";
  i.profile = "p";
  i.seed = 1;
  i.filters = "f";
  i.shard_index = 2;
  i.shard_count = 3;
  i.campaign_cases = 4;
  i.cases_planned = 5;
  i.cases_run = 6;
  i.regressions_replayed = 7;
  i.partial = true;
  i.partial_reason = "r";
  i.threads = 8;
  i.wait_policy = "w";
  i.wall_seconds = 9.5;
  i.elements_per_second = 10.5;
  i.draw_seconds = 11.5;
  i.kernel_seconds = 12.5;
  i.verify_seconds = 13.5;
  i.escalation_seconds = 14.5;
  i.shrink_seconds = 15.5;
  i.property_seconds = 16.5;
  i.verified_elements_per_second = 17.5;
  const nlohmann::json json = to_json(result);
  EXPECT_EQ(json.at("run"), nlohmann::json::parse(R"({"tool_version": "v", "commit": "c", "machine": "m", "compiler": "g",
      "backend": "b", "profile": "p", "seed": 1, "filters": "f", "shard": {"index": 2, "count": 3, "campaign_cases": 4},
      "cases_planned": 5, "cases_run": 6, "regressions_replayed": 7, "partial": true, "partial_reason": "r", "threads": 8,
      "wait_policy": "w", "wall_seconds": 9.5, "elements_per_second": 10.5, "draw_seconds": 11.5, "kernel_seconds": 12.5,
      "verify_seconds": 13.5, "escalation_seconds": 14.5, "shrink_seconds": 15.5, "property_seconds": 16.5,
      "verified_elements_per_second": 17.5})"));
  const RunInfo read = from_json(json).info;
  EXPECT_EQ(std::tie(read.tool_version, read.commit, read.machine, read.compiler, read.backend, read.profile, read.filters,
                     read.partial_reason, read.wait_policy),
            std::tie(i.tool_version, i.commit, i.machine, i.compiler, i.backend, i.profile, i.filters, i.partial_reason,
                     i.wait_policy));
  EXPECT_EQ(std::tie(read.seed, read.campaign_cases, read.cases_planned, read.cases_run, read.regressions_replayed),
            std::tie(i.seed, i.campaign_cases, i.cases_planned, i.cases_run, i.regressions_replayed));
  EXPECT_EQ(std::tie(read.shard_index, read.shard_count, read.threads, read.partial),
            std::tie(i.shard_index, i.shard_count, i.threads, i.partial));
  EXPECT_EQ((std::vector<double>{read.wall_seconds, read.elements_per_second, read.draw_seconds, read.kernel_seconds,
                                 read.verify_seconds, read.escalation_seconds, read.shrink_seconds, read.property_seconds,
                                 read.verified_elements_per_second}),
            (std::vector<double>{9.5, 10.5, 11.5, 12.5, 13.5, 14.5, 15.5, 16.5, 17.5}));
}

// JSON has no infinity or NaN: a non-finite figure is written as the text "inf", "-inf" or "nan"
// and read back as that value, never as another non-finite one.
TEST(CampaignResultJson, NonFiniteFiguresAreWrittenAsTextAndReadBackAsThemselves) {
  CampaignResult result;
  CellStats stats;
  stats.worst_ratio = INFINITY;
  stats.max_ulp = NAN;
  stats.unconstrained_horizon = -INFINITY;
  stats.worst_ratio_by_position[0] = 2.5;
  result.cells[{"cpu", "rope", "fp32", "exact-angle"}] = stats;
  const nlohmann::json json = to_json(result);
  const nlohmann::json& cell = json.at("cells").at(0);
  EXPECT_EQ(cell.at("worst_ratio"), "inf");
  EXPECT_EQ(cell.at("max_ulp"), "nan");
  EXPECT_EQ(cell.at("unconstrained_horizon"), "-inf");
  const CellStats& back = from_json(json).cells.begin()->second;
  EXPECT_EQ(back.worst_ratio, INFINITY);
  EXPECT_TRUE(std::isnan(back.max_ulp));
  EXPECT_EQ(back.unconstrained_horizon, -INFINITY);
  EXPECT_EQ(back.worst_ratio_by_position[0], 2.5);
}

TEST(CampaignResultJson, EachCellCounterIsWrittenUnderItsOwnName) {
  CampaignResult result;
  CellStats stats;
  stats.cases = 11;
  stats.failed_cases = 12;
  stats.elements = 13;
  stats.bounded_elements = 14;
  stats.identical_elements = 15;
  stats.unconstrained_elements = 16;
  stats.norm_checked_pairs = 17;
  stats.unconstrained_horizon = 18.5;
  stats.failed_elements = 19;
  stats.escalations = 20;
  stats.boundary_elements = 21;
  stats.max_ulp = 22.5;
  stats.worst_ratio = 0.25;
  stats.worst_case = "rope(d=8) | seed=0x17";
  stats.worst_case_index = 23;
  stats.worst_ratio_by_position[5] = 0.125;
  stats.ratio_histogram[2] = 24;
  result.cells[{"cpu", "rope", "bf16", "fp32-angle"}] = stats;
  const nlohmann::json cell = to_json(result).at("cells").at(0);
  const nlohmann::json expected = {{"backend", "cpu"},
                                   {"family", "rope"},
                                   {"dtype", "bf16"},
                                   {"precision", "fp32-angle"},
                                   {"cases", 11},
                                   {"failed_cases", 12},
                                   {"elements", 13},
                                   {"bounded_elements", 14},
                                   {"identical_elements", 15},
                                   {"unconstrained_elements", 16},
                                   {"norm_checked_pairs", 17},
                                   {"unconstrained_horizon", 18.5},
                                   {"failed_elements", 19},
                                   {"escalations", 20},
                                   {"boundary_elements", 21},
                                   {"max_ulp", 22.5},
                                   {"worst_ratio", 0.25},
                                   {"worst_case", "rope(d=8) | seed=0x17"},
                                   {"worst_case_index", 23},
                                   {"loose", false}};
  for (const auto& [key, value] : expected.items()) EXPECT_EQ(cell.at(key), value) << key;
  EXPECT_EQ(cell.at("worst_ratio_by_position").at(5), 0.125);
  EXPECT_EQ(cell.at("worst_ratio_by_position").at(4), 0.0);
  EXPECT_EQ(cell.at("ratio_histogram").at(2), 24);
  EXPECT_EQ(cell.at("ratio_histogram").at(3), 0);
  // And read back field by field.
  const CellStats& back = from_json(to_json(result)).cells.begin()->second;
  EXPECT_EQ(back.identical_elements, 15u);
  EXPECT_EQ(back.unconstrained_elements, 16u);
  EXPECT_EQ(back.norm_checked_pairs, 17u);
  EXPECT_EQ(back.boundary_elements, 21u);
  EXPECT_EQ(back.escalations, 20u);
}

// Shard `index` of `count` of one campaign (seed 7), with one case run of the `planned`.
CampaignResult shard_of(int index, int count, std::uint64_t planned = 1) {
  CampaignResult shard;
  shard.info.seed = 7;
  shard.info.profile = "ci";
  shard.info.backend = "cpu";
  shard.info.shard_index = index;
  shard.info.shard_count = count;
  shard.info.campaign_cases = 200;
  shard.info.commit = "0d1abfb";
  shard.info.cases_planned = planned;
  shard.info.cases_run = 1;
  shard.cells[{"cpu", "rope", "bf16", "fp32-angle"}] = worst_at(0.25, static_cast<std::uint64_t>(index), "rope(d=8)");
  return shard;
}

CampaignResult partial_shard(int index, int count, const std::string& reason) {
  CampaignResult shard = shard_of(index, count, 3);
  shard.info.partial = true;
  shard.info.partial_reason = reason;
  return shard;
}

// The merge's message; empty if it merged.
std::string merge_refusal(const std::vector<CampaignResult>& shards) {
  try {
    merge_results(shards);
  } catch (const std::runtime_error& error) {
    return error.what();
  }
  return "";
}

// A task of a job array that never wrote its report: the merge names each shard it lacks, as
// the task to run again, instead of a count.
TEST(MergeResults, AMissingShardIsRefusedByName) {
  const std::string refused = merge_refusal({shard_of(4, 4), shard_of(1, 4)});
  EXPECT_NE(refused.find("shard 2/4, 3/4"), std::string::npos) << refused;
  EXPECT_NE(refused.find("2 of 4 shards given"), std::string::npos) << refused;
  EXPECT_NE(merge_refusal({shard_of(1, 2), shard_of(1, 2)}).find("shard 1/2 is given twice"), std::string::npos);
  EXPECT_EQ(merge_refusal({shard_of(2, 2), shard_of(1, 2)}), "");
}

// A stale shard folder left from another campaign with the same seed (other --cases, another
// build): merged, it would make a whole-looking report of two campaigns' cases. Refused, naming
// both; and the count survives the report's JSON, where the merge reads it from.
TEST(MergeResults, AShardOfAnotherCaseCountOrBuildIsRefused) {
  CampaignResult other_cases = shard_of(2, 2);
  other_cases.info.campaign_cases = 100;
  const std::string refused = merge_refusal({shard_of(1, 2), other_cases});
  EXPECT_NE(refused.find("shard 2/2 (seed 7, profile ci, backend cpu, 100 cases"), std::string::npos) << refused;
  EXPECT_NE(refused.find("200 cases"), std::string::npos) << refused;
  CampaignResult other_build = shard_of(2, 2);
  other_build.info.commit = "ffd5e8b";
  EXPECT_NE(merge_refusal({shard_of(1, 2), other_build}).find("commit ffd5e8b"), std::string::npos);
  EXPECT_EQ(from_json(to_json(other_cases)).info.campaign_cases, 100u);
  EXPECT_EQ(merge_results({shard_of(1, 2), shard_of(2, 2)}).info.campaign_cases, 200u);
}

// Shape bounds and the execution change what a campaign ran (issue 48): shards that differ in
// them are of another campaign, refused naming both; and they survive the report's JSON.
TEST(MergeResults, AShardOfOtherShapeBoundsOrExecutionIsRefused) {
  CampaignResult bounded = shard_of(2, 2);
  bounded.info.max_tokens = 64;
  std::string refused = merge_refusal({shard_of(1, 2), bounded});
  EXPECT_NE(refused.find("shard 2/2 (seed 7, profile ci, backend cpu, 200 cases, commit 0d1abfb, max_tokens 64)"), std::string::npos)
      << refused;
  CampaignResult interpreted = shard_of(2, 2);
  interpreted.info.max_elements = 4096;
  interpreted.info.execution = "triton interpreter";
  refused = merge_refusal({shard_of(1, 2), interpreted});
  EXPECT_NE(refused.find("max_elements 4096, execution 'triton interpreter')"), std::string::npos) << refused;
  CampaignResult first = shard_of(1, 2);
  first.info.max_elements = 4096;
  first.info.execution = "triton interpreter";
  const CampaignResult merged = merge_results({from_json(to_json(first)), from_json(to_json(interpreted))});
  EXPECT_EQ(std::tie(merged.info.max_elements, merged.info.max_tokens, merged.info.execution),
            std::make_tuple(std::int64_t{4096}, std::int64_t{0}, std::string("triton interpreter")));
}

// Shards that stopped early (a time budget, Ctrl-C) merge into a partial campaign whose reason
// names every one of them, in shard order whatever order they are given in; whole shards
// merge into a whole campaign even after a partial one was merged.
TEST(MergeResults, EveryPartialShardIsNamedAndOnlyThenIsTheCampaignPartial) {
  const CampaignResult merged = merge_results(
      {partial_shard(3, 3, "time budget of 2 s reached"), shard_of(1, 3), partial_shard(2, 3, "interrupted")});
  EXPECT_TRUE(merged.info.partial);
  EXPECT_EQ(merged.info.partial_reason, "shard 2/3: interrupted; shard 3/3: time budget of 2 s reached");
  EXPECT_EQ(merged.info.cases_planned, 7u);
  EXPECT_EQ(merged.info.cases_run, 3u);
  EXPECT_EQ(merged.info.shard_index, 1);
  EXPECT_EQ(merged.info.shard_count, 1);
  const nlohmann::json report = to_json(merged);
  EXPECT_TRUE(report.at("run").at("partial").get<bool>());
  const CampaignResult whole = merge_results({shard_of(2, 2), shard_of(1, 2)});
  EXPECT_FALSE(whole.info.partial);
  EXPECT_EQ(whole.info.partial_reason, "");
}

}  // namespace campaign_result_test
}  // namespace
}  // namespace peconform::harness
