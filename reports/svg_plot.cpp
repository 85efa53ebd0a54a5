#include "reports/svg_plot.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "reports/xml_escape.hpp"

namespace peconform {
namespace {

constexpr double kWidth = 560, kHeight = 320;
constexpr double kLeft = 70, kRight = 20, kTop = 16, kBottom = 56;
constexpr double kPlotWidth = kWidth - kLeft - kRight, kPlotHeight = kHeight - kTop - kBottom;
constexpr const char* kInk = "#333";
constexpr const char* kGrid = "#ddd";
constexpr const char* kData = "#2b6cb0";
constexpr const char* kAlert = "#c53030";

double fraction(const SvgAxis& axis, double value) {
  const double span = axis.max - axis.min;
  return span > 0 ? (std::clamp(value, axis.min, axis.max) - axis.min) / span : 0;
}

double px(const SvgChart& c, double x) { return kLeft + fraction(c.x, x) * kPlotWidth; }
double py(const SvgChart& c, double y) { return kTop + (1 - fraction(c.y, y)) * kPlotHeight; }

std::string tick_label(const SvgTick& tick) {
  if (tick.exponent.empty()) return xml_text(tick.base);
  return fmt::format("{}<tspan dy=\"-6\" font-size=\"9\">{}</tspan>", xml_text(tick.base), xml_text(tick.exponent));
}

std::string tooltip(const std::string& text) {
  return text.empty() ? "" : fmt::format("<title>{}</title>", xml_text(text));
}

void axes(std::string& svg, const SvgChart& c) {
  const double bottom = kTop + kPlotHeight;
  for (const SvgTick& t : c.x.ticks) {
    const double x = px(c, t.at);
    svg += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"{3}\"/>", x, kTop,
                       bottom, kGrid);
    svg +=
        fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>", x, bottom + 18, tick_label(t));
  }
  for (const SvgTick& t : c.y.ticks) {
    const double y = py(c, t.at);
    svg += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" stroke=\"{3}\"/>", kLeft, y,
                       kLeft + kPlotWidth, kGrid);
    svg +=
        fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>", kLeft - 6, y + 4, tick_label(t));
  }
  svg += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"none\" stroke=\"{}\"/>",
                     kLeft, kTop, kPlotWidth, kPlotHeight, kInk);
  svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>", kLeft + kPlotWidth / 2,
                     kHeight - 10, xml_text(c.x.label));
  const double middle = kTop + kPlotHeight / 2;
  svg +=
      fmt::format("<text x=\"16\" y=\"{0:.1f}\" text-anchor=\"middle\" transform=\"rotate(-90 16 {0:.1f})\">{1}</text>",
                  middle, xml_text(c.y.label));
}

void bars(std::string& svg, const SvgChart& c) {
  const double bottom = kTop + kPlotHeight;
  for (const SvgBar& b : c.bars) {
    const double x0 = px(c, b.x0), x1 = px(c, b.x1), top = py(c, b.y);
    svg +=
        fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\">{}</rect>", x0 + 1,
                    top, std::max(0.0, x1 - x0 - 2), bottom - top, b.alert ? kAlert : kData, tooltip(b.tooltip));
  }
}

void guides(std::string& svg, const SvgChart& c) {
  for (const SvgGuide& g : c.guides) {
    const double x1 = g.vertical ? px(c, g.at) : kLeft, x2 = g.vertical ? x1 : kLeft + kPlotWidth;
    const double y1 = g.vertical ? kTop : py(c, g.at), y2 = g.vertical ? kTop + kPlotHeight : y1;
    svg += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" "
        "stroke-dasharray=\"6 4\" stroke-width=\"1.5\"/>",
        x1, y1, x2, y2, kAlert);
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" fill=\"{}\" text-anchor=\"end\">{}</text>",
                       g.vertical ? x1 - 4 : x2 - 4, g.vertical ? kTop + 12 : y1 - 4, kAlert, xml_text(g.label));
  }
}

void points(std::string& svg, const SvgChart& c) {
  if (c.points.empty()) return;
  std::string path;
  for (const SvgPoint& p : c.points) path += fmt::format("{:.1f},{:.1f} ", px(c, p.x), py(c, p.y));
  path.pop_back();
  svg += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\"/>", path, kData);
  for (const SvgPoint& p : c.points)
    svg += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3.5\" fill=\"{}\">{}</circle>", px(c, p.x), py(c, p.y),
                       kData, tooltip(p.tooltip));
}

}  // namespace

std::string svg_chart(const SvgChart& chart) {
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {0:.0f} {1:.0f}\" width=\"{0:.0f}\" height=\"{1:.0f}\" "
      "role=\"img\" font-family=\"sans-serif\" font-size=\"11\" fill=\"{2}\"><title>{3}</title>",
      kWidth, kHeight, kInk, xml_text(chart.title));
  axes(svg, chart);
  bars(svg, chart);
  guides(svg, chart);
  points(svg, chart);
  svg += "</svg>";
  return svg;
}

}  // namespace peconform
