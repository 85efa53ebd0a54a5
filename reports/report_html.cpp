#include "reports/report_html.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>

#include "reports/case_brief.hpp"
#include "reports/failure_cards.hpp"
#include "reports/number_text.hpp"
#include "reports/overview_grid.hpp"
#include "reports/report_anchors.hpp"
#include "reports/report_facts.hpp"
#include "reports/report_style.hpp"
#include "reports/svg_plot.hpp"
#include "reports/xml_escape.hpp"

namespace peconform {
namespace {

using harness::kPositionBins;
using harness::kRatioBins;

std::string esc(std::string_view text) { return xml_text(text); }

// The cells of one family joined across dtypes and classes: the worst ratio per position bin
// (the max, as the plot asks where the family comes closest to its bound) and the ratio
// counts (summed, as they count elements).
struct FamilyErrors {
  std::array<double, kPositionBins> worst_by_position{};
  std::array<std::uint64_t, kRatioBins> histogram{};
};

std::map<std::string, FamilyErrors> by_family(const harness::CampaignResult& result) {
  std::map<std::string, FamilyErrors> families;
  for (const auto& [key, s] : result.cells) {
    FamilyErrors& f = families[key.family];
    for (int b = 0; b < kPositionBins; ++b)
      f.worst_by_position[b] = std::max(f.worst_by_position[b], s.worst_ratio_by_position[b]);
    for (int b = 0; b < kRatioBins; ++b) f.histogram[b] += s.ratio_histogram[b];
  }
  return families;
}

std::string position_range(int bin) {
  if (bin == 0) return "position 0";
  if (bin == kPositionBins - 1) return fmt::format("positions from 2^{}", bin - 1);
  return fmt::format("positions [2^{}, 2^{})", bin - 1, bin);
}

// Bin b of the x axis spans [b, b + 1): its left edge is position 2^(b - 1).
std::string position_chart(const std::string& family, const FamilyErrors& errors) {
  SvgChart chart;
  chart.title = fmt::format("{}: worst error/bound ratio against position", family);
  chart.x = {"position (log scale)", 0, kPositionBins, {{0, "0", ""}}};
  for (int exponent = 4; exponent < kPositionBins - 1; exponent += 4)
    chart.x.ticks.push_back({exponent + 1.0, "2", fmt::format("{}", exponent)});
  chart.x.ticks.push_back({static_cast<double>(kPositionBins), "2", fmt::format("{}", kPositionBins - 1)});
  double low = -1, high = 1;  // the bound, log2 ratio 0, always in view
  bool infinite = false;
  for (int b = 0; b < kPositionBins; ++b) {
    const double ratio = errors.worst_by_position[b];
    // An empty bin and a bin of exact results both hold 0, and neither has a logarithm.
    if (!(ratio > 0)) continue;
    if (std::isinf(ratio)) {
      infinite = true;
    } else {
      low = std::min(low, std::floor(std::log2(ratio)));
      high = std::max(high, std::ceil(std::log2(ratio)));
    }
    chart.points.push_back(
        {b + 0.5, std::log2(ratio), fmt::format("{}: worst error/bound {:.3g}", position_range(b), ratio)});
  }
  // Infinite ratios (non-finite outputs) are drawn on the top edge, one step above the rest.
  if (infinite) high += 1;
  const int step = std::max(1, static_cast<int>(std::ceil((high - low) / 8)));
  chart.y = {"worst error / bound (log scale)", low, high, {}};
  for (int k = static_cast<int>(low); k <= static_cast<int>(high); ++k)
    if (k % step == 0) chart.y.ticks.push_back({static_cast<double>(k), "2", fmt::format("{}", k)});
  chart.guides.push_back({false, 0, "bound"});
  return svg_chart(chart);
}

std::string ratio_range(int bin) {
  const int exponent = bin - kRatioBins + 3;
  if (bin == 0) return fmt::format("ratios below 2^{} (and zero)", exponent + 1);
  if (bin == kRatioBins - 1) return fmt::format("ratios from 2^{}", exponent);
  return fmt::format("ratios [2^{}, 2^{})", exponent, exponent + 1);
}

// Bin i of the x axis spans [i, i + 1); its left edge is the ratio 2^(i - kRatioBins + 3).
// Counts go up by log10(1 + count), so that a single element still shows.
std::string histogram_chart(const std::string& family, const FamilyErrors& errors) {
  SvgChart chart;
  chart.title = fmt::format("{}: distribution of error/bound ratios", family);
  chart.x = {"error / bound (log scale)", 0, kRatioBins, {}};
  for (int bin = 1; bin <= kRatioBins; bin += 4)
    chart.x.ticks.push_back({static_cast<double>(bin), "2", fmt::format("{}", bin - kRatioBins + 3)});
  const std::uint64_t most = *std::max_element(errors.histogram.begin(), errors.histogram.end());
  const double top = std::max(1.0, std::ceil(std::log10(1.0 + static_cast<double>(most))));
  chart.y = {"elements (log scale)", 0, top, {}};
  for (int k = 0; k < top; ++k)
    chart.y.ticks.push_back(
        {std::log10(1 + std::pow(10.0, k)), k == 0 ? "1" : "10", k == 0 ? "" : fmt::format("{}", k)});
  for (int bin = 0; bin < kRatioBins; ++bin) {
    const std::uint64_t count = errors.histogram[bin];
    if (count == 0) continue;
    chart.bars.push_back({static_cast<double>(bin), bin + 1.0, std::log10(1.0 + static_cast<double>(count)),
                          fmt::format("{}: {} elements", ratio_range(bin), count), bin >= kRatioBins - 3});
  }
  chart.guides.push_back({true, kRatioBins - 3.0, "bound"});
  return svg_chart(chart);
}

void plots(std::string& html, const harness::CampaignResult& result) {
  html += "<h2>Error against the bound, per family</h2>\n";
  for (const auto& [family, errors] : by_family(result)) {
    html += fmt::format("<h3 id=\"{}\">{}</h3>\n", family_anchor(family), esc(family));
    const bool any_ratio =
        std::any_of(errors.worst_by_position.begin(), errors.worst_by_position.end(), [](double r) { return r > 0; });
    const bool any_count =
        std::any_of(errors.histogram.begin(), errors.histogram.end(), [](std::uint64_t n) { return n > 0; });
    if (!any_count) {
      html += "<p>No element checked against a finite bound (integer-valued or unconstrained).</p>\n";
      continue;
    }
    html += "<div class=\"charts\">\n";
    if (any_ratio)
      html += fmt::format(
          "<figure>{}<figcaption>Worst error/bound ratio per position bin (max over dtypes and "
          "classes).</figcaption></figure>\n",
          position_chart(family, errors));
    else
      html += "<p>Every bounded element was exact.</p>\n";
    html += fmt::format(
        "<figure>{}<figcaption>Elements per error/bound bin (all dtypes and classes); red bars broke "
        "the bound.</figcaption></figure>\n",
        histogram_chart(family, errors));
    html += "</div>\n";
  }
}

void run_info(std::string& html, const harness::CampaignResult& result) {
  html += "<h2>Run</h2>\n<table>\n";
  for (const Fact& fact : run_facts(result.info))
    html += fmt::format("<tr><th>{}</th><td>{}</td></tr>\n", esc(fact.label), esc(fact.value));
  html += "</table>\n";
}

// An element count where columns are many: exact below 10,000, else "4.9e8" with the exact count on hovering.
std::string count_cell(std::uint64_t count) {
  if (count < 10'000) return fmt::format("<td class=\"n\">{}</td>", grouped(count));
  return fmt::format("<td class=\"n\" title=\"{}\">{}</td>", grouped(count), short_count(count));
}

// The worst case's spec, cut short, with the whole case folded beneath: case strings run to
// thousands of characters and would widen the table past the page.
std::string worst_case_cell(const std::string& case_text) {
  if (case_text.empty()) return "<td></td>";
  return fmt::format("<td class=\"case\"><details><summary><code>{}</code></summary><code>{}</code></details></td>",
                     esc(case_spec_brief(case_text)), esc(case_text));
}

void matrix(std::string& html, const harness::CampaignResult& result) {
  html +=
      "<h2>Every cell</h2>\n<table class=\"cells\">\n<tr><th>Backend</th><th>Family</th><th>Dtype</th><th>Class</th>"
      "<th>Cases</th><th>Failed</th><th>Elements</th><th>Uncon&shy;strained</th><th>Uncon&shy;strained from |&phi;|</th>"
      "<th>Norm-checked pairs</th><th>Esca&shy;lations</th><th>Max ULP</th>"
      "<th>Worst ratio to bound</th><th>Worst case</th></tr>\n";
  for (const auto& [key, s] : result.cells) {
    const char* row = s.failed_cases > 0 ? " class=\"fail\"" : loose(s) ? " class=\"loose\"" : "";
    html += fmt::format(
        "<tr id=\"{}\"{}><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>"
        "{}{}<td class=\"n\">{}</td>{}{}<td class=\"n\">{}</td><td class=\"n\">{}</td>{}</tr>\n",
        cell_anchor(key), row, esc(key.backend), esc(key.family), esc(key.dtype), class_label(key.precision), grouped(s.cases),
        grouped(s.failed_cases), count_cell(s.elements), count_cell(s.unconstrained_elements),
        horizon_text(s.unconstrained_horizon), count_cell(s.norm_checked_pairs), count_cell(s.escalations),
        significant(s.max_ulp), significant(s.worst_ratio), worst_case_cell(s.worst_case));
  }
  html += "</table>\n";
}

void loose_bounds(std::string& html, const harness::CampaignResult& result) {
  html += fmt::format(
      "<h2>Loose bounds</h2>\n<p>Cells whose worst error stayed below {} of the bound: a kernel that "
      "much worse would still pass.</p>\n",
      harness::kLooseRatio);
  std::string items;
  for (const auto& [key, s] : result.cells)
    if (loose(s))
      items += fmt::format("<li><a href=\"#{}\"><code>{}</code></a>: worst ratio {} over {} bounded elements</li>\n",
                           cell_anchor(key), esc(cell_name(key)), significant(s.worst_ratio), grouped(s.bounded_elements));
  html += items.empty() ? "<p>None.</p>\n" : "<ul>\n" + items + "</ul>\n";
}

void properties(std::string& html, const harness::CampaignResult& result) {
  const auto passed = std::count_if(result.properties.begin(), result.properties.end(),
                                    [](const harness::PropertyVerdict& p) { return p.passed; });
  html += fmt::format("<h2>Properties</h2>\n<p>{} of {} passed.</p>\n", passed, result.properties.size());
  if (result.properties.empty()) return;
  html += "<table>\n<tr><th>Property</th><th>Families</th><th>Cases</th><th>Verdict</th><th>Message</th></tr>\n";
  for (const harness::PropertyVerdict& p : result.properties)
    html += fmt::format("<tr{}><td>{}</td><td>{}</td><td class=\"n\">{}</td><td>{}</td><td>{}</td></tr>\n",
                        p.passed ? "" : " class=\"fail\"", esc(p.name), esc(p.families), grouped(static_cast<std::uint64_t>(p.cases)),
                        p.passed ? "passed" : "failed", p.message.empty() ? "" : "<pre>" + esc(p.message) + "</pre>");
  html += "</table>\n";
}

// A run stopped early that had found nothing wrong is no pass: its badge is neither green nor red.
const char* verdict_class(const harness::CampaignResult& result) {
  if (!result.conformant()) return "fail";
  return result.info.partial ? "partial" : "pass";
}

}  // namespace

std::string report_html(const harness::CampaignResult& result) {
  std::string html = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>peconform conformance "
      "report</title>\n"
      "<style>{}</style>\n</head>\n<body>\n<h1>peconform conformance report</h1>\n<p class=\"verdict {}\">{}</p>\n",
      report_css(), verdict_class(result), esc(verdict_line(result)));
  if (!result.failures.empty()) html += "<h2>Failing cases</h2>\n" + failure_cards(result);
  html += "<h2>Overview</h2>\n" + overview_grid(result);
  run_info(html, result);
  matrix(html, result);
  loose_bounds(html, result);
  plots(html, result);
  properties(html, result);
  html += "</body>\n</html>\n";
  return html;
}

}  // namespace peconform
