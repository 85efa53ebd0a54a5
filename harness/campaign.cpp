#include "harness/campaign.hpp"

#include <algorithm>
#include <chrono>
#include <fmt/format.h>
#include <omp.h>

#include "harness/counter_random.hpp"
#include "precision/error_model.hpp"
#include "harness/property_runs.hpp"
#include "harness/regression_corpus.hpp"
#include "harness/run_identity.hpp"
#include "harness/shrink.hpp"
#include "properties/property.hpp"

namespace peconform::harness {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::uint64_t kPropertySeedStream = 7;

class Run {
 public:
  Run(const CampaignOptions& options, const TensorBackend& backend, const CampaignProgress& progress,
      const std::atomic<bool>& stop)
      : options_(options), backend_(backend), progress_(progress), stop_(stop), start_(Clock::now()) {
    RunInfo& i = result_.info;
    i.tool_version = PECONFORM_VERSION;
    i.commit = source_commit();
    i.machine = machine_summary();
    i.compiler = compiler_summary();
    i.backend = backend.name();
    i.profile = options.profile.name;
    i.seed = options.seed;
    i.filters = options.filters_text;
    i.shard_index = options.shard_index;
    i.shard_count = options.shard_count;
    i.threads = omp_get_max_threads();
  }

  CampaignResult finish() {
    std::sort(result_.failures.begin(), result_.failures.end(), [](const FailureRecord& a, const FailureRecord& b) {
      return std::tie(a.case_index, a.case_text) < std::tie(b.case_index, b.case_text);
    });
    std::sort(result_.properties.begin(), result_.properties.end(),
              [](const PropertyVerdict& a, const PropertyVerdict& b) { return a.name < b.name; });
    RunInfo& i = result_.info;
    i.wall_seconds = seconds();
    i.elements_per_second = i.wall_seconds > 0 ? static_cast<double>(result_.total_elements()) / i.wall_seconds : 0;
    i.verified_elements_per_second = i.verify_seconds > 0 ? static_cast<double>(result_.total_elements()) / i.verify_seconds : 0;
    return std::move(result_);
  }

  // Whether to go on; marks the result partial, once, when not.
  bool going_on() {
    if (result_.info.partial) return false;
    if (stop_.load()) {
      mark_partial("interrupted");
    } else if (options_.time_budget_seconds && seconds() >= *options_.time_budget_seconds) {
      mark_partial(fmt::format("time budget of {} s reached", *options_.time_budget_seconds));
    }
    return !result_.info.partial;
  }

  void replay_regressions() {
    const std::vector<SavedRegression> saved = load_regressions(options_.regressions, backend_.name());
    for (std::size_t r = 0; r < saved.size(); ++r) {
      if (!mine(r)) continue;
      if (!going_on()) return;
      const CaseDescription description = CaseDescription::parse(saved[r].case_text);
      record(description, run_case(description, backend_), 0, false);
      ++result_.info.regressions_replayed;
      report("regressions", r + 1, saved.size());
    }
  }

  void replay_one(const std::string& text) {
    const CaseDescription description = CaseDescription::parse(text);
    result_.info.cases_planned = 1;
    record(description, run_case(description, backend_), 0, false);
    result_.info.cases_run = 1;
    report("replay", 1, 1);
  }

  void random_cases() {
    const BackendCapabilities capabilities = backend_.capabilities();
    const std::vector<CaseCell> cells = campaign_cells(capabilities, options_.filters);
    const std::uint64_t total = options_.cases.value_or(options_.profile.cases);
    for (std::uint64_t k = 0; k < total; ++k)
      if (mine(k)) ++result_.info.cases_planned;
    for (std::uint64_t k = 0; k < total; ++k) {
      if (!mine(k)) continue;
      if (!going_on()) return;
      const CaseDescription description = draw_case(options_.seed, k, cells, options_.filters, options_.profile, capabilities);
      // Random cases are numbered from 1: 0 is the saved regressions.
      record(description, run_case(description, backend_), k + 1, options_.save_regressions);
      ++result_.info.cases_run;
      report("cases", result_.info.cases_run, result_.info.cases_planned);
    }
  }

  void properties() {
    const Implementation* points = backend_.points();
    if (points == nullptr) return;
    const std::span<const Property> catalog = all_properties();
    std::vector<const Property*> chosen;
    for (const Property& property : catalog)
      if (property_selected(property)) chosen.push_back(&property);
    for (std::size_t p = 0; p < chosen.size(); ++p) {
      if (!mine(p)) continue;
      if (!going_on()) return;
      const std::uint64_t seed = counter_hash(options_.seed, kPropertySeedStream, p);
      result_.properties.push_back(run_property(*chosen[p], *points, seed, options_.profile.property_cases));
      report("properties", p + 1, chosen.size());
    }
  }

 private:
  bool mine(std::uint64_t index) const {
    return index % static_cast<std::uint64_t>(options_.shard_count) == static_cast<std::uint64_t>(options_.shard_index - 1);
  }

  bool property_selected(const Property& property) const {
    std::vector<Family> families = options_.filters.families;
    if (options_.filters.spec) families.push_back(options_.filters.spec->family);
    if (families.empty()) return true;
    return std::any_of(families.begin(), families.end(), [&](Family f) {
      const std::string_view listed = property.families;
      const std::string_view name = family_name(f);
      for (std::size_t at = listed.find(name); at != std::string_view::npos; at = listed.find(name, at + 1)) {
        const bool starts = at == 0 || !std::isalnum(static_cast<unsigned char>(listed[at - 1]));
        const std::size_t end = at + name.size();
        const bool ends = end == listed.size() || !std::isalnum(static_cast<unsigned char>(listed[end]));
        if (starts && ends) return true;
      }
      return false;
    });
  }

  double seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

  void mark_partial(std::string why) {
    result_.info.partial = true;
    result_.info.partial_reason = std::move(why);
  }

  void report(const std::string& phase, std::uint64_t done, std::uint64_t total) {
    if (progress_.advanced) progress_.advanced(phase, done, total, result_.total_elements(), result_.failures.size(), seconds());
  }

  void record(const CaseDescription& description, const CaseOutcome& outcome, std::uint64_t index, bool save) {
    result_.info.draw_seconds += outcome.draw_seconds;
    result_.info.kernel_seconds += outcome.kernel_seconds;
    result_.info.verify_seconds += outcome.verify_seconds;
    const CellKey key = cell_of(backend_.name(), description.spec);
    CellStats stats = outcome.verdict.stats;
    stats.worst_case = description.text();
    stats.worst_case_index = index;
    stats.unconstrained_horizon = angle_horizon(description.spec);
    result_.cells[key].merge(stats);
    if (!outcome.failed()) return;
    // Saved regressions and --replay cases are run as given: they were shrunk when found.
    const Shrunk shrunk = index != 0 ? shrink_case(description, outcome, backend_) : Shrunk{description, outcome, false, ""};
    FailureRecord failure;
    failure.case_text = shrunk.description.text();
    failure.original_case = description.text();
    failure.seed = options_.seed;
    failure.case_index = index;
    failure.cell_family = key.family;
    failure.cell_dtype = key.dtype;
    failure.cell_precision = key.precision;
    if (shrunk.outcome.verdict.first_failure) failure.first = *shrunk.outcome.verdict.first_failure;
    if (!shrunk.outcome.error.empty()) {
      failure.first.kind = shrunk.outcome.error_kind;
      failure.message = shrunk.outcome.error;
    }
    failure.failing_elements = shrunk.outcome.verdict.failing_elements;
    failure.flaky = shrunk.flaky;
    failure.shrink_note = shrunk.note;
    failure.replay_command = replay_command(backend_.name(), failure.case_text);
    if (save) failure.regression_file = save_regression(options_.regressions, backend_.name(), failure).string();
    if (progress_.failed) progress_.failed(failure);
    result_.failures.push_back(std::move(failure));
  }

  const CampaignOptions& options_;
  const TensorBackend& backend_;
  const CampaignProgress& progress_;
  const std::atomic<bool>& stop_;
  Clock::time_point start_;
  CampaignResult result_;
};

}  // namespace

std::string replay_command(const std::string& backend, const std::string& case_text) {
  return fmt::format("peconform run --backend {} --replay '{}'", backend, case_text);
}

CampaignResult run_campaign(const CampaignOptions& options, const TensorBackend& backend, const CampaignProgress& progress,
                            const std::atomic<bool>& stop) {
  Run run(options, backend, progress, stop);
  if (options.replay) {
    run.replay_one(*options.replay);
    return run.finish();
  }
  run.replay_regressions();
  run.random_cases();
  if (options.run_properties) run.properties();
  return run.finish();
}

}  // namespace peconform::harness
