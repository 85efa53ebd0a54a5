#include "harness/campaign.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <fmt/format.h>
#include <omp.h>

#include "harness/counter_random.hpp"
#include "precision/error_model.hpp"
#include "harness/property_thread.hpp"
#include "harness/regression_corpus.hpp"
#include "harness/run_identity.hpp"
#include "harness/shrink.hpp"
#include "properties/property.hpp"
#include "spec/spec_error.hpp"

namespace peconform::harness {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::uint64_t kPropertySeedStream = 7;

struct DrawnCase {
  std::uint64_t index;
  CaseDescription description;
};

class Run {
 public:
  Run(const CampaignOptions& options, std::span<const TensorBackend* const> kernels, const CampaignProgress& progress,
      const std::atomic<bool>& stop)
      : options_(options), kernels_(kernels.begin(), kernels.end()), progress_(progress), stop_(stop), start_(Clock::now()) {
    if (kernels_.empty()) throw SpecError("the campaign has no kernel to run");
    RunInfo& i = result_.info;
    i.tool_version = PECONFORM_VERSION;
    i.commit = source_commit();
    i.machine = machine_summary();
    i.compiler = compiler_summary();
    i.backend = options.plugin ? "plugin:" + options.plugin->library : kernels_.front()->name();
    i.profile = options.profile.name;
    i.seed = options.seed;
    i.filters = options.filters_text;
    i.shard_index = options.shard_index;
    i.shard_count = options.shard_count;
    i.max_elements = options.profile.largest_tensor_elements;
    i.max_tokens = options.profile.most_tokens;
    i.execution = options.execution;
    i.threads = omp_get_max_threads();
    const char* wait_policy = std::getenv("OMP_WAIT_POLICY");
    i.wait_policy = wait_policy != nullptr ? wait_policy : "default";
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
    } else if (options_.max_failures && result_.failures.size() >= *options_.max_failures) {
      mark_partial(fmt::format("stopped after {} failing case(s) (--max-failures)", *options_.max_failures));
    }
    return !result_.info.partial;
  }

  void replay_regressions() {
    // Every kernel's saved cases, as one list that the shards split.
    std::vector<std::pair<const TensorBackend*, SavedRegression>> saved;
    for (const TensorBackend* kernel : kernels_)
      for (SavedRegression& regression : load_regressions(corpus_root(), kernel->name())) saved.emplace_back(kernel, std::move(regression));
    for (std::size_t r = 0; r < saved.size(); ++r) {
      if (!mine(r)) continue;
      if (!going_on()) return;
      const CaseDescription description = CaseDescription::parse(saved[r].second.case_text);
      record(description, run_case(description, *saved[r].first), 0, false, *saved[r].first);
      ++result_.info.regressions_replayed;
      report("regressions", r + 1, saved.size());
    }
  }

  // The case runs on every kernel that serves its spec (one, unless --kernel leaves several).
  void replay_one(const std::string& text) {
    const CaseDescription description = CaseDescription::parse(text);
    std::vector<const TensorBackend*> serving;
    for (const TensorBackend* kernel : kernels_) {
      const std::vector<SpecPattern> patterns = kernel->capabilities().patterns;
      if (patterns.empty() || std::any_of(patterns.begin(), patterns.end(), [&](const SpecPattern& p) { return p.admits(description.spec); }))
        serving.push_back(kernel);
    }
    if (serving.empty())
      throw SpecError(fmt::format("no kernel of the campaign serves the replayed case's spec {}", description.spec.canonical()));
    result_.info.cases_planned = serving.size();
    for (const TensorBackend* kernel : serving) {
      record(description, run_case(description, *kernel), 0, false, *kernel);
      ++result_.info.cases_run;
      report("replay", result_.info.cases_run, serving.size());
    }
  }

  // Every case of the shard, drawn before any runs: a kernel's pattern that cannot make one is
  // bad input, found before the campaign has run anything, not after an hour of it.
  std::vector<DrawnCase> draw_cases() {
    std::vector<BackendCapabilities> capabilities;
    for (std::size_t k = 0; k < kernels_.size(); ++k) {
      capabilities.push_back(kernels_[k]->capabilities());
      try {
        const std::vector<CaseCell> kernel_cells = campaign_cells(capabilities.back(), options_.filters, k);
        cells_.insert(cells_.end(), kernel_cells.begin(), kernel_cells.end());
      } catch (const SpecError&) {
        // One kernel of several may have nothing the filters keep; the campaign needs one that does.
        if (kernels_.size() == 1) throw;
      }
    }
    if (cells_.empty())
      throw SpecError("the filters (--spec, --family, --dtype, --precision) leave no case any of the plugin's kernels serves");
    const std::uint64_t total = options_.cases.value_or(options_.profile.cases);
    result_.info.campaign_cases = total;
    std::vector<DrawnCase> drawn;
    for (std::uint64_t k = 0; k < total; ++k) {
      if (!mine(k)) continue;
      try {
        drawn.push_back({k, draw_case(options_.seed, k, cells_, options_.filters, options_.profile, capabilities)});
      } catch (const SpecError& error) {
        throw SpecError(fmt::format("case {} of kernel '{}' cannot be drawn: {}", k + 1,
                                    kernels_[cells_[k % cells_.size()].kernel]->name(), error.what()));
      }
    }
    return drawn;
  }

  void random_cases(const std::vector<DrawnCase>& drawn) {
    result_.info.cases_planned += drawn.size();
    for (const auto& [k, description] : drawn) {
      if (!going_on()) return;
      const TensorBackend& kernel = *kernels_[cells_[k % cells_.size()].kernel];
      // Random cases are numbered from 1: 0 is the saved regressions.
      record(description, run_case(description, kernel), k + 1, options_.save_regressions, kernel);
      ++result_.info.cases_run;
      report("cases", result_.info.cases_run, result_.info.cases_planned);
    }
  }

  // The shard's property runs on every kernel's point evaluator, each with its own seed drawn
  // from the campaign's.
  std::vector<PropertyJob> property_jobs() const {
    std::vector<const Property*> chosen;
    for (const Property& property : all_properties())
      if (property_selected(property)) chosen.push_back(&property);
    std::vector<PropertyJob> jobs;
    for (const TensorBackend* kernel : kernels_) {
      const Implementation* points = kernel->points();
      if (points == nullptr) continue;
      for (std::size_t p = 0; p < chosen.size(); ++p)
        if (mine(p)) jobs.push_back({chosen[p], points, counter_hash(options_.seed, kPropertySeedStream, p)});
    }
    return jobs;
  }

  // Whether the properties may run beside the cases: not when the run was given one thread,
  // nor when a kernel must be called from the campaign's own thread only.
  bool properties_beside_cases() const {
    return omp_get_max_threads() > 1 && std::none_of(kernels_.begin(), kernels_.end(), [](const TensorBackend* kernel) {
             return kernel->capabilities().calling_thread_only;
           });
  }

  // Waits for the properties, reporting their progress and halting them when the run stops.
  void finish_properties(PropertyThread& properties) {
    std::size_t reported = 0;
    for (bool ended = properties.total() == 0; !ended;) {
      ended = properties.wait_for(std::chrono::milliseconds(100));
      if (!going_on()) properties.halt();
      if (properties.done() > reported || ended) {
        reported = properties.done();
        report("properties", reported, properties.total());
      }
    }
    result_.properties = properties.take_verdicts();
    result_.info.property_seconds = properties.seconds();
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

  // Where the kernels' saved cases live: <regressions>/<kernel>, or for a plugin's kernels
  // <regressions>/<library>/<kernel>.
  std::filesystem::path corpus_root() const {
    return options_.plugin ? options_.regressions / options_.plugin->library : options_.regressions;
  }

  double seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

  void mark_partial(std::string why) {
    result_.info.partial = true;
    result_.info.partial_reason = std::move(why);
  }

  void report(const std::string& phase, std::uint64_t done, std::uint64_t total) {
    if (progress_.advanced) progress_.advanced(phase, done, total, result_.total_elements(), result_.failures.size(), seconds());
  }

  void record(const CaseDescription& description, const CaseOutcome& outcome, std::uint64_t index, bool save,
              const TensorBackend& kernel) {
    result_.info.draw_seconds += outcome.draw_seconds;
    result_.info.kernel_seconds += outcome.kernel_seconds;
    result_.info.verify_seconds += outcome.verify_seconds;
    result_.info.escalation_seconds += outcome.verdict.escalation_seconds;
    const CellKey key = cell_of(kernel.name(), description.spec);
    CellStats stats = outcome.verdict.stats;
    stats.worst_case = description.text();
    stats.worst_case_index = index;
    stats.unconstrained_horizon = angle_horizon(description.spec);
    result_.cells[key].merge(stats);
    if (!outcome.failed()) return;
    // Saved regressions and --replay cases are run as given: they were shrunk when found.
    const Clock::time_point shrink_start = Clock::now();
    const Shrunk shrunk = index != 0 ? shrink_case(description, outcome, kernel) : Shrunk{description, outcome, false, ""};
    result_.info.shrink_seconds += std::chrono::duration<double>(Clock::now() - shrink_start).count();
    FailureRecord failure;
    failure.case_text = shrunk.description.text();
    failure.original_case = description.text();
    failure.seed = options_.seed;
    failure.case_index = index;
    failure.cell_backend = key.backend;
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
    failure.replay_command = options_.plugin ? replay_command(*options_.plugin, kernel.name(), failure.case_text)
                                             : replay_command(kernel.name(), failure.case_text);
    if (save) failure.regression_file = save_regression(corpus_root(), kernel.name(), failure).string();
    if (progress_.failed) progress_.failed(failure);
    result_.failures.push_back(std::move(failure));
  }

  const CampaignOptions& options_;
  std::vector<const TensorBackend*> kernels_;
  const CampaignProgress& progress_;
  const std::atomic<bool>& stop_;
  Clock::time_point start_;
  std::vector<CaseCell> cells_;
  CampaignResult result_;
};

}  // namespace

std::string replay_command(const std::string& backend, const std::string& case_text) {
  return fmt::format("peconform run --backend {} --replay '{}'", backend, case_text);
}

namespace {

// A plugin's path as a shell word: as it is when it is plain, else in single quotes.
std::string shell_word(const std::string& text) {
  const bool plain = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '/' || c == '.' || c == '_' || c == '-' || c == '+';
  });
  if (plain) return text;
  std::string quoted = "'";
  for (const char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

}  // namespace

std::string replay_command(const PluginSource& plugin, const std::string& kernel, const std::string& case_text) {
  return fmt::format("peconform run --plugin {} --kernel {} --replay '{}'", shell_word(plugin.path), kernel, case_text);
}

CampaignResult run_campaign(const CampaignOptions& options, const TensorBackend& backend, const CampaignProgress& progress,
                            const std::atomic<bool>& stop) {
  const TensorBackend* kernels[] = {&backend};
  return run_campaign(options, kernels, progress, stop);
}

CampaignResult run_campaign(const CampaignOptions& options, std::span<const TensorBackend* const> kernels,
                            const CampaignProgress& progress, const std::atomic<bool>& stop) {
  Run run(options, kernels, progress, stop);
  if (options.replay) {
    run.replay_one(*options.replay);
    return run.finish();
  }
  const std::vector<DrawnCase> drawn = run.draw_cases();
  std::optional<PropertyThread> properties;
  if (options.run_properties && run.properties_beside_cases())
    properties.emplace(run.property_jobs(), options.profile.property_cases);
  run.replay_regressions();
  run.random_cases(drawn);
  if (options.run_properties) {
    if (!properties) properties.emplace(run.property_jobs(), options.profile.property_cases);
    run.finish_properties(*properties);
  }
  return run.finish();
}

}  // namespace peconform::harness
