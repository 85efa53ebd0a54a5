#include "reports/summary_markdown.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "reports/report_facts.hpp"

namespace peconform {
namespace {

// GitHub caps a step summary at 1 MiB; report.json and junit.xml list every failure.
constexpr std::size_t kListedFailures = 25;

// Plain text set inline (never at the start of a line, where # - + would start a block):
// backslash-escapes the punctuation that could start inline markup, a table cell's end or an
// entity, and keeps a value on its one line.
std::string text(std::string_view value) {
  std::string out;
  for (const char c : value) {
    if (c == '\n' || c == '\r') {
      out += ' ';
      continue;
    }
    if (std::string_view("\\`*_[]<>|~&").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

std::size_t longest_backtick_run(std::string_view value) {
  std::size_t longest = 0, run = 0;
  for (const char c : value) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return longest;
}

// An inline code span, delimited by more backticks than it contains, on one line. In a table a
// pipe ends the cell even inside a code span unless escaped (the table parser removes the
// backslash); elsewhere the backslash would show.
std::string code(std::string_view value, bool in_table = false) {
  std::string body;
  for (const char c : value) {
    if (c == '|' && in_table)
      body += "\\|";
    else
      body += c == '\n' || c == '\r' ? ' ' : c;
  }
  const std::string fence(longest_backtick_run(value) + 1, '`');
  const bool pad = body.empty() || body.front() == '`' || body.back() == '`';
  return pad ? fmt::format("{} {} {}", fence, body, fence) : fmt::format("{}{}{}", fence, body, fence);
}

std::string code_block(std::string_view value, std::string_view language) {
  const std::string fence(std::max<std::size_t>(3, longest_backtick_run(value) + 1), '`');
  return fmt::format("{}{}\n{}\n{}\n", fence, language, value, fence);
}

void run_info(std::string& md, const harness::CampaignResult& result) {
  md += "| Run | |\n|---|---|\n";
  for (const Fact& fact : run_facts(result.info)) md += fmt::format("| {} | {} |\n", fact.label, text(fact.value));
}

void matrix(std::string& md, const harness::CampaignResult& result) {
  md += "\n## Conformance matrix\n\n";
  md +=
      "| Backend | Family | Dtype | Class | Cases | Failed | Elements | Unconstrained | Unconstrained from \\|φ\\| | "
      "Norm-checked pairs | Escalations | Max ULP | Worst ratio | Worst case |\n";
  md += "|---|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|\n";
  for (const auto& [key, s] : result.cells)
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.3g} | {:.3g} | {} |\n", text(key.backend),
                      text(key.family), text(key.dtype), text(key.precision), s.cases, s.failed_cases, s.elements,
                      s.unconstrained_elements, horizon_text(s.unconstrained_horizon), s.norm_checked_pairs, s.escalations,
                      s.max_ulp, s.worst_ratio,
                      s.worst_case.empty() ? "" : code(s.worst_case, true));
}

void loose_bounds(std::string& md, const harness::CampaignResult& result) {
  md += fmt::format(
      "\n## Loose bounds\n\nCells whose worst error stayed below {} of the bound: a kernel that much "
      "worse would still pass.\n\n",
      harness::kLooseRatio);
  bool any = false;
  for (const auto& [key, s] : result.cells) {
    if (!loose(s)) continue;
    any = true;
    md += fmt::format("- {}: worst ratio {:.3g} over {} bounded elements\n", code(cell_name(key)), s.worst_ratio,
                      s.bounded_elements);
  }
  if (!any) md += "None.\n";
}

void properties(std::string& md, const harness::CampaignResult& result) {
  const auto passed = std::count_if(result.properties.begin(), result.properties.end(),
                                    [](const harness::PropertyVerdict& p) { return p.passed; });
  md += fmt::format("\n## Properties\n\n{} of {} passed.\n", passed, result.properties.size());
  for (const harness::PropertyVerdict& p : result.properties) {
    if (p.passed) continue;
    md += fmt::format("\n- **{}** ({}, {} cases) failed:\n\n", text(p.name), text(p.families), p.cases);
    md += code_block(p.message, "text");
  }
}

void failures(std::string& md, const harness::CampaignResult& result) {
  md += "\n## Failures\n\n";
  if (result.failures.empty()) {
    md += "None.\n";
    return;
  }
  const std::size_t shown = std::min(result.failures.size(), kListedFailures);
  for (std::size_t i = 0; i < shown; ++i) {
    const harness::FailureRecord& f = result.failures[i];
    md += fmt::format("### {}. {}{}\n\n", i + 1, code(f.case_text), f.flaky ? " (flaky)" : "");
    for (const Fact& fact : failure_facts(f)) md += fmt::format("- {}: {}\n", fact.label, code(fact.value));
    md += "\nReplay:\n\n" + code_block(f.replay_command, "sh") + "\n";
  }
  if (shown < result.failures.size())
    md += fmt::format("{} more failures are listed in report.json and junit.xml.\n", result.failures.size() - shown);
}

}  // namespace

std::string summary_markdown(const harness::CampaignResult& result) {
  std::string md =
      fmt::format("# peconform: {}\n\n**Verdict: {}**\n\n", verdict_word(result), text(verdict_line(result)));
  run_info(md, result);
  matrix(md, result);
  loose_bounds(md, result);
  properties(md, result);
  failures(md, result);
  return md;
}

}  // namespace peconform
