#include "reports/overview_grid.hpp"

#include <fmt/format.h>
#include <map>
#include <set>
#include <utility>

#include "reports/number_text.hpp"
#include "reports/report_anchors.hpp"
#include "reports/report_facts.hpp"
#include "reports/xml_escape.hpp"

namespace peconform {
namespace {

struct LegendEntry {
  const char* css_class;
  const char* swatch;
  const char* meaning;
};

constexpr LegendEntry kLegend[] = {
    {"failed", "&#x2717;", "failed"},
    {"within-2x", "0.5&ndash;1", "within 2&times; of the bound"},
    {"within-4x", "0.25&ndash;0.5", "within 4&times;"},
    {"within-10x", "0.1&ndash;0.25", "within 10&times;"},
    {"loose", "&lt; 0.1", "loose: a kernel 10 times worse would pass too"},
    {"bit-exact", "=", "compared bit for bit (integers, gathers)"},
    {"unbounded", "no bound", "every element past its class's horizon"},
    {"not-drawn", "&ndash;", "no case drawn"},
};

std::string legend() {
  std::string html =
      "<p>Each cell: the worst error / bound over its elements (above 1 fails) and its cases. A cell links to its row "
      "in the table of every cell, a family to its plots.</p>\n<ul class=\"legend\">\n";
  for (const LegendEntry& entry : kLegend)
    html += fmt::format("<li><span class=\"swatch {}\">{}</span>{}</li>\n", entry.css_class, entry.swatch, entry.meaning);
  return html + "</ul>\n";
}

std::string cases(std::uint64_t count) { return fmt::format("{} case{}", grouped(count), count == 1 ? "" : "s"); }

// What a drawn cell shows: the worst ratio (a cross first where a case failed, "=" where
// nothing had a bound) over its case count.
std::string cell_text(Shade shade, const harness::CellStats& s) {
  switch (shade) {
    case Shade::failed:
      return fmt::format("&#x2717;{}<small>{} of {} failed</small>", s.worst_ratio > 0 ? " " + significant(s.worst_ratio) : "",
                         grouped(s.failed_cases), grouped(s.cases));
    case Shade::bit_exact:
      return fmt::format("=<small>{}</small>", cases(s.cases));
    case Shade::unbounded:
      return fmt::format("no bound<small>{}</small>", cases(s.cases));
    default:
      return fmt::format("{}<small>{}</small>", significant(s.worst_ratio), cases(s.cases));
  }
}

std::string cell_title(const harness::CellKey& key, const harness::CellStats& s) {
  return fmt::format("{}: worst error / bound {} over {} bounded elements; {} elements in {}, {} failed",
                     cell_name(key), significant(s.worst_ratio), grouped(s.bounded_elements), grouped(s.elements),
                     cases(s.cases), grouped(s.failed_cases));
}

}  // namespace

Shade shade_of(const harness::CellStats& s) {
  if (s.failed_cases > 0) return Shade::failed;
  if (s.bounded_elements == 0) return s.identical_elements > 0 ? Shade::bit_exact : Shade::unbounded;
  if (s.worst_ratio >= 0.5) return Shade::within_2x;
  if (s.worst_ratio >= 0.25) return Shade::within_4x;
  if (s.worst_ratio >= harness::kLooseRatio) return Shade::within_10x;
  return Shade::loose;
}

std::string_view shade_class(Shade shade) {
  switch (shade) {
    case Shade::failed: return "failed";
    case Shade::within_2x: return "within-2x";
    case Shade::within_4x: return "within-4x";
    case Shade::within_10x: return "within-10x";
    case Shade::loose: return "loose";
    case Shade::bit_exact: return "bit-exact";
    case Shade::unbounded: return "unbounded";
  }
  return "";
}

std::string class_label(std::string_view precision) {
  std::string label;
  for (std::size_t start = 0;;) {
    const std::size_t comma = precision.find(',', start);
    label += xml_text(precision.substr(start, comma - start));
    if (comma == std::string_view::npos) return label;
    label += ",<wbr>";
    start = comma + 1;
  }
}

std::string overview_grid(const harness::CampaignResult& result) {
  std::set<std::pair<std::string, std::string>> rows;     // backend, family
  std::map<std::string, std::set<std::string>> columns;  // dtype -> its classes
  std::set<std::string> backends;
  for (const auto& [key, stats] : result.cells) {
    rows.insert({key.backend, key.family});
    columns[key.dtype].insert(key.precision);
    backends.insert(key.backend);
  }
  std::string html = legend();
  if (rows.empty()) return html + "<p>No case was run.</p>\n";

  html += "<table class=\"grid\">\n<thead>\n<tr><th rowspan=\"2\">family</th>";
  for (const auto& [dtype, classes] : columns)
    html += fmt::format("<th class=\"dtype\" colspan=\"{}\">{}</th>", classes.size(), xml_text(dtype));
  html += "</tr>\n<tr>";
  for (const auto& [dtype, classes] : columns)
    for (const std::string& precision : classes) {
      html += fmt::format("<th class=\"class\"><span>{}</span></th>", class_label(precision));
    }
  html += "</tr>\n</thead>\n<tbody>\n";

  for (const auto& [backend, family] : rows) {
    const std::string name = backends.size() > 1 ? fmt::format("{} <small>{}</small>", xml_text(family), xml_text(backend))
                                                 : xml_text(family);
    html += fmt::format("<tr><th><a href=\"#{}\">{}</a></th>", family_anchor(family), name);
    for (const auto& [dtype, classes] : columns)
      for (const std::string& precision : classes) {
        const harness::CellKey key{backend, family, dtype, precision};
        const auto found = result.cells.find(key);
        if (found == result.cells.end()) {
          html += fmt::format("<td class=\"not-drawn\"><span title=\"{}: no case drawn\">&ndash;</span></td>",
                              xml_attribute(cell_name(key)));
          continue;
        }
        const Shade shade = shade_of(found->second);
        html += fmt::format("<td class=\"{}\"><a href=\"#{}\" title=\"{}\">{}</a></td>", shade_class(shade), cell_anchor(key),
                            xml_attribute(cell_title(key, found->second)), cell_text(shade, found->second));
      }
    html += "</tr>\n";
  }
  return html + "</tbody>\n</table>\n";
}

}  // namespace peconform
