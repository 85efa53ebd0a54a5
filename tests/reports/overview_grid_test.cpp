#include <gtest/gtest.h>
#include <regex>

#include "reports/overview_grid.hpp"
#include "reports/report_anchors.hpp"
#include "sample_result.hpp"

namespace peconform {
namespace {

harness::CellStats bounded(double worst_ratio) {
  harness::CellStats s;
  s.cases = 3;
  s.elements = s.bounded_elements = 100;
  s.worst_ratio = worst_ratio;
  return s;
}

TEST(OverviewGrid, ShadesBandTheWorstRatioAtHalfAQuarterAndATenth) {
  EXPECT_EQ(shade_of(bounded(1.0)), Shade::within_2x);
  EXPECT_EQ(shade_of(bounded(0.5)), Shade::within_2x);
  EXPECT_EQ(shade_of(bounded(0.4999)), Shade::within_4x);
  EXPECT_EQ(shade_of(bounded(0.25)), Shade::within_4x);
  EXPECT_EQ(shade_of(bounded(0.2499)), Shade::within_10x);
  EXPECT_EQ(shade_of(bounded(0.1)), Shade::within_10x);
  EXPECT_EQ(shade_of(bounded(0.0999)), Shade::loose);
  EXPECT_EQ(shade_of(bounded(0)), Shade::loose);
}

// A failed case decides the shade whatever the ratio: a crash or a wrong integer leaves the
// ratio low, and a cell must not look near-conformant because of it.
TEST(OverviewGrid, AFailedCaseShadesTheCellFailedWhateverItsRatio) {
  harness::CellStats s = bounded(0.02);
  s.failed_cases = 1;
  EXPECT_EQ(shade_of(s), Shade::failed);
  harness::CellStats integers;
  integers.cases = integers.failed_cases = 1;
  integers.identical_elements = integers.elements = 10;
  EXPECT_EQ(shade_of(integers), Shade::failed);
}

TEST(OverviewGrid, CellsWithoutABoundAreBitExactOrUnbounded) {
  harness::CellStats integers;
  integers.cases = 2;
  integers.identical_elements = integers.elements = 10;
  EXPECT_EQ(shade_of(integers), Shade::bit_exact);
  harness::CellStats past_horizon;
  past_horizon.cases = 2;
  past_horizon.unconstrained_elements = past_horizon.elements = 10;
  EXPECT_EQ(shade_of(past_horizon), Shade::unbounded);
}

TEST(OverviewGrid, EachShadeHasItsOwnClass) {
  EXPECT_EQ(shade_class(Shade::failed), "failed");
  EXPECT_EQ(shade_class(Shade::within_2x), "within-2x");
  EXPECT_EQ(shade_class(Shade::within_4x), "within-4x");
  EXPECT_EQ(shade_class(Shade::within_10x), "within-10x");
  EXPECT_EQ(shade_class(Shade::loose), "loose");
  EXPECT_EQ(shade_class(Shade::bit_exact), "bit-exact");
  EXPECT_EQ(shade_class(Shade::unbounded), "unbounded");
}

TEST(OverviewGrid, EachCellHoldsItsRatioAndCasesAndLinksToItsRow) {
  const std::string html = overview_grid(sample_result());
  EXPECT_NE(html.find("<td class=\"failed\"><a href=\"#cell/cpu/rope/float32/fp32-angle\" title=\"cpu/rope/float32/fp32-angle: "
                      "worst error / bound 3.5 over 400,000 bounded elements; 409,600 elements in 400 cases, 2 failed\">"
                      "&#x2717; 3.5<small>2 of 400 failed</small></a></td>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<td class=\"loose\"><a href=\"#cell/cpu/rope/bfloat16/lowp-cache\""), std::string::npos);
  EXPECT_NE(html.find(">0.02<small>300 cases</small></a></td>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"within-4x\"><a href=\"#cell/cpu/sinusoidal/float32/exact-angle\""), std::string::npos);
  EXPECT_NE(html.find(">0.45<small>250 cases</small></a></td>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"bit-exact\"><a href=\"#cell/cpu/t5/int32/exact\""), std::string::npos);
  EXPECT_NE(html.find(">=<small>100 cases</small></a></td>"), std::string::npos);
}

// Four families by five dtype-class columns, five drawn: fifteen hatched cells, each naming its cell.
TEST(OverviewGrid, OneCaseIsNotCases) {
  harness::CampaignResult result;
  result.cells[{"cpu", "rope", "fp32", "exact-angle"}] = bounded(0.75);
  result.cells[{"cpu", "rope", "fp32", "exact-angle"}].cases = 1;
  EXPECT_NE(overview_grid(result).find(">0.75<small>1 case</small></a></td>"), std::string::npos);
}

TEST(OverviewGrid, CellsNotDrawnAreHatchedAndLinkNowhere) {
  const std::string html = overview_grid(sample_result());
  const std::regex not_drawn("<td class=\"not-drawn\"><span title=\"[^\"]+: no case drawn\">&ndash;</span></td>");
  EXPECT_EQ(std::distance(std::sregex_iterator(html.begin(), html.end(), not_drawn), std::sregex_iterator()), 15);
  EXPECT_NE(html.find("title=\"cpu/t5/float32/exact-angle: no case drawn\""), std::string::npos);
}

TEST(OverviewGrid, ColumnsGroupClassesUnderTheirDtype) {
  const std::string html = overview_grid(sample_result());
  EXPECT_NE(html.find("<th class=\"dtype\" colspan=\"1\">bfloat16</th><th class=\"dtype\" colspan=\"1\">float16</th>"
                      "<th class=\"dtype\" colspan=\"2\">float32</th><th class=\"dtype\" colspan=\"1\">int32</th>"),
            std::string::npos);
  EXPECT_NE(html.find("<tr><th><a href=\"#plots/rope\">rope</a></th>"), std::string::npos);
}

TEST(OverviewGrid, RowsNameTheBackendWhenThereAreSeveral) {
  harness::CampaignResult result = sample_result();
  result.cells[{"gptj-pairing", "rope", "float32", "fp32-angle"}] = bounded(0.6);
  const std::string html = overview_grid(result);
  EXPECT_NE(html.find("<tr><th><a href=\"#plots/rope\">rope <small>gptj-pairing</small></a></th>"), std::string::npos);
  EXPECT_NE(html.find("<tr><th><a href=\"#plots/rope\">rope <small>cpu</small></a></th>"), std::string::npos);
}

TEST(OverviewGrid, ComposedClassesMayBreakAfterEachComma) {
  EXPECT_EQ(class_label("fp32-angle,cache=storage,math=storage"), "fp32-angle,<wbr>cache=storage,<wbr>math=storage");
  EXPECT_EQ(class_label("exact-angle"), "exact-angle");
  EXPECT_EQ(class_label("a<b,c"), "a&lt;b,<wbr>c");
}

TEST(ReportAnchors, NamesKeepTheirLettersAndEncodeEveryOtherByte) {
  EXPECT_EQ(cell_anchor({"cpu", "rope", "bf16", "fp32-angle,cache=storage,math=storage"}),
            "cell/cpu/rope/bf16/fp32-angle,cache=storage,math=storage");
  EXPECT_EQ(cell_anchor({"plugin:my kernel", "rope", "bf16", "exact-angle"}), "cell/plugin_3amy_20kernel/rope/bf16/exact-angle");
  EXPECT_EQ(family_anchor("t5"), "plots/t5");
}

// A slash or an underscore inside a name is encoded too, so that two cells never share an id.
TEST(ReportAnchors, TwoCellsNeverShareAnId) {
  EXPECT_EQ(cell_anchor({"a/b", "c", "d", "e"}), "cell/a_2fb/c/d/e");
  EXPECT_NE(cell_anchor({"a/b", "c", "d", "e"}), cell_anchor({"a", "b/c", "d", "e"}));
  EXPECT_EQ(cell_anchor({"a_2fb", "c", "d", "e"}), "cell/a_5f2fb/c/d/e");
}

}  // namespace
}  // namespace peconform
