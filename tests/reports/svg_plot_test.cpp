// The chart drawer of report.html (reports/svg_plot.cpp) on a small chart, its whole SVG written
// out by hand from the layout: a 560 × 320 canvas, the plot 470 px wide from x = 70 and 248 px
// tall from y = 16, so x in [0, 10] maps to 70 + 47x and y in [-1, 1] to 16 + 124(1 - y).
// Issue 38: a mutant that dropped the x axis's label survived, as no test read a chart's
// geometry; this one pins every coordinate, tooltip and colour once.
#include <gtest/gtest.h>

#include "reports/svg_plot.hpp"

namespace peconform {
namespace {

TEST(SvgPlot, DrawsEachPartWhereTheLayoutPutsIt) {
  SvgChart chart;
  chart.title = "a & b";
  chart.x = {"x", 0, 10, {{5, "5", ""}}};
  chart.y = {"y", -1, 1, {{0, "2", "0"}}};
  chart.bars = {{2, 4, 0.5, "b", true}, {6, 7, -1, "", false}};
  chart.guides = {{false, 0, "bound"}, {true, 8, "v"}};
  chart.points = {{1, -1, "p"}, {9, 2, ""}};  // y = 2 is past the axis: drawn on its top edge
  EXPECT_EQ(svg_chart(chart),
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 560 320\" width=\"560\" height=\"320\" role=\"img\" "
            "font-family=\"sans-serif\" font-size=\"11\" fill=\"#333\"><title>a &amp; b</title>"
            // axes: the x tick at 5, the y tick at 0 (2^0), the frame, then both axis labels
            "<line x1=\"305.0\" y1=\"16.0\" x2=\"305.0\" y2=\"264.0\" stroke=\"#ddd\"/>"
            "<text x=\"305.0\" y=\"282.0\" text-anchor=\"middle\">5</text>"
            "<line x1=\"70.0\" y1=\"140.0\" x2=\"540.0\" y2=\"140.0\" stroke=\"#ddd\"/>"
            "<text x=\"64.0\" y=\"144.0\" text-anchor=\"end\">2<tspan dy=\"-6\" font-size=\"9\">0</tspan></text>"
            "<rect x=\"70.0\" y=\"16.0\" width=\"470.0\" height=\"248.0\" fill=\"none\" stroke=\"#333\"/>"
            "<text x=\"305.0\" y=\"310.0\" text-anchor=\"middle\">x</text>"
            "<text x=\"16\" y=\"140.0\" text-anchor=\"middle\" transform=\"rotate(-90 16 140.0)\">y</text>"
            // bars over [2, 4] to 0.5 (alert) and [6, 7] to the bottom, 1 px in from each side
            "<rect x=\"165.0\" y=\"78.0\" width=\"92.0\" height=\"186.0\" fill=\"#c53030\"><title>b</title></rect>"
            "<rect x=\"353.0\" y=\"264.0\" width=\"45.0\" height=\"0.0\" fill=\"#2b6cb0\"></rect>"
            // guides: across at y = 0, labelled 4 px inside its right end; up at x = 8, labelled by its top
            "<line x1=\"70.0\" y1=\"140.0\" x2=\"540.0\" y2=\"140.0\" stroke=\"#c53030\" stroke-dasharray=\"6 4\" "
            "stroke-width=\"1.5\"/><text x=\"536.0\" y=\"136.0\" fill=\"#c53030\" text-anchor=\"end\">bound</text>"
            "<line x1=\"446.0\" y1=\"16.0\" x2=\"446.0\" y2=\"264.0\" stroke=\"#c53030\" stroke-dasharray=\"6 4\" "
            "stroke-width=\"1.5\"/><text x=\"442.0\" y=\"28.0\" fill=\"#c53030\" text-anchor=\"end\">v</text>"
            // points (1, -1) and (9, 2 → 1)
            "<polyline points=\"117.0,264.0 493.0,16.0\" fill=\"none\" stroke=\"#2b6cb0\" stroke-width=\"1.5\"/>"
            "<circle cx=\"117.0\" cy=\"264.0\" r=\"3.5\" fill=\"#2b6cb0\"><title>p</title></circle>"
            "<circle cx=\"493.0\" cy=\"16.0\" r=\"3.5\" fill=\"#2b6cb0\"></circle>"
            "</svg>");
}

// An axis with no span (min = max, a family checked at one position only) maps every value to
// its start, never dividing by zero: the point is drawn at x = 70, the plot's left edge.
TEST(SvgPlot, AnAxisWithNoSpanDrawsEverythingAtItsStart) {
  SvgChart chart;
  chart.x = {"x", 5, 5, {}};
  chart.y = {"y", 0, 1, {}};
  chart.points = {{5, 1, ""}};
  const std::string svg = svg_chart(chart);
  EXPECT_NE(svg.find("<circle cx=\"70.0\" cy=\"16.0\" r=\"3.5\" fill=\"#2b6cb0\"></circle>"), std::string::npos) << svg;
}

// A bar narrower than the 2 px it is inset by gets width 0, never a negative width, which SVG
// refuses; a chart without points draws no line (only its bars).
TEST(SvgPlot, ANarrowBarHasWidthZeroAndAChartWithoutPointsNoLine) {
  SvgChart chart;
  chart.x = {"x", 0, 10, {}};
  chart.y = {"y", 0, 1, {}};
  chart.bars = {{0, 0.01, 1, "", false}};
  const std::string svg = svg_chart(chart);
  EXPECT_NE(svg.find("<rect x=\"71.0\" y=\"16.0\" width=\"0.0\" height=\"248.0\" fill=\"#2b6cb0\"></rect></svg>"), std::string::npos)
      << svg;
  EXPECT_EQ(svg.find("<polyline"), std::string::npos) << svg;
}

}  // namespace
}  // namespace peconform
