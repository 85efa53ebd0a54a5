#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <regex>

#include "reports/report_facts.hpp"
#include "reports/report_html.hpp"
#include "reports/xml_escape.hpp"
#include "sample_result.hpp"
#include "support/scratch_dir.hpp"

namespace peconform {
namespace {

const std::string kChromium = "/usr/bin/chromium";

// --no-sandbox: the sandbox cannot start as root or in most CI containers, and the page is
// our own. A profile in the scratch directory keeps runs apart; timeout bounds a hung browser.
ToolRun chromium(const ScratchDir& dir, const std::string& arguments) {
  return run_tool(fmt::format("timeout 60 {} --headless --no-sandbox --disable-gpu --user-data-dir={} {} file://{}",
                              kChromium, shell_quote((dir.path() / "profile").string()), arguments,
                              shell_quote((dir.path() / "report.html").string())));
}

std::size_t occurrences(const std::string& text, const std::string& part) {
  std::size_t count = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++count;
  return count;
}

TEST(ReportHtml, IsSelfContained) {
  const std::string html = report_html(sample_result());
  EXPECT_TRUE(html.starts_with("<!DOCTYPE html>"));
  EXPECT_NE(html.find("<title>peconform conformance report</title>"), std::string::npos);
  const std::string without_svg_namespace =
      std::regex_replace(html, std::regex(R"(xmlns="http://www\.w3\.org/2000/svg")"), "");
  EXPECT_EQ(without_svg_namespace.find("http://"), std::string::npos);
  EXPECT_EQ(without_svg_namespace.find("https://"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find('\x01'), std::string::npos);
}

TEST(ReportHtml, MarksAFlakyFailure) {
  const std::string html = report_html(sample_result());
  EXPECT_EQ(occurrences(html, " (flaky)</h3>"), 1u);
  EXPECT_NE(html.find("<tr><th>shrinking</th><td><code>flaky: replay 2 of 5 of the smaller case "), std::string::npos);
}

TEST(ReportHtml, TheMatrixCountsThePairsWhoseNormWasCheckedPastTheHorizon) {
  const std::string html = report_html(sample_result());
  EXPECT_NE(html.find("<th>Norm-checked pairs</th>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"n\">2^22.4</td><td class=\"n\">4,800</td>"), std::string::npos);
}

TEST(ReportHtml, PlotsEachFamilyWithBoundedElements) {
  const std::string html = report_html(sample_result());
  // rope, sinusoidal and alibi have a position plot and a histogram; t5 compares bit for bit.
  EXPECT_EQ(occurrences(html, "<svg "), 6u);
  EXPECT_EQ(occurrences(html, "<svg "), occurrences(html, "</svg>"));
  EXPECT_NE(html.find("<title>rope: worst error/bound ratio against position</title>"), std::string::npos);
  EXPECT_NE(html.find("<title>alibi: distribution of error/bound ratios</title>"), std::string::npos);
  EXPECT_NE(html.find("<title>positions [2^16, 2^17): worst error/bound 1.75</title>"), std::string::npos);
  EXPECT_NE(html.find(">2<tspan dy=\"-6\" font-size=\"9\">31</tspan>"), std::string::npos);
  EXPECT_NE(html.find("No element checked against a finite bound"), std::string::npos);
}

// Each histogram bar spans its ratio bin: a visible width, never a zero-width rect.
TEST(ReportHtml, HistogramBarsSpanTheirBin) {
  const std::string html = report_html(sample_result());
  const std::regex bar("<rect x=\"[^\"]*\" y=\"[^\"]*\" width=\"([0-9.]+)\" height=\"[^\"]*\" fill=\"#[^\"]*\"><title>");
  int bars = 0;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), bar); it != std::sregex_iterator(); ++it, ++bars)
    EXPECT_GT(std::stod((*it)[1]), 1.0) << (*it)[0];
  EXPECT_GT(bars, 0);
}

TEST(ReportHtml, DrawsAnInfiniteRatioOnTheTopEdgeAndPrintsItAsInf) {
  harness::CampaignResult result = sample_result();
  harness::CellStats& alibi = result.cells.at({"cpu", "alibi", "float16", "fp32-angle"});
  alibi.worst_ratio = alibi.worst_ratio_by_position[5] = INFINITY;
  const std::string html = report_html(result);
  EXPECT_NE(html.find("<title>positions [2^4, 2^5): worst error/bound inf</title>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"n\">inf</td>"), std::string::npos);
  // Coordinates stay finite: the point is clamped to the axis.
  EXPECT_EQ(html.find("=\"inf"), std::string::npos);
  EXPECT_EQ(html.find("=\"nan"), std::string::npos);
  EXPECT_EQ(html.find(",inf"), std::string::npos);
}

// An infinite ratio is drawn one step above every finite one, so that a cell's worst finite
// ratio at a power of two (here 4, at the top of its own axis) never hides it.
TEST(ReportHtml, AnInfiniteRatioIsDrawnAboveTheWorstFiniteOne) {
  harness::CampaignResult result = sample_result();
  harness::CellStats& alibi = result.cells.at({"cpu", "alibi", "float16", "fp32-angle"});
  alibi.worst_ratio = alibi.worst_ratio_by_position[5] = INFINITY;
  alibi.worst_ratio_by_position[6] = 4;
  const std::string html = report_html(result);
  const auto height_of = [&](const std::string& title) {
    const std::regex point("<circle cx=\"[0-9.]+\" cy=\"([0-9.]+)\" r=\"3.5\" fill=\"[^\"]*\"><title>" + title + "</title>");
    std::smatch found;
    EXPECT_TRUE(std::regex_search(html, found, point)) << title;
    return found.empty() ? 0.0 : std::stod(found[1]);
  };
  // SVG's y grows downwards.
  EXPECT_LT(height_of("positions \\[2\\^4, 2\\^5\\): worst error/bound inf"),
            height_of("positions \\[2\\^5, 2\\^6\\): worst error/bound 4"));
}

// The histogram's first bin holds every ratio below its upper edge, zero included, and says so.
TEST(ReportHtml, TheFirstHistogramBinNamesItsUpperEdgeAndZero) {
  harness::CampaignResult result = sample_result();
  result.cells.at({"cpu", "alibi", "float16", "fp32-angle"}).ratio_histogram[0] = 5;
  const std::string html = report_html(result);
  const std::string label = fmt::format("ratios below 2^{} (and zero): 5 elements", 4 - harness::kRatioBins);
  EXPECT_NE(html.find(label), std::string::npos) << label;
}

// A failure saved to the regression corpus says where; one that was not saved says nothing.
TEST(ReportHtml, AFailureSavedToTheCorpusNamesItsFile) {
  const std::string html = report_html(sample_result());
  EXPECT_NE(html.find("fixtures/regressions/cpu-rope-17.json"), std::string::npos);
  EXPECT_EQ(occurrences(html, ">saved as<"), 1u) << "the sample's NaN failure was not saved";
}

// A cell's failures are its own: same backend, family, dtype and class.
TEST(ReportHtml, EachCellListsOnlyItsOwnFailures) {
  harness::CampaignResult result = sample_result();
  for (const harness::FailureRecord& failure : result.failures) {
    const std::vector<const harness::FailureRecord*> own =
        failures_of(result, {failure.cell_backend, failure.cell_family, failure.cell_dtype, failure.cell_precision});
    EXPECT_NE(std::find(own.begin(), own.end(), &failure), own.end()) << failure.case_text;
    for (const std::string family : {"alibi", "sinusoidal", "t5", "xl"}) {
      if (family == failure.cell_family) continue;
      EXPECT_TRUE(failures_of(result, {failure.cell_backend, family, failure.cell_dtype, failure.cell_precision}).empty())
          << family << " took " << failure.case_text;
    }
  }
}

TEST(ReportHtml, FailingCasesComeFirstAsCardsWithTheReplayLineOfTheJson) {
  const harness::CampaignResult result = sample_result();
  const std::string html = report_html(result);
  EXPECT_LT(html.find("<h2>Failing cases</h2>"), html.find("<h2>Overview</h2>"));
  EXPECT_EQ(occurrences(html, "<article class=\"card\""), 2u);
  for (const harness::FailureRecord& f : result.failures)
    EXPECT_EQ(occurrences(html, "<pre class=\"replay\">" + xml_text(f.replay_command) + "</pre>"), 1u) << f.replay_command;
  EXPECT_NE(html.find("<h3>1. numeric in <a href=\"#cell/cpu/rope/float32/fp32-angle\">cpu/rope/float32/fp32-angle</a></h3>"),
            std::string::npos);
  EXPECT_NE(html.find("<dt>element</dt><dd>out element 21 at (0, 2, 0, 5); 4 failing in this case</dd>\n"
                      "<dt>position</dt><dd>131072</dd>\n<dt>reference</dt><dd><code>0x1.2p-2 (0.28125)</code></dd>\n"
                      "<dt>actual</dt><dd><code>0x1.3p-2 (0.296875)</code></dd>\n<dt>error / bound</dt><dd>3.5</dd>\n"
                      "<dt>kind</dt><dd>numeric</dd>"),
            std::string::npos);
}

// Issue 38: a mutant that wrote no row, or an empty "cases" value, survived every test.
// Each value is what the RunInfo below gives, formatted by hand; planned and run differ, so
// neither stands in for the other.
TEST(ReportHtml, TheRunTableHoldsEachFactUnderItsLabel) {
  harness::CampaignResult result = sample_result();
  result.info.cases_run = 1100;
  result.info.filters = "--family rope";
  result.info.shard_index = 2;
  result.info.shard_count = 3;
  result.info.partial = true;
  result.info.partial_reason = "out of time";
  const std::string html = report_html(result);
  const std::size_t start = html.find("<h2>Run</h2>");
  ASSERT_NE(start, std::string::npos);
  EXPECT_EQ(html.substr(start, html.find("</table>\n", start) + 9 - start),
                "<h2>Run</h2>\n<table>\n"
                "<tr><th>commit</th><td>b6d69c0</td></tr>\n<tr><th>tool version</th><td>0.1.0</td></tr>\n"
                "<tr><th>machine</th><td>ci-runner-7</td></tr>\n<tr><th>compiler</th><td>GNU 12.2.0</td></tr>\n"
                "<tr><th>seed</th><td>20261121</td></tr>\n<tr><th>profile</th><td>ci</td></tr>\n"
                "<tr><th>backend</th><td>cpu</td></tr>\n<tr><th>filters</th><td>--family rope</td></tr>\n"
                "<tr><th>shard</th><td>2 of 3</td></tr>\n<tr><th>threads</th><td>2</td></tr>\n"
                "<tr><th>cases</th><td>1100 run of 1200 planned, 3 regressions replayed</td></tr>\n"
                "<tr><th>wall time</th><td>12.5 s</td></tr>\n"
                "<tr><th>time per phase</th><td>draw 2.25 s, kernel 6 s, verify 15.5 s (summed over cases)</td></tr>\n"
                "<tr><th>verified elements/s</th><td>4.2e+07 over the wall time, 3.4e+07 over the verifier's time</td></tr>\n"
                "<tr><th>partial</th><td>yes: out of time</td></tr>\n</table>\n");
}

TEST(ReportHtml, TheRunTableAndTheVerdictStateTheExecutionWhereSet) {
  harness::CampaignResult result = sample_result();
  result.info.execution = "triton <3.9.0> interpreter";
  result.info.max_tokens = 64;
  const std::string html = report_html(result);
  EXPECT_NE(html.find("<tr><th>max tokens</th><td>64 per call (batch x seq)</td></tr>\n"
                      "<tr><th>execution</th><td>triton &lt;3.9.0&gt; interpreter</td></tr>\n</table>\n"),
            std::string::npos);
  EXPECT_NE(html.find("properties failing; execution: triton &lt;3.9.0&gt; interpreter</p>"), std::string::npos);
}

TEST(ReportHtml, TheVerdictLineIsMarkedPassOrFail) {
  harness::CampaignResult result = sample_result();
  EXPECT_NE(report_html(result).find("<p class=\"verdict fail\">"), std::string::npos);
  result.failures.clear();
  for (harness::PropertyVerdict& property : result.properties) property.passed = true;
  ASSERT_TRUE(result.conformant());
  EXPECT_NE(report_html(result).find("<p class=\"verdict pass\">"), std::string::npos);
  // Stopped before its planned cases ran, the same result found nothing wrong yet: no green badge.
  result.info.partial = true;
  result.info.partial_reason = "time budget of 5 s reached";
  EXPECT_NE(report_html(result).find("<p class=\"verdict partial\">PARTIAL, conformant so far"), std::string::npos);
}

// Bin b spans [b, b + 1) on the position plot's x axis [0, 32], its left edge position 2^(b - 1):
// the tick 2^4 sits at x = 5, 70 + 5/32 · 470 = 143.4 px, and 2^8 at x = 9, 202.2 px (the plot
// is 470 px wide from x = 70; tick labels 18 px below its bottom edge at 264).
TEST(ReportHtml, PositionTicksSitOnTheLeftEdgeOfTheirBin) {
  const std::string html = report_html(sample_result());
  EXPECT_NE(html.find("<text x=\"143.4\" y=\"282.0\" text-anchor=\"middle\">2<tspan dy=\"-6\" font-size=\"9\">4</tspan></text>"),
            std::string::npos);
  EXPECT_NE(html.find("<text x=\"202.2\" y=\"282.0\" text-anchor=\"middle\">2<tspan dy=\"-6\" font-size=\"9\">8</tspan></text>"),
            std::string::npos);
}

TEST(ReportHtml, AConformantReportHasNoCards) {
  harness::CampaignResult result = sample_result();
  result.failures.clear();
  const std::string html = report_html(result);
  EXPECT_EQ(html.find("Failing cases"), std::string::npos);
  EXPECT_EQ(html.find("class=\"card\""), std::string::npos);
}

// A kernel failing hundreds of cases still shows the grid near the top: cards past the tenth are folded.
TEST(ReportHtml, CardsPastTheTenthAreFolded) {
  harness::CampaignResult result = sample_result();
  while (result.failures.size() < 12) result.failures.push_back(result.failures[0]);
  const std::string html = report_html(result);
  EXPECT_EQ(occurrences(html, "<article class=\"card\""), 12u);
  const std::size_t fold = html.find("<details><summary>2 more failing cases</summary>");
  ASSERT_NE(fold, std::string::npos);
  EXPECT_LT(html.find("<article class=\"card\" id=\"failure/10\">"), fold);
  EXPECT_GT(html.find("<article class=\"card\" id=\"failure/11\">"), fold);
}

TEST(ReportHtml, EveryLinkLandsOnOneId) {
  const std::string html = report_html(sample_result());
  const std::regex link("href=\"#([^\"]+)\"");
  int links = 0;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), link); it != std::sregex_iterator(); ++it, ++links)
    EXPECT_EQ(occurrences(html, fmt::format("id=\"{}\"", (*it)[1].str())), 1u) << (*it)[1];
  // Five grid cells, four family headers, two cards, one loose cell.
  EXPECT_EQ(links, 12);
}

TEST(ReportHtml, CountsAreGroupedAndLongOnesShortened) {
  const std::string html = report_html(sample_result());
  EXPECT_NE(html.find("<td class=\"n\" title=\"409,600\">4.1e5</td>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"n\">5,000</td>"), std::string::npos);
  EXPECT_NE(html.find("worst ratio 0.02 over 5,000 bounded elements"), std::string::npos);
}

TEST(ReportHtml, TheWorstCaseIsFoldedUnderItsSpec) {
  harness::CampaignResult result = sample_result();
  std::string factors = "1.5";
  for (int i = 1; i < 64; ++i) factors += ",1.5";
  const std::string longrope = "rope(d=128,scaling=longrope(short=[" + factors + "])) | batch=1 seq=2";
  result.cells.at({"cpu", "sinusoidal", "float32", "exact-angle"}).worst_case = longrope;
  const std::string html = report_html(result);
  EXPECT_NE(html.find("<td class=\"case\"><details><summary><code>rope(d=128,scaling=longrope(short=[64 values]))</code>"
                      "</summary><code>" + longrope + "</code></details></td>"),
            std::string::npos);
}

TEST(ReportHtml, RendersInHeadlessChromium) {
  ASSERT_TRUE(tool_installed(kChromium, "chromium"));
  const ScratchDir dir;
  dir.write("report.html", report_html(sample_result()));
  const std::filesystem::path png = dir.path() / "report.png";
  const ToolRun shot = chromium(dir, fmt::format("--screenshot={} --window-size=1400,2000", shell_quote(png.string())));
  ASSERT_EQ(shot.exit_code, 0) << shot.output;
  ASSERT_TRUE(std::filesystem::exists(png)) << shot.output;
  EXPECT_GT(std::filesystem::file_size(png), 50'000u);
  EXPECT_EQ(dir.read("report.png").substr(0, 8), "\x89PNG\r\n\x1a\n");

  const ToolRun dom = chromium(dir, "--dump-dom");
  ASSERT_EQ(dom.exit_code, 0) << dom.output;
  EXPECT_NE(dom.output.find("non-conformant: 2 failing cases"), std::string::npos);
  EXPECT_NE(dom.output.find("<td>sinusoidal</td>"), std::string::npos);
  EXPECT_NE(dom.output.find("sinusoidal(d=32) | batch=1 seq=64 order=bsd seed=0x2f"), std::string::npos);
  // The DOM is serialised with < and & escaped, as xml_text writes them.
  EXPECT_NE(dom.output.find(xml_text(kFailingCase)), std::string::npos);
  EXPECT_NE(dom.output.find(fmt::format("<code>{}</code>", kLooseCell)), std::string::npos);
  EXPECT_EQ(occurrences(dom.output, "<svg"), 6u);
}

// The part of `html` from `start` to the next `end`.
std::string section(const std::string& html, const std::string& start, const std::string& end) {
  const std::size_t from = html.find(start);
  if (from == std::string::npos) return "";
  return html.substr(from, html.find(end, from + start.size()) - from);
}

// Each row of the cell table states its cell's own counts under their columns: cases, failed
// cases, elements (short past 10,000, exact on hovering), unconstrained elements, the horizon,
// norm-checked pairs, escalations, max ULP, worst ratio and the worst case (an empty cell where
// there is none); the row is marked fail for a failed case, else loose. Issue 51: a count in
// the wrong column went unseen.
TEST(ReportHtml, EachCellRowStatesItsOwnCountsUnderTheirColumns) {
  const std::string html = report_html(sample_result());
  EXPECT_NE(html.find("<tr id=\"cell/cpu/rope/float32/fp32-angle\" class=\"fail\"><td>cpu</td><td>rope</td><td>float32</td>"
                      "<td>fp32-angle</td><td class=\"n\">400</td><td class=\"n\">2</td><td class=\"n\" title=\"409,600\">4.1e5</td>"
                      "<td class=\"n\">9,600</td><td class=\"n\">2^22.4</td><td class=\"n\">4,800</td><td class=\"n\">12</td>"
                      "<td class=\"n\">14</td><td class=\"n\">3.5</td><td class=\"case\">"),
            std::string::npos)
      << section(html, "<h2>Every cell</h2>", "</table>");
  EXPECT_NE(html.find("<tr id=\"cell/cpu/t5/int32/exact\"><td>cpu</td><td>t5</td><td>int32</td><td>exact</td><td class=\"n\">100</td>"
                      "<td class=\"n\">0</td><td class=\"n\" title=\"25,600\">2.6e4</td><td class=\"n\">0</td><td class=\"n\">never</td>"
                      "<td class=\"n\">0</td><td class=\"n\">0</td><td class=\"n\">0</td><td class=\"n\">0</td><td></td></tr>\n"),
            std::string::npos)
      << section(html, "<h2>Every cell</h2>", "</table>");
  EXPECT_NE(html.find(fmt::format("<tr id=\"cell/{}\" class=\"loose\">", kLooseCell)), std::string::npos);
  EXPECT_NE(html.find("<tr id=\"cell/cpu/sinusoidal/float32/exact-angle\"><td>"), std::string::npos) << "neither failed nor loose";
  // One failed case is enough to mark a row, even a loose one.
  harness::CampaignResult one = sample_result();
  one.cells.at({"cpu", "rope", "bfloat16", "lowp-cache"}).failed_cases = 1;
  EXPECT_NE(report_html(one).find(fmt::format("<tr id=\"cell/{}\" class=\"fail\">", kLooseCell)), std::string::npos);
}

// Counts are exact below 10,000 and shortened from 10,000 on, the exact count on hovering.
TEST(ReportHtml, CountsAreShortenedFromTenThousandOn) {
  harness::CampaignResult result = sample_result();
  harness::CellStats& t5 = result.cells.at({"cpu", "t5", "int32", "exact"});
  t5.norm_checked_pairs = 9'999;
  t5.escalations = 10'000;
  const std::string row = section(report_html(result), "<tr id=\"cell/cpu/t5/int32/exact\">", "</tr>");
  EXPECT_NE(row.find("<td class=\"n\">9,999</td>"), std::string::npos) << row;
  EXPECT_NE(row.find("<td class=\"n\" title=\"10,000\">"), std::string::npos) << row;
  EXPECT_EQ(row.find("<td class=\"n\">10,000</td>"), std::string::npos) << row;
}

// A family's histogram counts the elements of all its cells in each ratio bin (summed, not the
// last cell's), draws a bar only for a bin that holds some, names each bin's range, and draws
// the bins from ratio 1 up, which broke the bound, in red.
TEST(ReportHtml, AFamilysHistogramSumsItsCellsElementsPerBin) {
  harness::CampaignResult result = sample_result();
  harness::CellStats& fp32 = result.cells.at({"cpu", "rope", "float32", "fp32-angle"});
  harness::CellStats& bf16 = result.cells.at({"cpu", "rope", "bfloat16", "lowp-cache"});
  fp32.ratio_histogram = {};
  bf16.ratio_histogram = {};
  fp32.ratio_histogram[10] = 1;
  bf16.ratio_histogram[10] = 1;
  bf16.ratio_histogram[harness::kRatioBins - 4] = 7;  // ratios [2^-1, 2^0): within the bound
  fp32.ratio_histogram[harness::kRatioBins - 3] = 5;  // ratios [2^0, 2^1): past it
  fp32.ratio_histogram[harness::kRatioBins - 1] = 3;
  const std::string chart = section(report_html(result), "<title>rope: distribution of error/bound ratios</title>", "</svg>");
  ASSERT_FALSE(chart.empty());
  EXPECT_EQ(occurrences(chart, "<title>ratios"), 4u) << chart;
  const std::regex bar("fill=\"(#[0-9a-f]+)\"><title>([^<]*)</title>");
  std::vector<std::pair<std::string, std::string>> bars;
  for (auto it = std::sregex_iterator(chart.begin(), chart.end(), bar); it != std::sregex_iterator(); ++it)
    bars.emplace_back((*it)[2].str(), (*it)[1].str());
  const int exponent = 10 - harness::kRatioBins + 3;  // bin i holds [2^(i - kRatioBins + 3), twice that)
  const std::vector<std::pair<std::string, std::string>> expected = {
      {fmt::format("ratios [2^{}, 2^{}): 2 elements", exponent, exponent + 1), "#2b6cb0"},
      {"ratios [2^-1, 2^0): 7 elements", "#2b6cb0"},
      {"ratios [2^0, 2^1): 5 elements", "#c53030"},
      {fmt::format("ratios from 2^{}: 3 elements", harness::kRatioBins - 1 - harness::kRatioBins + 3), "#c53030"}};
  EXPECT_EQ(bars, expected) << chart;
}

// A family whose bounded elements were all exact has no ratio to plot against position: it says
// so, and draws its histogram alone.
TEST(ReportHtml, AFamilyWhoseElementsWereAllExactSaysSoInsteadOfAPositionChart) {
  harness::CampaignResult result = sample_result();
  result.cells.at({"cpu", "alibi", "float16", "fp32-angle"}).worst_ratio_by_position = {};
  const std::string html = report_html(result);
  const std::string alibi = section(html, "<h3 id=\"plots/alibi\">", "<h3 ");
  EXPECT_NE(alibi.find("<p>Every bounded element was exact.</p>"), std::string::npos) << alibi;
  EXPECT_EQ(alibi.find("worst error/bound ratio against position"), std::string::npos) << alibi;
  EXPECT_EQ(occurrences(alibi, "<svg "), 1u) << alibi;
  EXPECT_EQ(occurrences(html, "Every bounded element was exact."), 1u);
}

// The properties section counts those that passed, lists each with its verdict (a failed one
// marked fail, with its message), and has no table when there are none.
TEST(ReportHtml, ThePropertiesSectionCountsThePassedAndMarksTheFailed) {
  harness::CampaignResult result = sample_result();
  std::string html = report_html(result);
  EXPECT_NE(html.find("<h2>Properties</h2>\n<p>2 of 3 passed.</p>\n"), std::string::npos);
  EXPECT_NE(html.find("<tr><td>rope_preserves_pair_norm</td><td>rope xpos</td><td class=\"n\">4,000</td><td>passed</td><td></td></tr>"),
            std::string::npos)
      << section(html, "<h2>Properties</h2>", "</table>");
  EXPECT_NE(html.find("<tr class=\"fail\"><td>sinusoid_matches_shifted_angle</td><td>sinusoidal</td><td class=\"n\">211</td>"
                      "<td>failed</td><td><pre>Falsifiable after 211 tests\n"),
            std::string::npos)
      << section(html, "<h2>Properties</h2>", "</table>");
  result.properties.clear();
  html = report_html(result);
  EXPECT_NE(html.find("<h2>Properties</h2>\n<p>0 of 0 passed.</p>\n"), std::string::npos);
  EXPECT_EQ(html.find("<th>Property</th>"), std::string::npos);
}

// The loose section names the ratio it means, and says "None." only when no cell is loose.
TEST(ReportHtml, TheLooseSectionNamesItsRatioAndSaysNoneOnlyWithoutALooseCell) {
  harness::CampaignResult result = sample_result();
  std::string loose = section(report_html(result), "<h2>Loose bounds</h2>", "<h2>");
  EXPECT_NE(loose.find("<p>Cells whose worst error stayed below 0.1 of the bound: a kernel that much worse would still pass.</p>"),
            std::string::npos)
      << loose;
  EXPECT_EQ(loose.find("<p>None.</p>"), std::string::npos) << loose;
  result.cells.at({"cpu", "rope", "bfloat16", "lowp-cache"}).worst_ratio = 0.5;
  loose = section(report_html(result), "<h2>Loose bounds</h2>", "<h2>");
  EXPECT_NE(loose.find("<p>None.</p>"), std::string::npos) << loose;
  EXPECT_EQ(loose.find("<li>"), std::string::npos) << loose;
}

// The exponents of the power-of-`base` tick labels anchored `anchor` in `svg`, in order.
std::vector<int> tick_exponents(const std::string& svg, const std::string& anchor, const std::string& base) {
  const std::regex tick("text-anchor=\"" + anchor + "\">" + base + "<tspan dy=\"-6\" font-size=\"9\">(-?[0-9]+)</tspan>");
  std::vector<int> out;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), tick); it != std::sregex_iterator(); ++it) out.push_back(std::stoi((*it)[1]));
  return out;
}

// The position chart (its plot 470 px wide from x = 70 over bins [0, 32], labels 18 px below
// its bottom edge at 264): an x tick "0" at the left edge and the axis labels; a y axis from
// floor(log2) of the smallest ratio to ceil(log2) of the largest, ticked every ceil(span / 8)
// powers of 2 (rope's sample: 3.5 · 2^-17 at bin 1 up to 3.5, so -16 to 2, every 3); the dashed
// "bound" guide at ratio 1; and the first and last bins named "position 0" and "positions from
// 2^30". However close to 1 the ratios, the y axis spans at least [-1, 1].
TEST(ReportHtml, ThePositionChartsAxesGuideAndEndBinsStandWhereItsScalesPutThem) {
  harness::CampaignResult result = sample_result();
  harness::CellStats& sinusoidal = result.cells.at({"cpu", "sinusoidal", "float32", "exact-angle"});
  sinusoidal.worst_ratio_by_position[0] = 0.5;
  sinusoidal.worst_ratio_by_position[harness::kPositionBins - 1] = 0.25;
  // A family whose only ratio is 1 still spans [-1, 1], the bound in view with a step each side.
  harness::CellStats& alibi = result.cells.at({"cpu", "alibi", "float16", "fp32-angle"});
  alibi.worst_ratio_by_position = {};
  alibi.worst_ratio_by_position[5] = 1;
  const std::string html = report_html(result);
  EXPECT_EQ(tick_exponents(section(html, "<title>alibi: worst error/bound ratio against position</title>", "</svg>"), "end", "2"),
            (std::vector<int>{-1, 0, 1}));
  const std::string rope = section(html, "<title>rope: worst error/bound ratio against position</title>", "</svg>");
  ASSERT_FALSE(rope.empty());
  EXPECT_NE(rope.find("<text x=\"70.0\" y=\"282.0\" text-anchor=\"middle\">0</text>"), std::string::npos) << rope;
  EXPECT_NE(rope.find("text-anchor=\"middle\">position (log scale)</text>"), std::string::npos) << rope;
  EXPECT_NE(rope.find(">worst error / bound (log scale)</text>"), std::string::npos) << rope;
  EXPECT_EQ(tick_exponents(rope, "end", "2"), (std::vector<int>{-15, -12, -9, -6, -3, 0})) << rope;
  // Positions: a tick every fourth power of two, and the last bin's 2^31 at the axis' end.
  EXPECT_EQ(tick_exponents(rope, "middle", "2"), (std::vector<int>{4, 8, 12, 16, 20, 24, 28, 31})) << rope;
  // The guide across the plot at log2 ratio 0: 2/18 of the 248 px height below the top at 16.
  const std::string y = fmt::format("{:.1f}", 16 + 248 * (2.0 / 18));
  EXPECT_NE(rope.find(fmt::format("<line x1=\"70.0\" y1=\"{0}\" x2=\"540.0\" y2=\"{0}\" stroke=\"#c53030\" stroke-dasharray=\"6 4\" "
                                  "stroke-width=\"1.5\"/><text x=\"536.0\" y=\"{1:.1f}\" fill=\"#c53030\" text-anchor=\"end\">bound</text>",
                                  y, std::stod(y) - 4)),
            std::string::npos)
      << rope;
  const std::string sine = section(html, "<title>sinusoidal: worst error/bound ratio against position</title>", "</svg>");
  EXPECT_NE(sine.find("<title>position 0: worst error/bound 0.5</title>"), std::string::npos) << sine;
  EXPECT_NE(sine.find("<title>positions from 2^30: worst error/bound 0.25</title>"), std::string::npos) << sine;
}

// The histogram (470 px over bins [0, 28]): x ticks every 4 bins from bin 1, each at its left edge
// 2^(bin - 25); a y axis of log10(1 + count) up to ceil(log10(1 + the fullest bin)), ticked 1,
// 10, 10^2 ... (a bin of 400 elements: top 3); and the dashed "bound" guide up at bin 25, ratio 1.
TEST(ReportHtml, TheHistogramsTicksAndGuideStandWhereItsScalesPutThem) {
  harness::CampaignResult result = sample_result();
  result.cells.at({"cpu", "rope", "float32", "fp32-angle"}).ratio_histogram = {};
  result.cells.at({"cpu", "rope", "bfloat16", "lowp-cache"}).ratio_histogram = {};
  result.cells.at({"cpu", "rope", "float32", "fp32-angle"}).ratio_histogram[10] = 400;
  const std::string rope = section(report_html(result), "<title>rope: distribution of error/bound ratios</title>", "</svg>");
  ASSERT_FALSE(rope.empty());
  EXPECT_EQ(tick_exponents(rope, "middle", "2"), (std::vector<int>{-24, -20, -16, -12, -8, -4, 0})) << rope;
  EXPECT_NE(rope.find(fmt::format("<text x=\"{:.1f}\" y=\"282.0\" text-anchor=\"middle\">2<tspan dy=\"-6\" font-size=\"9\">-24</tspan>",
                                  70 + 470.0 / 28)),
            std::string::npos)
      << rope;
  EXPECT_NE(rope.find("text-anchor=\"end\">1</text>"), std::string::npos) << rope;
  EXPECT_EQ(tick_exponents(rope, "end", "10"), (std::vector<int>{1, 2})) << rope;
  // The bar's top: log10(401) of a top of 3.
  EXPECT_NE(rope.find(fmt::format("y=\"{:.1f}\"", 16 + 248 * (1 - std::log10(401.0) / 3))), std::string::npos) << rope;
  const std::string x = fmt::format("{:.1f}", 70 + 470 * (25.0 / 28));
  EXPECT_NE(rope.find(fmt::format("<line x1=\"{0}\" y1=\"16.0\" x2=\"{0}\" y2=\"264.0\" stroke=\"#c53030\" stroke-dasharray=\"6 4\"", x)),
            std::string::npos)
      << rope;
}

}  // namespace
}  // namespace peconform
