#pragma once
// A small chart drawer for report.html: points joined by a line, bars, and guide lines on
// numeric axes, written as inline SVG so that the report stays one file that opens offline.
// Callers map their data to plot units (a log2 ratio, a log count) and name the ticks.
#include <string>
#include <vector>

namespace peconform {

// A tick at `at` in plot units, labelled `base` with an optional superscript `exponent`
// ("2" and "-8" read 2^-8).
struct SvgTick {
  double at = 0;
  std::string base, exponent;
};

struct SvgAxis {
  std::string label;
  double min = 0, max = 1;  // values outside are drawn at the edge
  std::vector<SvgTick> ticks;
};

// A point of the line, with the tooltip shown on hovering it.
struct SvgPoint {
  double x = 0, y = 0;
  std::string tooltip;
};

// A bar over [x0, x1] from the bottom of the y axis up to y; `alert` draws it in the failure colour.
struct SvgBar {
  double x0 = 0, x1 = 0, y = 0;
  std::string tooltip;
  bool alert = false;
};

// A line across the plot at x (vertical) or y (horizontal), such as the bound.
struct SvgGuide {
  bool vertical = false;
  double at = 0;
  std::string label;
};

struct SvgChart {
  std::string title;  // the <title>: what the chart shows, read out by screen readers
  SvgAxis x, y;
  std::vector<SvgPoint> points;
  std::vector<SvgBar> bars;
  std::vector<SvgGuide> guides;
};

// An <svg> element with inline styling, ready to paste into HTML.
std::string svg_chart(const SvgChart& chart);

}  // namespace peconform
