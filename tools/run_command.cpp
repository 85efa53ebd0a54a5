// peconform run: the conformance campaign (harness/campaign.hpp) on one backend, with its
// reports written into --out. Exit codes: 0 conformant, 1 non-conformant, 2 bad usage or
// input, 3 harness failure.
#include <atomic>
#include <csignal>
#include <cstdlib>
#include <fmt/format.h>
#include <fstream>
#include <omp.h>

#include "backends/backend_registry.hpp"
#include "backends/plugin/plugin_library.hpp"
#include "backends/plugin/plugin_tensor_backend.hpp"
#include "harness/campaign.hpp"
#include "harness/isolated_backend.hpp"
#include "reports/campaign_reports.hpp"
#include "spec/spec_error.hpp"
#include "tensorfiles/outputs_check.hpp"
#include "tools/campaign_console.hpp"
#include "tools/commands.hpp"
#include "tools/exit_codes.hpp"
#include "tools/shard_selection.hpp"

namespace peconform {
namespace {

std::atomic<bool> interrupted{false};

extern "C" void on_interrupt(int) {
  interrupted.store(true);
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C ends the process at once
}

struct RunOptions {
  std::string backend = "cpu";
  std::optional<int> device;
  std::string plugin;
  std::vector<std::string> kernels;
  std::string profile = "ci";
  std::uint64_t seed = 20261121;
  std::optional<std::uint64_t> cases;
  int threads = 0;
  std::string spec;
  std::vector<std::string> families, dtypes, precisions;
  std::string out = "out";
  std::string shard;
  std::optional<double> time_budget;
  std::optional<std::uint64_t> max_failures;
  std::optional<std::int64_t> max_elements, max_tokens;
  std::string replay;
  std::string regressions = "fixtures/regressions";
  bool no_save = false;
  bool no_properties = false;
  bool quiet = false;
  bool isolate = false;
  double case_timeout = 600;
  std::string outputs;
};

// The shard --shard or a scheduler's variables name (tools/shard_selection.hpp).
std::pair<int, int> shard_of(const std::string& option) {
  const ShardSelection selection = select_shard(option, process_environment);
  if (!selection.status_file.empty()) std::ofstream{selection.status_file};  // tells GoogleTest's runner that we shard
  return {selection.index, selection.count};
}

// Comma-separated values of a repeatable option.
template <class Enum, class Parse>
std::vector<Enum> parse_list(const std::vector<std::string>& given, const std::string& option, Parse parse) {
  std::vector<Enum> out;
  for (const std::string& text : given) {
    std::size_t start = 0;
    while (start <= text.size()) {
      const std::size_t comma = std::min(text.find(',', start), text.size());
      out.push_back(parse(text.substr(start, comma - start), option));
      start = comma + 1;
    }
  }
  return out;
}

std::string filters_text(const RunOptions& o) {
  std::string out;
  auto add = [&out](const std::string& option, const std::string& value) {
    if (!value.empty()) out += fmt::format("{}{} {}", out.empty() ? "" : " ", option, value);
  };
  add("--spec", o.spec);
  add("--family", fmt::format("{}", fmt::join(o.families, ",")));
  add("--dtype", fmt::format("{}", fmt::join(o.dtypes, ",")));
  add("--precision", fmt::format("{}", fmt::join(o.precisions, ",")));
  return out;
}

// The campaign's kernels: the backend --backend names, or the plugin's kernels (all, or those
// --kernel names), each checked before any case runs: a kernel peconform refuses, or a pattern
// it cannot draw from, is an error naming why, never a kernel silently left out.
std::vector<std::unique_ptr<TensorBackend>> campaign_kernels(const RunOptions& o, std::optional<harness::PluginSource>& source) {
  std::vector<std::unique_ptr<TensorBackend>> kernels;
  if (o.plugin.empty()) {
    if (!o.kernels.empty()) throw SpecError("--kernel names a kernel of a plugin; give the plugin with --plugin");
    kernels.push_back(make_backend(o.backend, o.device));
    if (o.isolate) {
      std::vector<std::string> worker{"/proc/self/exe", "worker", "--backend", o.backend};
      if (o.device) worker.insert(worker.end(), {"--device", std::to_string(*o.device)});
      kernels.back() = harness::make_isolated_backend(std::move(kernels.back()), worker, o.case_timeout);
    }
    return kernels;
  }
  const std::shared_ptr<const plugin::PluginLibrary> library = plugin::PluginLibrary::load(o.plugin);
  source = harness::PluginSource{o.plugin, library->name()};
  std::vector<std::string> chosen;
  for (const std::string& name : o.kernels)
    if (std::find(chosen.begin(), chosen.end(), name) == chosen.end()) chosen.push_back(name);
  if (chosen.empty())
    for (const plugin::KernelDeclaration& kernel : library->kernels()) chosen.push_back(kernel.name);
  if (chosen.empty()) throw SpecError(fmt::format("plugin '{}' declares no kernel", o.plugin));
  for (const std::string& name : chosen) {
    const std::size_t index = library->index_of(name);
    const plugin::KernelDeclaration& declared = library->kernels()[index];
    if (!declared.served())
      throw SpecError(fmt::format("plugin '{}': kernel '{}' is refused: {}", o.plugin, name, declared.refusal));
    if (o.device && declared.device_type == kDLCPU)
      throw SpecError(fmt::format("--device {} picks a device, but kernel '{}' of plugin '{}' runs on the host (kDLCPU)", *o.device, name, o.plugin));
    std::unique_ptr<TensorBackend> kernel = plugin::make_plugin_tensor_backend(library, index, o.device);
    if (const std::string problem = harness::backend_problem(*kernel); !problem.empty())
      throw SpecError(fmt::format("plugin '{}': kernel '{}' is refused: {}", o.plugin, name, problem));
    if (o.isolate) {
      std::vector<std::string> worker{"/proc/self/exe", "worker", "--plugin", o.plugin, "--kernel", name};
      if (o.device) worker.insert(worker.end(), {"--device", std::to_string(*o.device)});
      kernel = harness::make_isolated_backend(std::move(kernel), worker, o.case_timeout);
    }
    kernels.push_back(std::move(kernel));
  }
  return kernels;
}

// --outputs: the kernel ran elsewhere on the cases `cases export` wrote; the manifest says how
// they were drawn, so the options that draw cases come from it.
harness::CampaignResult run_on_files(const RunOptions& o) {
  tensorfiles::OutputsRun files = tensorfiles::prepare_outputs_run(o.outputs);
  harness::CampaignOptions& options = files.options;
  std::tie(options.shard_index, options.shard_count) = shard_of(o.shard);
  options.time_budget_seconds = o.time_budget;
  options.max_failures = o.max_failures;
  if (o.threads > 0) omp_set_num_threads(o.threads);
  if (!o.quiet)
    fmt::print(stderr, "peconform run: the outputs in {}/ ({} exported cases), profile {}, seed {}, shard {}/{}, {} threads{}\n", o.outputs,
               files.manifest.entries.size(), options.profile.name, options.seed, options.shard_index, options.shard_count,
               omp_get_max_threads(), options.filters_text.empty() ? "" : ", " + options.filters_text);
  return tensorfiles::run_outputs(files, console_progress(o.quiet), interrupted);
}

harness::CampaignResult run_in_process(const RunOptions& o) {
  harness::CampaignOptions options;
  const std::vector<std::unique_ptr<TensorBackend>> kernels = campaign_kernels(o, options.plugin);
  std::vector<const TensorBackend*> held;
  for (const auto& kernel : kernels) held.push_back(kernel.get());
  options.profile = harness::profile_named(o.profile);
  options.profile.largest_tensor_elements = o.max_elements.value_or(0);
  options.profile.most_tokens = o.max_tokens.value_or(0);
  options.seed = o.seed;
  options.cases = o.cases;
  if (!o.spec.empty()) options.filters.spec = Spec::parse(o.spec);
  options.filters.families = parse_list<Family>(o.families, "--family", family_named);
  options.filters.dtypes = parse_list<Dtype>(o.dtypes, "--dtype", dtype_named);
  options.filters.precisions = parse_list<PrecisionClass>(o.precisions, "--precision", precision_named);
  options.filters_text = filters_text(o);
  std::tie(options.shard_index, options.shard_count) = shard_of(o.shard);
  options.time_budget_seconds = o.time_budget;
  options.max_failures = o.max_failures;
  if (!o.replay.empty()) options.replay = o.replay;
  options.regressions = o.regressions;
  options.save_regressions = !o.no_save;
  options.run_properties = !o.no_properties;
  if (o.threads > 0) omp_set_num_threads(o.threads);

  if (!o.quiet)
    fmt::print(stderr, "peconform run: {}, profile {}, seed {}, shard {}/{}, {} threads{}\n", options.plugin ? fmt::format("plugin {} ({} kernel(s))", o.plugin, kernels.size()) : "backend " + o.backend,
               options.profile.name, options.seed, options.shard_index, options.shard_count, omp_get_max_threads(),
               options.filters_text.empty() ? "" : ", " + options.filters_text);
  return run_campaign(options, held, console_progress(o.quiet), interrupted);
}

void run(const RunOptions& o) {
  std::signal(SIGINT, on_interrupt);  // first, so that an early Ctrl-C still ends the run cleanly
  const harness::CampaignResult result = o.outputs.empty() ? run_in_process(o) : run_on_files(o);
  std::signal(SIGINT, SIG_DFL);
  write_campaign_reports(result, o.out);
  if (!o.quiet) {
    print_cells(result);
    const harness::RunInfo& i = result.info;
    fmt::print(stderr, "time: {:.2f} s drawing cases, {:.2f} s in the kernel, {:.2f} s verifying ({:.3g} verified elements/s), "
               "{:.2f} s wall\n", i.draw_seconds, i.kernel_seconds, i.verify_seconds, i.verified_elements_per_second, i.wall_seconds);
  }
  // A plugin's kernels, and outputs read from files, have no point evaluator for the property catalog to run on.
  const std::string properties =
      !o.outputs.empty()                   ? "properties not run (tensor files have no point evaluator)"
      : !o.plugin.empty() && !o.no_properties ? "properties not run (plugins have no point evaluator)"
          : fmt::format("{} of {} properties passed",
                        std::count_if(result.properties.begin(), result.properties.end(), [](const auto& p) { return p.passed; }),
                        result.properties.size());
  // A run stopped early with nothing failing has no verdict yet: it says PARTIAL first.
  const std::string verdict = !result.conformant() ? "NON-CONFORMANT" : result.info.partial ? "PARTIAL, conformant so far" : "conformant";
  const std::string summary = fmt::format(
      "{}{}: {} elements in {} cases, {} failures, {}; reports in {}/", verdict,
      result.info.partial ? " (partial: " + result.info.partial_reason + ")" : "", result.total_elements(),
      result.info.cases_run + result.info.regressions_replayed, result.failures.size(), properties, o.out);
  if (!result.conformant()) throw CheckFailed(summary);
  fmt::print(stderr, "{}\n", summary);
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* command = app.add_subcommand("run", "Run the conformance campaign on a backend and write its reports");
  CLI::Option* backend =
      command->add_option("--backend", options->backend, "cpu (our kernels), fast or exact (the reference tiers), opencl or cuda (our GPU kernels)")
          ->capture_default_str();
  command->add_option("--device", options->device, "With --backend opencl or cuda, or --plugin with OpenCL or CUDA kernels: the "
                                                    "device index `peconform devices` prints (default: OpenCL's PECONFORM_OPENCL_DEVICE, else 0)")
      ->check(CLI::NonNegativeNumber);
  command->add_option("--plugin", options->plugin, "Run the kernels of this library (include/peconform/kernel_abi.h) instead")
      ->excludes(backend);
  command->add_option("--kernel", options->kernels, "With --plugin: only this kernel (repeat for several)");
  command->add_option("--profile", options->profile, "smoke, ci or deep")->capture_default_str();
  command->add_option("--seed", options->seed, "Campaign seed: the same seed gives the same cases and report")->capture_default_str();
  command->add_option("--cases", options->cases, "Random cases (overrides the profile's count)");
  command->add_option("--threads", options->threads, "OpenMP threads (default: OMP_NUM_THREADS or every core)")
      ->check(CLI::Range(1, 4096));
  command->add_option("--spec", options->spec, "Draw every case from this spec (its dtype and precision class included)");
  command->add_option("--family", options->families, "Only these families (repeat, or comma-separated)");
  command->add_option("--dtype", options->dtypes, "Only these dtypes: fp64, fp32, fp16, bf16");
  command->add_option("--precision", options->precisions, "Only these precision classes: exact-angle, fp32-angle, lowp-cache, fp64-angle (tables; drawn only where named)");
  command->add_option("--out", options->out, "Folder for report.json, junit.xml, summary.md and report.html")->capture_default_str();
  command->add_option("--shard", options->shard, "Run shard I of N (I/N); also read from GTEST_*, SLURM_ARRAY_* and JOB_COMPLETION_INDEX variables");
  command->add_option("--time-budget", options->time_budget, "Stop after this many seconds and write a partial report")
      ->check(CLI::PositiveNumber);
  command->add_option("--max-failures", options->max_failures, "Stop after this many failing cases and write a partial report")
      ->check(CLI::PositiveNumber);
  command->add_option("--max-elements", options->max_elements,
                      "No tensor of a call past this many elements (a slow kernel's cost; long and huge calls need room)")
      ->check(CLI::PositiveNumber);
  command->add_option("--max-tokens", options->max_tokens,
                      "No call past this many tokens, batch x seq (a one-program-per-token kernel's launches)")
      ->check(CLI::PositiveNumber);
  command->add_option("--replay", options->replay, "Run exactly this case string (as a failure prints it) and nothing else");
  command->add_option("--regressions", options->regressions, "The regression corpus folder")->capture_default_str();
  command->add_flag("--no-save", options->no_save, "Do not save failures to the regression corpus");
  command->add_flag("--no-properties", options->no_properties, "Skip the property catalog");
  command->add_flag("--quiet", options->quiet, "Print failures and errors only");
  command->add_flag("--isolate", options->isolate,
                    "Run the kernels in a child process: a crash or hang fails its case, not the campaign");
  command->add_option("--case-timeout", options->case_timeout, "With --isolate: seconds a call may take before it counts as a hang")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  CLI::Option* outputs = command->add_option(
      "--outputs", options->outputs,
      "Verify the outputs a kernel wrote for the cases `peconform cases export` put in this folder (its manifest says how they were drawn)");
  for (const char* drawn_by_manifest : {"--backend", "--device", "--plugin", "--kernel", "--profile", "--seed", "--cases", "--spec", "--family",
                                        "--dtype", "--precision", "--max-elements", "--max-tokens", "--replay", "--regressions",
                                        "--isolate", "--case-timeout"})
    outputs->excludes(command->get_option(drawn_by_manifest));
  command->callback([options] { run(*options); });
}

}  // namespace peconform
