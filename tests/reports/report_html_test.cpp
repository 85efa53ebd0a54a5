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

}  // namespace
}  // namespace peconform
