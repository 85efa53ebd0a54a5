#include "harness/campaign_result.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace peconform::harness {

void CellStats::merge(const CellStats& other) {
  cases += other.cases;
  failed_cases += other.failed_cases;
  elements += other.elements;
  bounded_elements += other.bounded_elements;
  identical_elements += other.identical_elements;
  unconstrained_elements += other.unconstrained_elements;
  unconstrained_horizon = std::min(unconstrained_horizon, other.unconstrained_horizon);
  norm_checked_pairs += other.norm_checked_pairs;
  failed_elements += other.failed_elements;
  escalations += other.escalations;
  boundary_elements += other.boundary_elements;
  max_ulp = std::max(max_ulp, other.max_ulp);
  const bool worse = other.worst_ratio > worst_ratio ||
                     (other.worst_ratio == worst_ratio && !other.worst_case.empty() &&
                      (worst_case.empty() || std::tie(other.worst_case_index, other.worst_case) <
                                                 std::tie(worst_case_index, worst_case)));
  if (worse) {
    worst_ratio = other.worst_ratio;
    worst_case = other.worst_case;
    worst_case_index = other.worst_case_index;
  }
  for (int b = 0; b < kPositionBins; ++b)
    worst_ratio_by_position[b] = std::max(worst_ratio_by_position[b], other.worst_ratio_by_position[b]);
  for (int b = 0; b < kRatioBins; ++b) ratio_histogram[b] += other.ratio_histogram[b];
}

bool CampaignResult::conformant() const {
  return failures.empty() && std::all_of(properties.begin(), properties.end(), [](const PropertyVerdict& p) { return p.passed; });
}

std::uint64_t CampaignResult::total_elements() const {
  std::uint64_t total = 0;
  for (const auto& [key, stats] : cells) total += stats.elements;
  return total;
}

namespace {

// JSON has no infinity: ratios of non-finite failures are written as the string "inf".
nlohmann::json number(double value) {
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  if (std::isnan(value)) return "nan";
  return value;
}

double number_from(const nlohmann::json& value) {
  if (value.is_string()) {
    const std::string text = value.get<std::string>();
    if (text == "inf") return INFINITY;
    if (text == "-inf") return -INFINITY;
    return NAN;
  }
  return value.get<double>();
}

nlohmann::json numbers(const std::array<double, kPositionBins>& values) {
  nlohmann::json out = nlohmann::json::array();
  for (const double value : values) out.push_back(number(value));
  return out;
}

nlohmann::json cell_json(const CellKey& key, const CellStats& s) {
  return {{"backend", key.backend},
          {"family", key.family},
          {"dtype", key.dtype},
          {"precision", key.precision},
          {"cases", s.cases},
          {"failed_cases", s.failed_cases},
          {"elements", s.elements},
          {"bounded_elements", s.bounded_elements},
          {"identical_elements", s.identical_elements},
          {"unconstrained_elements", s.unconstrained_elements},
          {"unconstrained_horizon", number(s.unconstrained_horizon)},
          {"norm_checked_pairs", s.norm_checked_pairs},
          {"failed_elements", s.failed_elements},
          {"escalations", s.escalations},
          {"boundary_elements", s.boundary_elements},
          {"max_ulp", number(s.max_ulp)},
          {"worst_ratio", number(s.worst_ratio)},
          {"worst_case", s.worst_case},
          {"worst_case_index", s.worst_case_index},
          {"loose", s.bounded_elements > 0 && s.worst_ratio < kLooseRatio},
          {"worst_ratio_by_position", numbers(s.worst_ratio_by_position)},
          {"ratio_histogram", s.ratio_histogram}};
}

std::pair<CellKey, CellStats> cell_from(const nlohmann::json& j) {
  CellKey key{j.at("backend"), j.at("family"), j.at("dtype"), j.at("precision")};
  CellStats s;
  s.cases = j.at("cases");
  s.failed_cases = j.at("failed_cases");
  s.elements = j.at("elements");
  s.bounded_elements = j.at("bounded_elements");
  s.identical_elements = j.at("identical_elements");
  s.unconstrained_elements = j.at("unconstrained_elements");
  s.unconstrained_horizon = number_from(j.at("unconstrained_horizon"));
  s.norm_checked_pairs = j.at("norm_checked_pairs");
  s.failed_elements = j.at("failed_elements");
  s.escalations = j.at("escalations");
  s.boundary_elements = j.at("boundary_elements");
  s.max_ulp = number_from(j.at("max_ulp"));
  s.worst_ratio = number_from(j.at("worst_ratio"));
  s.worst_case = j.at("worst_case");
  s.worst_case_index = j.at("worst_case_index");
  const nlohmann::json& by_position = j.at("worst_ratio_by_position");
  if (by_position.size() != kPositionBins)
    throw std::runtime_error(fmt::format("worst_ratio_by_position has {} bins, expected {}", by_position.size(), kPositionBins));
  for (int b = 0; b < kPositionBins; ++b) s.worst_ratio_by_position[static_cast<std::size_t>(b)] = number_from(by_position[b]);
  s.ratio_histogram = j.at("ratio_histogram");
  return {key, s};
}

nlohmann::json element_json(const ElementFailure& e) {
  return {{"kind", e.kind},           {"operand", e.operand},     {"element", e.element}, {"at", e.at},
          {"position", e.position},   {"input", e.input},         {"reference", e.reference},
          {"actual", e.actual},       {"ulps", number(e.ulps)},   {"ratio", number(e.ratio)}, {"bound", e.bound}};
}

ElementFailure element_from(const nlohmann::json& j) {
  return {j.at("kind"),      j.at("operand"), j.at("element"), j.at("at"),
          j.at("position"),  j.at("input"),   j.at("reference"), j.at("actual"),
          number_from(j.at("ulps")), number_from(j.at("ratio")), j.at("bound")};
}

nlohmann::json failure_json(const FailureRecord& f) {
  return {{"case", f.case_text},
          {"original_case", f.original_case},
          {"seed", f.seed},
          {"case_index", f.case_index},
          {"backend", f.cell_backend},
          {"family", f.cell_family},
          {"dtype", f.cell_dtype},
          {"precision", f.cell_precision},
          {"first_failure", element_json(f.first)},
          {"failing_elements", f.failing_elements},
          {"replay", f.replay_command},
          {"regression_file", f.regression_file},
          {"message", f.message},
          {"flaky", f.flaky},
          {"shrink_note", f.shrink_note}};
}

FailureRecord failure_from(const nlohmann::json& j) {
  FailureRecord f;
  f.case_text = j.at("case");
  f.original_case = j.at("original_case");
  f.seed = j.at("seed");
  f.case_index = j.at("case_index");
  f.cell_backend = j.at("backend");
  f.cell_family = j.at("family");
  f.cell_dtype = j.at("dtype");
  f.cell_precision = j.at("precision");
  f.first = element_from(j.at("first_failure"));
  f.failing_elements = j.at("failing_elements");
  f.replay_command = j.at("replay");
  f.regression_file = j.at("regression_file");
  f.message = j.at("message");
  f.flaky = j.at("flaky");
  f.shrink_note = j.at("shrink_note");
  return f;
}

// ", max_elements 4096, execution 'triton ...'": what a shard adds to its campaign's identity, where set.
std::string bounds_and_execution(const RunInfo& i) {
  std::string text;
  if (i.max_elements > 0) text += fmt::format(", max_elements {}", i.max_elements);
  if (i.max_tokens > 0) text += fmt::format(", max_tokens {}", i.max_tokens);
  if (!i.execution.empty()) text += fmt::format(", execution '{}'", i.execution);
  return text;
}

}  // namespace

nlohmann::json to_json(const CampaignResult& result) {
  const RunInfo& i = result.info;
  nlohmann::json cells = nlohmann::json::array();
  nlohmann::json loose = nlohmann::json::array();
  for (const auto& [key, stats] : result.cells) {
    cells.push_back(cell_json(key, stats));
    if (stats.bounded_elements > 0 && stats.worst_ratio < kLooseRatio)
      loose.push_back({{"family", key.family}, {"dtype", key.dtype}, {"precision", key.precision},
                       {"worst_ratio", stats.worst_ratio}});
  }
  nlohmann::json properties = nlohmann::json::array();
  for (const PropertyVerdict& p : result.properties)
    properties.push_back({{"name", p.name}, {"families", p.families}, {"passed", p.passed}, {"cases", p.cases},
                          {"message", p.message}});
  nlohmann::json failures = nlohmann::json::array();
  for (const FailureRecord& f : result.failures) failures.push_back(failure_json(f));
  nlohmann::json json = {{"schema", i.schema},
          {"run",
           {{"tool_version", i.tool_version},
            {"commit", i.commit},
            {"machine", i.machine},
            {"compiler", i.compiler},
            {"backend", i.backend},
            {"profile", i.profile},
            {"seed", i.seed},
            {"filters", i.filters},
            {"shard", {{"index", i.shard_index}, {"count", i.shard_count}, {"campaign_cases", i.campaign_cases}}},
            {"cases_planned", i.cases_planned},
            {"cases_run", i.cases_run},
            {"regressions_replayed", i.regressions_replayed},
            {"partial", i.partial},
            {"partial_reason", i.partial_reason},
            {"threads", i.threads},
            {"wait_policy", i.wait_policy},
            {"wall_seconds", i.wall_seconds},
            {"elements_per_second", i.elements_per_second},
            {"draw_seconds", i.draw_seconds},
            {"kernel_seconds", i.kernel_seconds},
            {"verify_seconds", i.verify_seconds},
            {"escalation_seconds", i.escalation_seconds},
            {"shrink_seconds", i.shrink_seconds},
            {"property_seconds", i.property_seconds},
            {"verified_elements_per_second", i.verified_elements_per_second}}},
          {"verdict", result.conformant() ? "conformant" : "non-conformant"},
          {"total_elements", result.total_elements()},
          {"cells", cells},
          {"loose_bounds", loose},
          {"properties", properties},
          {"failures", failures}};
  // Written where set, so that a report without them reads as it did before they existed.
  nlohmann::json& run = json["run"];
  if (i.max_elements > 0) run["max_elements"] = i.max_elements;
  if (i.max_tokens > 0) run["max_tokens"] = i.max_tokens;
  if (!i.execution.empty()) run["execution"] = i.execution;
  return json;
}

CampaignResult from_json(const nlohmann::json& json) {
  try {
    if (json.at("schema") != kReportSchema)
      throw std::runtime_error(fmt::format("schema is '{}', expected '{}'", json.at("schema").dump(), kReportSchema));
    CampaignResult result;
    const nlohmann::json& r = json.at("run");
    RunInfo& i = result.info;
    i.tool_version = r.at("tool_version");
    i.commit = r.at("commit");
    i.machine = r.at("machine");
    i.compiler = r.at("compiler");
    i.backend = r.at("backend");
    i.profile = r.at("profile");
    i.seed = r.at("seed");
    i.filters = r.at("filters");
    i.shard_index = r.at("shard").at("index");
    i.shard_count = r.at("shard").at("count");
    i.campaign_cases = r.at("shard").value("campaign_cases", std::uint64_t{0});
    i.max_elements = r.value("max_elements", std::int64_t{0});
    i.max_tokens = r.value("max_tokens", std::int64_t{0});
    i.execution = r.value("execution", "");
    i.cases_planned = r.at("cases_planned");
    i.cases_run = r.at("cases_run");
    i.regressions_replayed = r.at("regressions_replayed");
    i.partial = r.at("partial");
    i.partial_reason = r.at("partial_reason");
    i.threads = r.at("threads");
    i.wait_policy = r.value("wait_policy", "");  // reports from before it was recorded lack it
    i.wall_seconds = r.at("wall_seconds");
    i.elements_per_second = r.at("elements_per_second");
    i.draw_seconds = r.at("draw_seconds");
    i.kernel_seconds = r.at("kernel_seconds");
    i.verify_seconds = r.at("verify_seconds");
    // Reports from before these phases were timed lack them.
    i.escalation_seconds = r.value("escalation_seconds", 0.0);
    i.shrink_seconds = r.value("shrink_seconds", 0.0);
    i.property_seconds = r.value("property_seconds", 0.0);
    i.verified_elements_per_second = r.at("verified_elements_per_second");
    for (const nlohmann::json& cell : json.at("cells")) result.cells.insert(cell_from(cell));
    for (const nlohmann::json& p : json.at("properties"))
      result.properties.push_back({p.at("name"), p.at("families"), p.at("passed"), p.at("cases"), p.at("message")});
    for (const nlohmann::json& f : json.at("failures")) result.failures.push_back(failure_from(f));
    return result;
  } catch (const nlohmann::json::exception& error) {
    throw std::runtime_error(fmt::format("not a {} report: {}", kReportSchema, error.what()));
  }
}

CampaignResult merge_results(const std::vector<CampaignResult>& shards) {
  if (shards.empty()) throw std::runtime_error("nothing to merge");
  const RunInfo& first = shards.front().info;
  std::vector<bool> seen(static_cast<std::size_t>(first.shard_count), false);
  CampaignResult merged;
  merged.info = first;
  merged.info.shard_index = 1;
  merged.info.shard_count = 1;
  merged.info.cases_planned = merged.info.cases_run = merged.info.regressions_replayed = 0;
  merged.info.wall_seconds = merged.info.draw_seconds = merged.info.kernel_seconds = merged.info.verify_seconds = 0;
  merged.info.escalation_seconds = merged.info.shrink_seconds = merged.info.property_seconds = 0;
  std::map<int, std::string> partial_shards;  // by index, so that the reason reads the same in any order of shards
  for (const CampaignResult& shard : shards) {
    const RunInfo& i = shard.info;
    // A stale shard folder of another campaign (other cases, another build) would merge into a
    // report that looks whole while it mixes two campaigns.
    if (i.seed != first.seed || i.profile != first.profile || i.backend != first.backend || i.filters != first.filters ||
        i.shard_count != first.shard_count || i.campaign_cases != first.campaign_cases || i.commit != first.commit ||
        i.max_elements != first.max_elements || i.max_tokens != first.max_tokens || i.execution != first.execution)
      throw std::runtime_error(fmt::format(
          "shard {}/{} (seed {}, profile {}, backend {}, {} cases, commit {}{}) is not from the campaign of shard {}/{} (seed {}, "
          "profile {}, backend {}, {} cases, commit {}{})",
          i.shard_index, i.shard_count, i.seed, i.profile, i.backend, i.campaign_cases, i.commit, bounds_and_execution(i),
          first.shard_index, first.shard_count, first.seed, first.profile, first.backend, first.campaign_cases, first.commit,
          bounds_and_execution(first)));
    if (i.shard_index < 1 || i.shard_index > i.shard_count || seen[static_cast<std::size_t>(i.shard_index - 1)])
      throw std::runtime_error(fmt::format("shard {}/{} is given twice or is out of range", i.shard_index, i.shard_count));
    seen[static_cast<std::size_t>(i.shard_index - 1)] = true;
    merged.info.cases_planned += i.cases_planned;
    merged.info.cases_run += i.cases_run;
    merged.info.regressions_replayed += i.regressions_replayed;
    merged.info.wall_seconds = std::max(merged.info.wall_seconds, i.wall_seconds);
    merged.info.draw_seconds += i.draw_seconds;
    merged.info.kernel_seconds += i.kernel_seconds;
    merged.info.verify_seconds += i.verify_seconds;
    merged.info.escalation_seconds += i.escalation_seconds;
    merged.info.shrink_seconds += i.shrink_seconds;
    merged.info.property_seconds += i.property_seconds;
    merged.info.threads = std::max(merged.info.threads, i.threads);
    if (i.partial) partial_shards.emplace(i.shard_index, i.partial_reason);
    for (const auto& [key, stats] : shard.cells) merged.cells[key].merge(stats);
    merged.properties.insert(merged.properties.end(), shard.properties.begin(), shard.properties.end());
    merged.failures.insert(merged.failures.end(), shard.failures.begin(), shard.failures.end());
  }
  std::vector<std::string> missing;
  for (std::size_t index = 0; index < seen.size(); ++index)
    if (!seen[index]) missing.push_back(fmt::format("{}/{}", index + 1, first.shard_count));
  if (!missing.empty())
    throw std::runtime_error(fmt::format("no report of shard {} ({} of {} shards given); a merged report needs every shard",
                                         fmt::join(missing, ", "), shards.size(), first.shard_count));
  // Every partial shard is named: the merged campaign covers less than its plan because of each.
  std::vector<std::string> reasons;
  for (const auto& [index, reason] : partial_shards) reasons.push_back(fmt::format("shard {}/{}: {}", index, first.shard_count, reason));
  merged.info.partial = !reasons.empty();
  merged.info.partial_reason = fmt::format("{}", fmt::join(reasons, "; "));
  std::stable_sort(merged.failures.begin(), merged.failures.end(),
                   [](const FailureRecord& a, const FailureRecord& b) { return a.case_index < b.case_index; });
  std::stable_sort(merged.properties.begin(), merged.properties.end(),
                   [](const PropertyVerdict& a, const PropertyVerdict& b) { return a.name < b.name; });
  const double seconds = merged.info.wall_seconds;
  merged.info.elements_per_second = seconds > 0 ? static_cast<double>(merged.total_elements()) / seconds : 0;
  merged.info.verified_elements_per_second =
      merged.info.verify_seconds > 0 ? static_cast<double>(merged.total_elements()) / merged.info.verify_seconds : 0;
  return merged;
}

}  // namespace peconform::harness
