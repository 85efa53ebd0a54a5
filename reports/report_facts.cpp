#include "reports/report_facts.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "reports/number_text.hpp"

namespace peconform {

std::string verdict_word(const harness::CampaignResult& result) {
  return result.conformant() ? "conformant" : "non-conformant";
}

std::string verdict_line(const harness::CampaignResult& result) {
  const auto failing_properties = std::count_if(result.properties.begin(), result.properties.end(),
                                                [](const harness::PropertyVerdict& p) { return !p.passed; });
  const harness::RunInfo& i = result.info;
  const std::string counts = fmt::format("{} failing case{} in {} elements checked, {} of {} properties failing",
                                         grouped(result.failures.size()), result.failures.size() == 1 ? "" : "s",
                                         grouped(result.total_elements()), failing_properties, result.properties.size());
  // A run that stopped early proves nothing about the cases it did not run: it leads with
  // PARTIAL unless a failure already decided the verdict.
  const std::string stopped = fmt::format("{} of {} cases run, {}", grouped(i.cases_run), grouped(i.cases_planned), i.partial_reason);
  std::string line = !i.partial            ? fmt::format("{}: {}", verdict_word(result), counts)
                     : result.conformant() ? fmt::format("PARTIAL, conformant so far: {} ({})", counts, stopped)
                                           : fmt::format("{}: {} (PARTIAL: {})", verdict_word(result), counts, stopped);
  if (!i.execution.empty()) line += "; execution: " + i.execution;
  return line;
}

std::string cell_name(const harness::CellKey& key) {
  return fmt::format("{}/{}/{}/{}", key.backend, key.family, key.dtype, key.precision);
}

std::string horizon_text(double horizon) {
  return std::isfinite(horizon) ? fmt::format("2^{:.1f}", std::log2(horizon)) : std::string("never");
}

bool loose(const harness::CellStats& stats) {
  return stats.bounded_elements > 0 && stats.worst_ratio < harness::kLooseRatio;
}

std::vector<const harness::FailureRecord*> failures_of(const harness::CampaignResult& result,
                                                       const harness::CellKey& key) {
  std::vector<const harness::FailureRecord*> found;
  for (const harness::FailureRecord& f : result.failures)
    if (f.cell_backend == key.backend && f.cell_family == key.family && f.cell_dtype == key.dtype && f.cell_precision == key.precision)
      found.push_back(&f);
  return found;
}

std::vector<Fact> run_facts(const harness::RunInfo& info) {
  std::vector<Fact> facts{{"commit", info.commit},
                          {"tool version", info.tool_version},
                          {"machine", info.machine},
                          {"compiler", info.compiler},
                          {"seed", fmt::format("{}", info.seed)},
                          {"profile", info.profile},
                          {"backend", info.backend},
                          {"filters", info.filters.empty() ? "none" : info.filters},
                          {"shard", fmt::format("{} of {}", info.shard_index, info.shard_count)},
                          {"threads", fmt::format("{}", info.threads)},
                          {"cases", fmt::format("{} run of {} planned, {} regressions replayed", info.cases_run, info.cases_planned,
                                                info.regressions_replayed)},
                          {"wall time", fmt::format("{:.3g} s", info.wall_seconds)},
                          {"time per phase", fmt::format("draw {:.3g} s, kernel {:.3g} s, verify {:.3g} s (summed over cases)",
                                                         info.draw_seconds, info.kernel_seconds, info.verify_seconds)},
                          {"verified elements/s", fmt::format("{:.3g} over the wall time, {:.3g} over the verifier's time",
                                                              info.elements_per_second, info.verified_elements_per_second)},
                          {"partial", info.partial ? fmt::format("yes: {}", info.partial_reason) : "no"}};
  // Stated where the run set them.
  if (info.max_elements > 0)
    facts.push_back({"max elements", fmt::format("{} per tensor", grouped(static_cast<std::uint64_t>(info.max_elements)))});
  if (info.max_tokens > 0)
    facts.push_back({"max tokens", fmt::format("{} per call (batch x seq)", grouped(static_cast<std::uint64_t>(info.max_tokens)))});
  if (!info.execution.empty()) facts.push_back({"execution", info.execution});
  return facts;
}

std::vector<Fact> failure_facts(const harness::FailureRecord& f) {
  const harness::ElementFailure& e = f.first;
  std::vector<Fact> facts{{"case", f.case_text}};
  if (f.original_case != f.case_text) facts.push_back({"drawn as", f.original_case});
  facts.push_back({"cell", fmt::format("{}/{}/{}/{}", f.cell_backend, f.cell_family, f.cell_dtype, f.cell_precision)});
  facts.push_back({"case index", fmt::format("{} (seed {})", f.case_index, f.seed)});
  facts.push_back({"failing elements", fmt::format("{}", f.failing_elements)});
  if (!f.message.empty()) facts.push_back({"kernel said", f.message});
  if (f.flaky) facts.push_back({"flaky", "yes"});
  if (!f.shrink_note.empty()) facts.push_back({"shrinking", f.shrink_note});
  facts.push_back({"first failure",
                   fmt::format("{} in {} element {} at ({})", e.kind, e.operand, e.element, fmt::join(e.at, ", "))});
  facts.push_back({"position", e.position});
  facts.push_back({"input", e.input});
  facts.push_back({"reference", e.reference});
  facts.push_back({"actual", e.actual});
  facts.push_back({"ulps", fmt::format("{:.3g}", e.ulps)});
  facts.push_back({"error / bound", fmt::format("{:.3g}", e.ratio)});
  facts.push_back({"bound", e.bound});
  if (!f.regression_file.empty()) facts.push_back({"saved as", f.regression_file});
  return facts;
}

}  // namespace peconform
