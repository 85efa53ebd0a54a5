#include "tools/campaign_console.hpp"

#include <chrono>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <memory>
#include <unistd.h>

#include "reports/report_facts.hpp"

namespace peconform {
namespace {

std::string rate(std::uint64_t elements, double seconds) {
  return seconds > 0 ? fmt::format("{:.3g} elements/s", static_cast<double>(elements) / seconds) : "-";
}

std::string ratio_text(double ratio) { return std::isinf(ratio) ? "inf" : fmt::format("{:.3g}", ratio); }

}  // namespace

harness::CampaignProgress console_progress(bool quiet) {
  harness::CampaignProgress progress;
  progress.failed = print_failure;
  if (quiet) return progress;
  const bool terminal = isatty(STDERR_FILENO) == 1;
  // A terminal gets a bar redrawn at most ten times a second; a log gets a line per tenth.
  auto last = std::make_shared<std::chrono::steady_clock::time_point>();
  auto last_phase = std::make_shared<std::string>();
  progress.advanced = [terminal, last, last_phase](const std::string& phase, std::uint64_t done, std::uint64_t total,
                                                  std::uint64_t elements, std::uint64_t failures, double seconds) {
    const auto now = std::chrono::steady_clock::now();
    const bool finished = done == total, new_phase = phase != *last_phase;
    if (terminal) {
      if (!finished && !new_phase && now - *last < std::chrono::milliseconds(100)) return;
      constexpr int kWidth = 30;
      const int filled = total > 0 ? static_cast<int>(kWidth * done / total) : kWidth;
      fmt::print(stderr, "\r{:<10} [{:<{}}] {}/{} {} failures {}  ", phase, std::string(static_cast<std::size_t>(filled), '#'),
                 kWidth, done, total, rate(elements, seconds), failures);
      if (finished) fmt::print(stderr, "\n");
    } else {
      const std::uint64_t step = std::max<std::uint64_t>(1, total / 10);
      if (!finished && !new_phase && done % step != 0) return;
      fmt::print(stderr, "{} {}/{}, {} elements, {}, failures {}, {:.1f} s\n", phase, done, total, elements,
                 rate(elements, seconds), failures, seconds);
    }
    *last = now;
    *last_phase = phase;
  };
  return progress;
}

void print_failure(const harness::FailureRecord& f) {
  const harness::ElementFailure& e = f.first;
  fmt::print(stderr, "\nFAIL [{}{}] {}\n", e.kind, f.flaky ? ", flaky" : "", f.case_text);
  if (!f.message.empty()) fmt::print(stderr, "  the kernel: {}\n", f.message);
  if (!f.shrink_note.empty()) fmt::print(stderr, "  shrinking: {}\n", f.shrink_note);
  if (f.message.empty()) {
    fmt::print(stderr, "  element   {} {} at [{}] (batch, token, head, dim), position {}\n", e.operand, e.element,
               fmt::join(e.at, ", "), e.position);
    fmt::print(stderr, "  input     {}\n  reference {}\n  actual    {}\n", e.input, e.reference, e.actual);
    fmt::print(stderr, "  error     {} ulp, {} x bound (bound {}); {} failing elements in this case\n", ratio_text(e.ulps),
               ratio_text(e.ratio), e.bound, f.failing_elements);
  }
  fmt::print(stderr, "  seed {} case {}{}\n", f.seed, f.case_index,
             f.regression_file.empty() ? "" : fmt::format(", saved as {}", f.regression_file));
  fmt::print(stderr, "  replay: {}\n", f.replay_command);
}

void print_cells(const harness::CampaignResult& result) {
  for (const auto& [key, s] : result.cells)
    fmt::print(stderr, "{:<6} {:<10} {:<5} {:<11} cases {:>5} elements {:>11} unconstrained {:>9} (from |phi| {:>7}) norm-checked {:>8} escalated {:>6} "
               "max ulp {:>8} worst ratio {:>8}{}{}\n",
               key.backend, key.family, key.dtype, key.precision, s.cases, s.elements, s.unconstrained_elements,
               horizon_text(s.unconstrained_horizon), s.norm_checked_pairs, s.escalations,
               ratio_text(s.max_ulp), ratio_text(s.worst_ratio), s.failed_cases > 0 ? fmt::format("  FAILED {}", s.failed_cases) : "",
               s.bounded_elements > 0 && s.worst_ratio < harness::kLooseRatio ? "  (loose)" : "");
}

}  // namespace peconform
