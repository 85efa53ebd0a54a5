#include "reports/failure_cards.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "reports/case_brief.hpp"
#include "reports/number_text.hpp"
#include "reports/report_anchors.hpp"
#include "reports/report_facts.hpp"
#include "reports/xml_escape.hpp"

namespace peconform {
namespace {

constexpr std::size_t kOpenCards = 10;

std::string esc(std::string_view text) { return xml_text(text); }

// The case whole, unless its spec has lists long enough to be cut (LongRoPE's factors run to
// thousands of characters): then its brief, with the whole case folded beneath.
std::string case_line(std::string_view case_text) {
  const std::string brief = case_spec_brief(case_text);
  if (brief == case_text.substr(0, case_text.find(" | ")))
    return fmt::format("<p class=\"case\"><code>{}</code></p>\n", esc(case_text));
  return fmt::format("<details class=\"case\"><summary><code>{}</code> (the whole case)</summary><code>{}</code></details>\n",
                     esc(brief), esc(case_text));
}

std::string card(const harness::FailureRecord& f, std::size_t number) {
  const harness::ElementFailure& e = f.first;
  const harness::CellKey cell{f.cell_backend, f.cell_family, f.cell_dtype, f.cell_precision};
  std::string html = fmt::format(
      "<article class=\"card\" id=\"failure/{}\">\n<h3>{}. {} in <a href=\"#{}\">{}</a>{}</h3>\n", number, number,
      esc(e.kind), cell_anchor(cell), esc(cell_name(cell)), f.flaky ? " (flaky)" : "");
  html += case_line(f.case_text);
  html += fmt::format("<pre class=\"replay\">{}</pre>\n", esc(f.replay_command));
  html += fmt::format(
      "<dl>\n<dt>element</dt><dd>{} element {} at ({}); {} failing in this case</dd>\n<dt>position</dt><dd>{}</dd>\n"
      "<dt>reference</dt><dd><code>{}</code></dd>\n<dt>actual</dt><dd><code>{}</code></dd>\n"
      "<dt>error / bound</dt><dd>{}</dd>\n<dt>kind</dt><dd>{}</dd>\n</dl>\n",
      esc(e.operand), grouped(static_cast<std::uint64_t>(e.element)), fmt::join(e.at, ", "), grouped(f.failing_elements), esc(e.position), esc(e.reference),
      esc(e.actual), significant(e.ratio), esc(e.kind));
  html += "<details><summary>Every fact of this failure</summary>\n<table>\n";
  for (const Fact& fact : failure_facts(f))
    html += fmt::format("<tr><th>{}</th><td><code>{}</code></td></tr>\n", esc(fact.label), esc(fact.value));
  return html + "</table>\n</details>\n</article>\n";
}

}  // namespace

std::string failure_cards(const harness::CampaignResult& result) {
  std::string html;
  for (std::size_t i = 0; i < result.failures.size(); ++i) {
    if (i == kOpenCards)
      html += fmt::format("<details><summary>{} more failing cases</summary>\n", grouped(result.failures.size() - kOpenCards));
    html += card(result.failures[i], i + 1);
  }
  if (result.failures.size() > kOpenCards) html += "</details>\n";
  return html;
}

}  // namespace peconform
