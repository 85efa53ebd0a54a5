#include <fmt/format.h>
#include <gtest/gtest.h>
#include <algorithm>
#include <map>
#include <sstream>

#include "reports/report_facts.hpp"
#include "reports/summary_markdown.hpp"
#include "sample_result.hpp"

namespace peconform {
namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Pipes that delimit table cells: those not escaped with a backslash.
long cell_delimiters(const std::string& line) {
  long count = 0;
  for (std::size_t i = 0; i < line.size(); ++i) count += line[i] == '|' && (i == 0 || line[i - 1] != '\\');
  return count;
}

TEST(SummaryMarkdown, StatesTheVerdictAndTheRun) {
  const std::string md = summary_markdown(sample_result());
  EXPECT_TRUE(md.starts_with("# peconform: non-conformant\n")) << md.substr(0, 200);
  EXPECT_TRUE(contains(md, "**Verdict: non-conformant: 2 failing cases")) << md.substr(0, 300);
  for (const char* row :
       {"| commit | b6d69c0 |", "| seed | 20261121 |", "| profile | ci |", "| shard | 1 of 1 |",
        "| wall time | 12.5 s |",
        "| verified elements/s | 4.2e+07 over the wall time, 3.4e+07 over the verifier's time |",
        "| time per phase | draw 2.25 s, kernel 6 s, verify 15.5 s (summed over cases) |", "| partial | no |"})
    EXPECT_TRUE(contains(md, row)) << row;
}

TEST(SummaryMarkdown, HasOneMatrixRowPerCellWithFourteenColumns) {
  const std::string md = summary_markdown(sample_result());
  EXPECT_TRUE(contains(md, "| cpu | rope | float32 | fp32-angle | 400 | 2 | 409600 | 9600 | 2^22.4 | 4800 | 12 | 14 | 3.5 | `"));
  EXPECT_TRUE(contains(md, "| cpu | t5 | int32 | exact | 100 | 0 | 25600 | 0 | never | 0 | 0 | 0 | 0 |  |"));
  EXPECT_TRUE(contains(md, "| cpu | sinusoidal | float32 | exact-angle | 250 | 0 | 80000 | 0 | never | 0 | 0 | 1.8 | 0.45 |"));
  std::istringstream lines(md);
  int rows = 0;
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("| cpu |")) continue;
    ++rows;
    EXPECT_EQ(cell_delimiters(line), 15) << line;  // the case text's own " | " is escaped
  }
  EXPECT_EQ(rows, 5);
}

// A kernel's message that starts with a backtick: the code span's fence is one backtick longer
// than the longest run in it, the first character's run included, and the facts keep their
// labels (the reference and actual values under their own names).
TEST(SummaryMarkdown, FencesACodeSpanThatStartsWithABacktickAndLabelsEachFact) {
  harness::CampaignResult result = sample_result();
  harness::FailureRecord& failure = result.failures.front();
  failure.message = "`x broke";
  failure.first.reference = "0x1p+0 (1)";
  failure.first.actual = "0x1.8p+0 (1.5)";
  const std::string md = summary_markdown(result);
  EXPECT_TRUE(contains(md, "- kernel said: `` `x broke ``\n")) << md;
  EXPECT_TRUE(contains(md, "- reference: `0x1p+0 (1)`\n")) << md;
  EXPECT_TRUE(contains(md, "- actual: `0x1.8p+0 (1.5)`\n")) << md;
}

TEST(SummaryMarkdown, ListsTheLooseBound) {
  const std::string md = summary_markdown(sample_result());
  EXPECT_TRUE(contains(md, fmt::format("- `{}`: worst ratio 0.02 over 5000 bounded elements\n", kLooseCell))) << md;
  for (const char* tight : {"cpu/rope/float32/fp32-angle", "cpu/sinusoidal/float32/exact-angle", "cpu/t5/int32/exact"})
    EXPECT_FALSE(contains(md, fmt::format("- `{}`:", tight))) << tight;
}

// "None." only where no cell is loose (issue 38: a mutant that wrote it in the other case survived).
TEST(SummaryMarkdown, SaysNoneUnderLooseBoundsOnlyWhenNoCellIsLoose) {
  const auto loose_section = [](const std::string& md) {
    const std::size_t start = md.find("## Loose bounds");
    return md.substr(start, md.find("\n## ", start + 1) - start);
  };
  harness::CampaignResult result = sample_result();
  EXPECT_FALSE(contains(loose_section(summary_markdown(result)), "None.\n"));
  result.cells.at({"cpu", "rope", "bfloat16", "lowp-cache"}).worst_ratio = 0.5;
  const std::string section = loose_section(summary_markdown(result));
  EXPECT_TRUE(contains(section, "None.\n")) << section;
  EXPECT_FALSE(contains(section, "- `")) << section;
}

TEST(SummaryMarkdown, ListsFailingPropertiesAndFailuresWithTheirReplayCommand) {
  const std::string md = summary_markdown(sample_result());
  EXPECT_TRUE(contains(md, "2 of 3 passed."));
  EXPECT_TRUE(contains(md, "- **sinusoid\\_matches\\_shifted\\_angle** (sinusoidal, 211 cases) failed:"));
  EXPECT_TRUE(contains(md, fmt::format("```sh\npeconform run --backend cpu --replay '{}'\n```\n", kFailingCase)));
  EXPECT_TRUE(contains(md, fmt::format("### 1. `{}`\n", kFailingCase)));
  EXPECT_TRUE(contains(md, "- first failure: `numeric in out element 21 at (0, 2, 0, 5)`\n"));
  EXPECT_TRUE(contains(md, "- error / bound: `inf`\n"));
}

TEST(SummaryMarkdown, MarksAFlakyFailureAndSaysWhichReplayPassed) {
  const std::string md = summary_markdown(sample_result());
  EXPECT_TRUE(contains(md, fmt::format("### 1. `{}`\n", kFailingCase))) << "the first failure reproduced";
  EXPECT_TRUE(contains(md, "### 2. `rope(d=8,base=10000) | batch=1 seq=1 heads=1 kv_heads=1 seed=0x00000000000000b1` (flaky)\n"))
      << md;
  EXPECT_TRUE(contains(md, "- flaky: `yes`\n"));
  EXPECT_TRUE(contains(md, "- shrinking: `flaky: replay 2 of 5 of the smaller case '")) << md;
}

// A run that stopped early says PARTIAL in its verdict line, with how far it got and why: first
// where nothing failed (no verdict yet), after the verdict where a failure decided it (issue 48).
TEST(SummaryMarkdown, SaysWhyARunIsPartial) {
  harness::CampaignResult result = sample_result();
  result.info.partial = true;
  result.info.partial_reason = "time budget of 600 s spent";
  result.info.cases_run = 300;
  std::string md = summary_markdown(result);
  EXPECT_TRUE(contains(md, "**Verdict: non-conformant: 2 failing cases")) << md.substr(0, 300);
  EXPECT_TRUE(contains(md, "properties failing (PARTIAL: 300 of 1,200 cases run, time budget of 600 s spent)**")) << md.substr(0, 300);
  EXPECT_TRUE(contains(md, "| partial | yes: time budget of 600 s spent |"));
  result.failures.clear();
  for (harness::PropertyVerdict& property : result.properties) property.passed = true;
  md = summary_markdown(result);
  EXPECT_TRUE(contains(md, "**Verdict: PARTIAL, conformant so far: 0 failing cases in ")) << md.substr(0, 300);
  EXPECT_TRUE(contains(md, "properties failing (300 of 1,200 cases run, time budget of 600 s spent)**")) << md.substr(0, 300);
}

// Where the kernel ran (check(execution=), or peconform.triton's interpreter mode) and the
// run's shape bounds are stated where set, in the verdict line and the run's table.
TEST(SummaryMarkdown, StatesTheExecutionAndTheShapeBoundsWhereSet) {
  harness::CampaignResult result = sample_result();
  EXPECT_FALSE(contains(summary_markdown(result), "execution"));
  result.info.execution = "triton 3.9.0 interpreter, as shipped";
  result.info.max_elements = 65536;
  result.info.max_tokens = 64;
  const std::string md = summary_markdown(result);
  EXPECT_TRUE(contains(md, "properties failing; execution: triton 3.9.0 interpreter, as shipped**")) << md.substr(0, 300);
  EXPECT_TRUE(contains(md, "| execution | triton 3.9.0 interpreter, as shipped |"));
  EXPECT_TRUE(contains(md, "| max elements | 65,536 per tensor |"));
  EXPECT_TRUE(contains(md, "| max tokens | 64 per call (batch x seq) |"));
}

TEST(SummaryMarkdown, ListsAtMostTwentyFiveFailures) {
  harness::CampaignResult result = sample_result();
  while (result.failures.size() < 30) result.failures.push_back(result.failures.back());
  const std::string md = summary_markdown(result);
  EXPECT_TRUE(contains(md, "### 25. "));
  EXPECT_FALSE(contains(md, "### 26. "));
  EXPECT_TRUE(contains(md, "5 more failures are listed in report.json and junit.xml.\n"));
}

// The verdict line's counts: the failures, every element the cells checked (the sample's five
// cells hold 409,600 + 5,000 + 80,000 + 60,000 + 25,600), and the properties that failed of
// those run. A report that states a wrong count is worse than none (issue 51).
TEST(SummaryMarkdown, TheVerdictLineCountsTheElementsCheckedAndThePropertiesFailing) {
  harness::CampaignResult result = sample_result();
  EXPECT_TRUE(contains(summary_markdown(result),
                       "**Verdict: non-conformant: 2 failing cases in 580,200 elements checked, 1 of 3 properties failing**\n"))
      << summary_markdown(result).substr(0, 300);
  result.properties.back().passed = true;
  result.properties.front().passed = false;
  result.properties.push_back(result.properties.front());
  result.cells.at({"cpu", "t5", "int32", "exact"}).elements += 1000;
  EXPECT_TRUE(contains(summary_markdown(result), "in 581,200 elements checked, 2 of 4 properties failing**\n"))
      << summary_markdown(result).substr(0, 300);
}

// Each fact of a failure, in order, as every report shows it: the case, what it was drawn as where
// shrinking changed it, its cell, its index in the campaign with the seed, how many elements
// failed, the first failing element (where, its inputs, both values, its ULPs and error/bound to 3
// significant digits, its bound) and the regression file. Issue 51: these were shown unchecked.
TEST(ReportFacts, AFailuresFactsStateItsCellIndexCountsAndFirstElementInOrder) {
  const harness::CampaignResult result = sample_result();
  std::vector<std::pair<std::string, std::string>> facts;
  for (const Fact& fact : failure_facts(result.failures.front())) facts.emplace_back(fact.label, fact.value);
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"case", kFailingCase},
      {"drawn as", std::string(kFailingCase) + " (before shrinking: seq=40)"},
      {"cell", "cpu/rope/float32/fp32-angle"},
      {"case index", "17 (seed 20261121)"},
      {"failing elements", "4"},
      {"first failure", "numeric in out element 21 at (0, 2, 0, 5)"},
      {"position", "131072"},
      {"input", "0x1p-1 (0.5)"},
      {"reference", "0x1.2p-2 (0.28125)"},
      {"actual", "0x1.3p-2 (0.296875)"},
      {"ulps", "4"},
      {"error / bound", "3.5"},
      {"bound", "2.4e-7 (fp32-angle)"},
      {"saved as", "fixtures/regressions/cpu-rope-17.json"}};
  EXPECT_EQ(facts, expected);
  // The nan failure was not shrunk: no "drawn as"; it is flaky, and its values are infinite.
  const auto facts_of = [](const harness::FailureRecord& f) {
    std::map<std::string, std::string> out;
    for (const Fact& fact : failure_facts(f)) out[fact.label] = fact.value;
    return out;
  };
  const std::map<std::string, std::string> nan = facts_of(result.failures.back());
  EXPECT_FALSE(nan.contains("drawn as"));
  EXPECT_EQ(nan.at("flaky"), "yes");
  EXPECT_EQ(nan.at("case index"), "42 (seed 20261121)");
  EXPECT_EQ(nan.at("failing elements"), "1");
  EXPECT_EQ(nan.at("ulps"), "inf");
  EXPECT_EQ(nan.at("error / bound"), "inf");
  // Three significant digits, whatever the magnitude.
  harness::FailureRecord small = result.failures.front();
  small.first.ulps = 1234.5;
  small.first.ratio = 0.0123456;
  EXPECT_EQ(facts_of(small).at("ulps"), "1.23e+03");
  EXPECT_EQ(facts_of(small).at("error / bound"), "0.0123");
}

// The run's filters read "none" where the run had none, else the filters given.
TEST(SummaryMarkdown, TheRunTableSaysNoneForNoFilters) {
  harness::CampaignResult result = sample_result();
  EXPECT_TRUE(contains(summary_markdown(result), "| filters | none |\n"));
  result.info.filters = "family=rope";
  EXPECT_TRUE(contains(summary_markdown(result), "| filters | family=rope |\n"));
}

// A worst ratio of exactly kLooseRatio (0.1) is not loose: the bound is "below 0.1".
TEST(SummaryMarkdown, ACellAtExactlyTheLooseRatioIsNotLoose) {
  harness::CampaignResult result = sample_result();
  result.cells.at({"cpu", "rope", "bfloat16", "lowp-cache"}).worst_ratio = harness::kLooseRatio;
  const std::string md = summary_markdown(result);
  EXPECT_FALSE(contains(md, fmt::format("- `{}`:", kLooseCell))) << md;
  EXPECT_TRUE(contains(md, "stayed below 0.1 of the bound: a kernel that much worse would still pass.\n\nNone.\n")) << md;
}

// Only failed properties are listed, each with its message in a text block; with every failure
// shown there is no "more failures" line, and with none the section says so.
TEST(SummaryMarkdown, ListsOnlyFailedPropertiesAndSaysNoneWithoutFailures) {
  harness::CampaignResult result = sample_result();
  std::string md = summary_markdown(result);
  EXPECT_TRUE(contains(md, "failed:\n\n```text\nFalsifiable after 211 tests\n")) << md;
  EXPECT_FALSE(contains(md, "rope\\_preserves\\_pair\\_norm")) << md;
  EXPECT_FALSE(contains(md, "more failures are listed")) << md;
  result.failures.clear();
  md = summary_markdown(result);
  EXPECT_TRUE(md.ends_with("\n## Failures\n\nNone.\n")) << md;
}

// Inline text escapes every character that could start markup, end a table cell or start an
// entity, and keeps a value on its one line; a code span does the same with spaces for line
// breaks, and an empty one is padded so that its fence is not read as a longer fence.
TEST(SummaryMarkdown, InlineTextAndCodeSpansStayLiteralAndOnOneLine) {
  harness::CampaignResult result = sample_result();
  result.info.filters = "a*b[c]<d>|e~f&g`h\\i_j\nk\rl";
  result.failures.front().first.reference = "";
  result.failures.front().first.actual = "x\ny\rz";
  const std::string md = summary_markdown(result);
  EXPECT_TRUE(contains(md, "| filters | a\\*b\\[c\\]\\<d\\>\\|e\\~f\\&g\\`h\\\\i\\_j k l |\n")) << md;
  EXPECT_TRUE(contains(md, "- reference: `  `\n")) << md;
  EXPECT_TRUE(contains(md, "- actual: `x y z`\n")) << md;
}

// A text block holding a fence of three backticks gets a longer fence, so that it does not end
// the block early.
TEST(SummaryMarkdown, ATextBlockHoldingAFenceGetsALongerOne) {
  harness::CampaignResult result = sample_result();
  result.properties.back().message = "Falsifiable\n```\nnot the end";
  EXPECT_TRUE(contains(summary_markdown(result), "failed:\n\n````text\nFalsifiable\n```\nnot the end\n````\n"))
      << summary_markdown(result);
}

// The run table's and the matrix's headers, and the matrix's alignment row (counts to the right).
TEST(SummaryMarkdown, TheTablesHaveTheirHeaders) {
  const std::string md = summary_markdown(sample_result());
  EXPECT_TRUE(contains(md, "**\n\n| Run | |\n|---|---|\n| commit | b6d69c0 |\n")) << md;
  EXPECT_TRUE(contains(md,
                       "\n## Conformance matrix\n\n| Backend | Family | Dtype | Class | Cases | Failed | Elements | Unconstrained | "
                       "Unconstrained from \\|φ\\| | Norm-checked pairs | Escalations | Max ULP | Worst ratio | Worst case |\n"
                       "|---|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|\n| cpu |"))
      << md;
}

}  // namespace
}  // namespace peconform
