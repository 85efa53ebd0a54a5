#pragma once
// The campaign: draw the profile's random cases, replay the backend's saved regressions, then
// run, verify and (on failure) shrink and save the random cases, while the property catalog
// runs on the backend's point evaluator on a thread of its own (property_thread.hpp; after the
// cases instead when the run has one thread); gather everything into one CampaignResult. A
// plugin library's campaign holds each of its kernels as a backend, with the kernel as the
// backend of its cells. Cases run one at a time on the calling thread (a backend may need
// that); each case's buffers are drawn and verified on the whole OpenMP team.
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>

#include "backends/tensor_backend.hpp"
#include "harness/campaign_result.hpp"
#include "harness/case_generator.hpp"
#include "harness/profile.hpp"

namespace peconform::harness {

// The kernel library a campaign's kernels come from (`run --plugin`): its replay commands name
// it, and its kernels' regressions live in <regressions>/<library>/<kernel>/.
struct PluginSource {
  std::string path, library;
};

struct CampaignOptions {
  Profile profile;
  std::uint64_t seed = 0;
  std::optional<std::uint64_t> cases;  // overrides the profile's count
  CaseFilters filters;
  std::string filters_text;            // the filters as given, for the report
  int shard_index = 1, shard_count = 1;
  std::optional<double> time_budget_seconds;
  std::optional<std::uint64_t> max_failures;  // stop once this many cases failed (fail fast)
  std::optional<std::string> replay;   // run this one case only
  std::filesystem::path regressions = "fixtures/regressions";
  bool save_regressions = true;
  bool run_properties = true;
  std::optional<PluginSource> plugin;
  std::string execution;  // where and how the kernel ran, as its caller words it (RunInfo::execution)
};

// What a long run tells whoever watches it; every callback is optional and runs on the calling thread.
struct CampaignProgress {
  std::function<void(const std::string& phase, std::uint64_t done, std::uint64_t total, std::uint64_t elements,
                     std::uint64_t failures, double seconds)>
      advanced;
  std::function<void(const FailureRecord&)> failed;
};

// Runs the campaign until done, `stop` is set (Ctrl-C) or the time budget runs out; the last
// two mark the result partial. Throws SpecError for bad options or a bad replay case.
CampaignResult run_campaign(const CampaignOptions& options, std::span<const TensorBackend* const> kernels,
                            const CampaignProgress& progress, const std::atomic<bool>& stop);
CampaignResult run_campaign(const CampaignOptions& options, const TensorBackend& backend, const CampaignProgress& progress,
                            const std::atomic<bool>& stop);

// The command that replays a case on a backend, or on a plugin's kernel.
std::string replay_command(const std::string& backend, const std::string& case_text);
std::string replay_command(const PluginSource& plugin, const std::string& kernel, const std::string& case_text);

}  // namespace peconform::harness
