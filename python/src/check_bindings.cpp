// peconform._check: the campaign (harness/campaign.hpp) with a Python callable as its backend,
// run with the GIL released; python/peconform/__init__.py's check() wraps it in CheckResult.
#include <atomic>
#include <cmath>
#include <csignal>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <omp.h>
#include <optional>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "harness/campaign.hpp"
#include "python/src/bindings.hpp"
#include "python/src/python_tensor_backend.hpp"
#include "reports/campaign_reports.hpp"
#include "reports/report_facts.hpp"
#include "spec/spec_error.hpp"

namespace py = pybind11;

namespace peconform::python {
namespace {

// Ctrl-C during a campaign stops it between cases, as `peconform run` does: the callable is
// not interrupted mid-call, and what was found is kept. A second Ctrl-C ends the process.
std::atomic<bool> interrupted{false};
extern "C" void on_interrupt(int) {
  interrupted.store(true);
  std::signal(SIGINT, SIG_DFL);
}

// Python's own SIGINT handler, put back when the campaign ends however it ends.
class InterruptScope {
 public:
  explicit InterruptScope(bool main_thread) : installed_(main_thread) {
    interrupted.store(false);
    if (installed_) previous_ = std::signal(SIGINT, on_interrupt);
  }
  ~InterruptScope() {
    if (installed_) std::signal(SIGINT, previous_);
  }
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;

 private:
  bool installed_;
  void (*previous_)(int) = SIG_DFL;
};

// The OpenMP team's size for one check(), and the caller's put back after it however it ends.
class ThreadCountScope {
 public:
  explicit ThreadCountScope(std::optional<int> threads) : previous_(omp_get_max_threads()) {
    if (threads) omp_set_num_threads(*threads);
  }
  ~ThreadCountScope() { omp_set_num_threads(previous_); }
  ThreadCountScope(const ThreadCountScope&) = delete;
  ThreadCountScope& operator=(const ThreadCountScope&) = delete;

 private:
  int previous_;
};

// A case string as a Python literal, for the replay line.
std::string python_literal(const std::string& text) {
  std::string out = "'";
  for (const char c : text) {
    if (c == '\\' || c == '\'') out += '\\';
    out += c;
  }
  return out + "'";
}

std::vector<SpecPattern> patterns_of(const std::optional<std::string>& spec) {
  if (!spec) return {};
  return SpecPattern::parse_list(*spec);
}

// bf16 named where the callable gets NumPy arrays is refused up front, not left undrawn.
void refuse_numpy_bf16(ArrayKind arrays, const std::vector<SpecPattern>& patterns, const std::vector<Dtype>& dtypes) {
  if (arrays != ArrayKind::numpy) return;
  const std::vector<Dtype> every{Dtype::fp64, Dtype::fp32, Dtype::fp16, Dtype::bf16};
  bool named = std::find(dtypes.begin(), dtypes.end(), Dtype::bf16) != dtypes.end();
  for (const SpecPattern& pattern : patterns) {
    const std::vector<Dtype> allowed = pattern.dtypes(every);
    named = named || (allowed.size() < every.size() && std::find(allowed.begin(), allowed.end(), Dtype::bf16) != allowed.end());
  }
  if (named) throw SpecError("bf16 needs array=\"torch\": NumPy has no bfloat16 (with dtype=* NumPy's campaign leaves bf16 out)");
}

py::dict run_check(const py::object& callable, const std::string& name, const std::optional<std::string>& spec, const std::string& profile,
                   std::uint64_t seed, std::optional<std::uint64_t> cases, const std::optional<std::filesystem::path>& out,
                   const std::string& array, const std::optional<std::string>& place, const std::vector<std::string>& families, const std::vector<std::string>& dtypes,
                   const std::vector<std::string>& precisions, const std::optional<std::string>& replay,
                   const std::filesystem::path& regressions, bool save_regressions, std::optional<double> time_budget,
                   std::optional<std::uint64_t> max_failures, std::optional<int> threads, const std::string& output,
                   std::optional<std::int64_t> max_elements, std::optional<std::int64_t> max_tokens, const std::string& execution) {
  if (!PyCallable_Check(callable.ptr())) throw py::type_error("check() needs a callable as fn");
  // What `peconform run` refuses, refused here too: a run that checks nothing must not look conformant.
  if (cases && *cases == 0) throw SpecError("cases is 0; check() runs no properties, so it needs at least 1 case");
  if (max_failures && *max_failures == 0) throw SpecError("max_failures is 0; expected 1 or more");
  if (time_budget && !(*time_budget > 0 && std::isfinite(*time_budget)))
    throw SpecError(fmt::format("time_budget is {}; expected a positive number of seconds", *time_budget));
  if (threads && (*threads < 1 || *threads > 4096)) throw SpecError(fmt::format("threads is {}; expected 1 to 4096", *threads));
  if (max_elements) harness::check_shape_bound("max_elements", *max_elements);
  if (max_tokens) harness::check_shape_bound("max_tokens", *max_tokens);
  if (execution.find('\n') != std::string::npos) throw SpecError(fmt::format("execution is '{}'; expected one line", execution));
  const ArrayKind arrays = array_kind_named(array);
  const OutputPassing output_passing = output_passing_named(output);
  CallsTaken takes;
  if (place && *place != "in" && *place != "out") throw py::value_error(fmt::format("place is '{}'; expected 'in', 'out' or None (both)", *place));
  if (place) {
    takes.in_place = *place == "in";
    takes.out_of_place = *place == "out";
  }
  harness::CampaignOptions options;
  options.profile = harness::profile_named(profile);
  options.profile.largest_tensor_elements = max_elements.value_or(0);
  options.profile.most_tokens = max_tokens.value_or(0);
  options.execution = execution;
  options.seed = seed;
  options.cases = cases;
  for (const std::string& f : families) options.filters.families.push_back(family_named(f, "family"));
  for (const std::string& d : dtypes) options.filters.dtypes.push_back(dtype_named(d, "dtype"));
  for (const std::string& p : precisions) options.filters.precisions.push_back(precision_named(p, "precision"));
  std::vector<std::string> filters;
  if (spec) filters.push_back("spec " + *spec);
  if (!families.empty()) filters.push_back(fmt::format("family {}", fmt::join(families, ",")));
  if (!dtypes.empty()) filters.push_back(fmt::format("dtype {}", fmt::join(dtypes, ",")));
  if (!precisions.empty()) filters.push_back(fmt::format("precision {}", fmt::join(precisions, ",")));
  options.filters_text = fmt::format("{}", fmt::join(filters, ", "));
  options.replay = replay;
  options.regressions = regressions;
  options.save_regressions = save_regressions;
  options.time_budget_seconds = time_budget;
  options.max_failures = max_failures;
  // Properties need a point evaluator, which a callable of whole calls does not have.
  options.run_properties = false;
  const ThreadCountScope thread_count(threads);

  const std::vector<SpecPattern> patterns = patterns_of(spec);
  refuse_numpy_bf16(arrays, patterns, options.filters.dtypes);
  std::atomic<bool>& stop = interrupted;
  const bool main_thread = py::module_::import("threading").attr("current_thread")().is(py::module_::import("threading").attr("main_thread")());
  const InterruptScope scope(main_thread);
  const std::unique_ptr<TensorBackend> backend = make_python_tensor_backend(callable, name, patterns, takes, arrays, output_passing, stop);
  if (const std::string problem = harness::backend_problem(*backend); !problem.empty()) throw SpecError(problem);

  harness::CampaignResult result;
  {
    py::gil_scoped_release released;
    result = harness::run_campaign(options, *backend, harness::CampaignProgress{}, stop);
  }
  // The replay line calls fn as the campaign did.
  const std::string suffix = fmt::format("{}{})", arrays == ArrayKind::torch ? ", array=\"torch\"" : "",
                                         output_passing == OutputPassing::argument ? ", output=\"argument\"" : "");
  std::vector<std::string> messages;
  for (harness::FailureRecord& failure : result.failures) {
    failure.replay_command = fmt::format("peconform.check({}, replay={}{}", name, python_literal(failure.case_text), suffix);
    std::string message;
    // A callable that raised or returned the wrong thing has no failing element to show.
    const std::vector<std::string> element_facts{"first failure", "position", "input", "reference", "actual", "ulps", "error / bound", "bound"};
    for (const Fact& fact : failure_facts(failure))
      if (failure.message.empty() || std::find(element_facts.begin(), element_facts.end(), fact.label) == element_facts.end())
        message += fmt::format("{}: {}\n", fact.label, fact.value);
    messages.push_back(message + "replay: " + failure.replay_command);
  }
  if (out) write_campaign_reports(result, *out);
  py::dict answer;
  answer["report"] = to_json(result).dump();
  answer["messages"] = messages;
  answer["verdict_line"] = verdict_line(result);
  return answer;
}

// The four reports of a check() already run, from its report.json text.
void write_reports(const std::string& report, const std::filesystem::path& folder) {
  write_campaign_reports(harness::from_json(nlohmann::json::parse(report)), folder);
}

}  // namespace

void bind_check(py::module_& module) {
  register_dlpack_view(module);
  module.def("_check", &run_check, py::arg("fn"), py::arg("name"), py::arg("spec"), py::arg("profile"), py::arg("seed"), py::arg("cases"),
             py::arg("out"), py::arg("array"), py::arg("place"), py::arg("families"), py::arg("dtypes"), py::arg("precisions"), py::arg("replay"),
             py::arg("regressions"), py::arg("save_regressions"), py::arg("time_budget"), py::arg("max_failures"), py::arg("threads"),
             py::arg("output"), py::arg("max_elements"), py::arg("max_tokens"), py::arg("execution"),
             "The campaign on a Python callable; peconform.check() is the interface");
  module.def("_write_reports", &write_reports, py::arg("report"), py::arg("folder"),
             "report.json, junit.xml, summary.md and report.html of a report (CheckResult.write_reports() is the interface)");
}

}  // namespace peconform::python
