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

// Every sum and extreme of a cell, merged: each figure holds a value of its own in each side, so
// that a sum that became an assignment (the later side's value) or a minimum that became a maximum
// gives another number. The verifier merges a case's tallies with this, so a lost sum is lost in
// every verdict.
TEST(CellStatsMerge, CountsAddAndTheHorizonKeepsTheNearer) {
  CellStats left, right;
  left.failed_cases = 1;
  right.failed_cases = 2;
  left.identical_elements = 10;
  right.identical_elements = 20;
  left.failed_elements = 100;
  right.failed_elements = 200;
  left.unconstrained_horizon = std::ldexp(1.0, 20);
  right.unconstrained_horizon = std::ldexp(1.0, 22);
  CellStats merged = left;
  merged.merge(right);
  EXPECT_EQ(merged.failed_cases, 3u);
  EXPECT_EQ(merged.identical_elements, 30u);
  EXPECT_EQ(merged.failed_elements, 300u);
  // The horizon is where unconstrained elements begin: the merged cell's is the nearer one.
  EXPECT_EQ(merged.unconstrained_horizon, std::ldexp(1.0, 20));
  CellStats other_way = right;
  other_way.merge(left);
  EXPECT_EQ(other_way.unconstrained_horizon, std::ldexp(1.0, 20));
}

// A cell whose every ratio was 0 has no worst case; merged with a tied cell that names one, the
// named case is kept in either order, never replaced by the empty text.
TEST(CellStatsMerge, ATiedWorstRatioNeverGivesWayToACellWithoutAWorstCase) {
  const CellStats named = worst_at(0, 5, "rope(d=8) | seed=0x5");
  const CellStats unnamed = worst_at(0, 0, "");
  CellStats named_first = named;
  named_first.merge(unnamed);
  EXPECT_EQ(named_first.worst_case, "rope(d=8) | seed=0x5");
  EXPECT_EQ(named_first.worst_case_index, 5u);
  CellStats unnamed_first = unnamed;
  unnamed_first.merge(named);
  EXPECT_EQ(unnamed_first.worst_case, "rope(d=8) | seed=0x5");
  EXPECT_EQ(unnamed_first.worst_case_index, 5u);
}

// A campaign is conformant only with no failing case AND every property passing: either alone
// makes it non-conformant, and report.json's verdict says which word.
TEST(CampaignResultJson, AFailureAloneOrAFailingPropertyAloneMakesTheVerdictNonConformant) {
  CampaignResult passing;
  passing.properties.push_back({"rotation-invariance", "rope", true, 100, ""});
  EXPECT_TRUE(passing.conformant());
  EXPECT_EQ(to_json(passing).at("verdict"), "conformant");
  CampaignResult failing_case = passing;
  failing_case.failures.push_back(FailureRecord{});
  EXPECT_FALSE(failing_case.conformant());
  EXPECT_EQ(to_json(failing_case).at("verdict"), "non-conformant");
  CampaignResult failing_property = passing;
  failing_property.properties.push_back({"norm-preservation", "rope", false, 3, "falsified"});
  EXPECT_FALSE(failing_property.conformant());
  EXPECT_EQ(to_json(failing_property).at("verdict"), "non-conformant");
}

// total_elements counts every element checked in every cell (not only the bounded ones), and is
// written under its key.
TEST(CampaignResultJson, TotalElementsIsTheSumOfEveryCellsElements) {
  CampaignResult result;
  CellStats a, b;
  a.elements = 3;
  a.bounded_elements = 1;
  b.elements = 4;
  b.bounded_elements = 2;
  result.cells[{"cpu", "rope", "fp32", "exact-angle"}] = a;
  result.cells[{"cpu", "alibi", "fp32", "exact-angle"}] = b;
  EXPECT_EQ(result.total_elements(), 7u);
  EXPECT_EQ(to_json(result).at("total_elements"), 7);
}

// A cell is loose where its bounded elements all stayed under a tenth of their bound: marked in
// the cell and listed in loose_bounds. A cell with no bounded element has nothing to judge the
// bound by, and is not loose however small its (zero) ratio.
TEST(CampaignResultJson, ACellWhoseBoundedElementsStayUnderATenthIsLooseAndListed) {
  CampaignResult result;
  CellStats loose;
  loose.elements = loose.bounded_elements = 14;
  loose.worst_ratio = 0.05;
  CellStats unbounded;
  unbounded.elements = 9;
  result.cells[{"cpu", "rope", "bf16", "fp32-angle"}] = loose;
  result.cells[{"cpu", "alibi", "fp32", "exact-angle"}] = unbounded;
  const nlohmann::json json = to_json(result);
  for (const nlohmann::json& cell : json.at("cells"))
    EXPECT_EQ(cell.at("loose"), cell.at("family") == "rope") << cell.at("family");
  EXPECT_EQ(json.at("loose_bounds"),
            nlohmann::json::parse(R"([{"family": "rope", "dtype": "bf16", "precision": "fp32-angle", "worst_ratio": 0.05}])"));
}

// A cell's positional worst ratios come in kPositionBins (32) bins; a report with another count is
// refused naming both counts, never read past its end or left short.
TEST(CampaignResultJson, ACellWithAnotherNumberOfPositionBinsIsRefusedNamingBothCounts) {
  CampaignResult result;
  result.cells[{"cpu", "rope", "fp32", "exact-angle"}] = CellStats{};
  nlohmann::json json = to_json(result);
  json["cells"][0]["worst_ratio_by_position"].erase(0);
  try {
    from_json(json);
    ADD_FAILURE() << "read a cell of 31 position bins";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("worst_ratio_by_position has 31 bins, expected 32"), std::string::npos)
        << error.what();
  }
}

// A report written before campaign_cases, wait_policy and the three phase timings were recorded
// still reads, each absent fact as 0 or "".
TEST(CampaignResultJson, AnOlderReportWithoutLaterRunFactsReadsThemAsZeroOrEmpty) {
  CampaignResult result;
  result.info.campaign_cases = 5;
  result.info.wait_policy = "passive";
  result.info.escalation_seconds = result.info.shrink_seconds = result.info.property_seconds = 2.5;
  nlohmann::json json = to_json(result);
  nlohmann::json& run = json["run"];
  for (const char* key : {"wait_policy", "escalation_seconds", "shrink_seconds", "property_seconds"}) run.erase(key);
  run["shard"].erase("campaign_cases");
  const RunInfo read = from_json(json).info;
  EXPECT_EQ(read.campaign_cases, 0u);
  EXPECT_EQ(read.wait_policy, "");
  EXPECT_EQ(read.escalation_seconds, 0.0);
  EXPECT_EQ(read.shrink_seconds, 0.0);
  EXPECT_EQ(read.property_seconds, 0.0);
}

// No shard at all, and a shard numbered outside 1..count, are refused by name: the first is no
// campaign, the second no shard of it.
TEST(MergeResults, NoShardOrAShardNumberedOutOfRangeIsRefused) {
  EXPECT_EQ(merge_refusal({}), "nothing to merge");
  EXPECT_EQ(merge_refusal({shard_of(1, 2), shard_of(3, 2)}), "shard 3/2 is given twice or is out of range");
  EXPECT_EQ(merge_refusal({shard_of(0, 2), shard_of(1, 2)}), "shard 0/2 is given twice or is out of range");
}

// Every fact that makes a campaign (seed, profile, backend, filters, how many shards) refuses a
// shard that differs in it alone, naming the shard.
TEST(MergeResults, AShardOfAnotherSeedProfileBackendFiltersOrShardCountIsRefused) {
  CampaignResult seed = shard_of(2, 2), profile = shard_of(2, 2), backend = shard_of(2, 2), filters = shard_of(2, 2),
                 count = shard_of(2, 3);
  seed.info.seed = 8;
  profile.info.profile = "full";
  backend.info.backend = "triton";
  filters.info.filters = "--family rope";
  for (const CampaignResult& other : {seed, profile, backend, filters, count}) {
    const std::string refused = merge_refusal({shard_of(1, 2), other});
    EXPECT_NE(refused.find("is not from the campaign of shard 1/2"), std::string::npos)
        << other.info.seed << " " << other.info.profile << " " << other.info.backend << " " << other.info.filters << " "
        << other.info.shard_count << ": " << refused;
  }
}

// The merged run's counts and phase timings add over its shards (they ran apart); its wall time
// and threads are the largest (they ran side by side); its rates are the whole campaign's elements
// over those.
TEST(MergeResults, CountsAndPhaseTimingsAddWhileWallTimeAndThreadsTakeTheLargest) {
  CampaignResult one = shard_of(1, 2), two = shard_of(2, 2);
  one.info.regressions_replayed = 1;
  two.info.regressions_replayed = 2;
  one.info.threads = 2;
  two.info.threads = 4;
  one.info.wall_seconds = 8;
  two.info.wall_seconds = 4;
  one.info.draw_seconds = 1;
  two.info.draw_seconds = 2;
  one.info.kernel_seconds = 3;
  two.info.kernel_seconds = 4;
  one.info.verify_seconds = 0.5;
  two.info.verify_seconds = 1.5;
  one.info.escalation_seconds = 0.25;
  two.info.escalation_seconds = 0.5;
  one.info.shrink_seconds = 5;
  two.info.shrink_seconds = 6;
  one.info.property_seconds = 7;
  two.info.property_seconds = 8;
  one.cells.begin()->second.elements = 30;
  two.cells.begin()->second.elements = 50;
  for (const auto& shards : {std::vector<CampaignResult>{one, two}, std::vector<CampaignResult>{two, one}}) {
    const RunInfo merged = merge_results(shards).info;
    EXPECT_EQ(merged.regressions_replayed, 3u);
    EXPECT_EQ(merged.threads, 4);
    EXPECT_EQ(merged.wall_seconds, 8.0);
    EXPECT_EQ((std::vector<double>{merged.draw_seconds, merged.kernel_seconds, merged.verify_seconds,
                                   merged.escalation_seconds, merged.shrink_seconds, merged.property_seconds}),
              (std::vector<double>{3, 7, 2, 0.75, 11, 15}));
    EXPECT_EQ(merged.elements_per_second, 80.0 / 8);
    EXPECT_EQ(merged.verified_elements_per_second, 80.0 / 2);
  }
  // A campaign that took no measurable time has no rate, rather than an infinite one.
  one.info.wall_seconds = two.info.wall_seconds = 0;
  one.info.verify_seconds = two.info.verify_seconds = 0;
  const RunInfo instant = merge_results({one, two}).info;
  EXPECT_EQ(instant.elements_per_second, 0.0);
  EXPECT_EQ(instant.verified_elements_per_second, 0.0);
}

// The merged failures are in case-index order, as an unsharded campaign lists them, whatever
// order the shards come in.
TEST(MergeResults, FailuresOfEveryShardAreListedInCaseIndexOrder) {
  CampaignResult one = shard_of(1, 2), two = shard_of(2, 2);
  FailureRecord f3, f1;
  f3.case_index = 3;
  f3.case_text = "three";
  f1.case_index = 1;
  f1.case_text = "one";
  one.failures = {f3};
  two.failures = {f1};
  const CampaignResult merged = merge_results({one, two});
  ASSERT_EQ(merged.failures.size(), 2u);
  EXPECT_EQ(merged.failures[0].case_text, "one");
  EXPECT_EQ(merged.failures[1].case_text, "three");
}

}  // namespace campaign_result_test
}  // namespace
}  // namespace peconform::harness
