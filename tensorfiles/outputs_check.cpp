#include "tensorfiles/outputs_check.hpp"

#include <fmt/format.h>
#include <stdexcept>
#include <unordered_map>

#include "spec/spec_error.hpp"
#include "tensorfiles/call_arrays.hpp"
#include "tensorfiles/file_route.hpp"
#include "tensorfiles/npy_file.hpp"

namespace peconform::tensorfiles {
namespace {

std::string output_role(const ManifestCase& c, const ArrayFile& output) {
  return fmt::format("the kernel's output {} of case {} ('{}')", output.name, c.index, c.case_text);
}

// A missing output file is named with what should be in it; any other bad file by read_npy.
void check_output(const std::filesystem::path& folder, const ManifestCase& c, const ArrayFile& output) {
  const std::filesystem::path file = folder / output.file;
  std::error_code error;
  if (!std::filesystem::exists(file, error))
    throw SpecError(fmt::format("'{}' is missing: {} goes there, a C-order .npy of dtype '{}' and shape {}", file.string(),
                                output_role(c, output), output.descr, shape_text(output.shape)));
  expect_npy(file, read_npy_header(file), output.descr, output.shape, output_role(c, output));
}

class OutputsBackend final : public TensorBackend {
 public:
  OutputsBackend(std::filesystem::path folder, const Manifest& manifest, BackendCapabilities capabilities)
      : folder_(std::move(folder)), entries_(manifest.entries), capabilities_(std::move(capabilities)) {
    for (const ManifestCase& c : entries_) by_fingerprint_.emplace(c.fingerprint, &c);
  }

  std::string name() const override { return kBackendName; }
  BackendCapabilities capabilities() const override { return capabilities_; }

  void run(KernelCall& call) const override {
    const auto found = by_fingerprint_.find(fmt::format("{:016x}", call_fingerprint(call)));
    if (found == by_fingerprint_.end())
      throw SpecError(fmt::format("no exported case of '{}' makes this {} call: the kernel's outputs exist for the exported calls "
                                  "alone (and a folder another peconform build exported may draw its calls differently)",
                                  folder_.string(), call.spec.canonical()));
    const ManifestCase& c = *found->second;
    if (c.outputs.size() != call.outputs.size())
      throw std::runtime_error(fmt::format("case {} of the manifest names {} outputs; its call has {}", c.index, c.outputs.size(),
                                           call.outputs.size()));
    for (std::size_t o = 0; o < call.outputs.size(); ++o) {
      const ArrayFile& output = c.outputs[o];
      const std::filesystem::path file = folder_ / output.file;
      // Read again as the case runs: a file changed since prepare_outputs_run is still checked.
      const NpyArray array = read_npy(file);
      expect_npy(file, array.header, storage_descr(call.outputs[o].type), shown_shape(call.outputs[o], call.spec.family, false),
                 output_role(c, output));
      set_logical_bytes(call.outputs[o], array.data);
    }
  }

 private:
  std::filesystem::path folder_;
  std::vector<ManifestCase> entries_;
  BackendCapabilities capabilities_;
  std::unordered_map<std::string, const ManifestCase*> by_fingerprint_;
};

}  // namespace

std::unique_ptr<TensorBackend> make_outputs_backend(const std::filesystem::path& folder, const Manifest& manifest) {
  const BackendCapabilities capabilities = manifest.replay ? file_route_capabilities() : file_route_drawing(manifest.spec).capabilities;
  return std::make_unique<OutputsBackend>(folder, manifest, capabilities);
}

OutputsRun prepare_outputs_run(const std::filesystem::path& folder) {
  OutputsRun run{folder, read_manifest(folder), {}, nullptr};
  const Manifest& m = run.manifest;
  // The campaign draws the cases again: they must be the manifest's, in its order.
  const std::vector<DrawnCase> drawn = file_route_cases(m.spec, m.profile, m.seed, m.cases, m.replay);
  if (drawn.size() != m.entries.size())
    throw SpecError(fmt::format("manifest '{}' lists {} cases, but its spec, profile and seed draw {}: it was edited, or "
                                "written by another version of peconform; export the cases again",
                                (folder / kManifestFile).string(), m.entries.size(), drawn.size()));
  for (std::size_t k = 0; k < drawn.size(); ++k)
    if (drawn[k].description.text() != m.entries[k].case_text || drawn[k].index != m.entries[k].index)
      throw SpecError(fmt::format("manifest '{}' lists case {} as '{}', but its spec, profile and seed draw '{}': it was edited, "
                                  "or written by another version of peconform; export the cases again",
                                  (folder / kManifestFile).string(), m.entries[k].index, m.entries[k].case_text,
                                  drawn[k].description.text()));
  std::string first_problem;
  std::size_t problems = 0;
  for (const ManifestCase& c : m.entries)
    for (const ArrayFile& output : c.outputs) {
      try {
        check_output(folder, c, output);
      } catch (const SpecError& error) {
        if (problems++ == 0) first_problem = error.what();
      }
    }
  if (problems == 1) throw SpecError(first_problem);
  if (problems > 1) throw SpecError(fmt::format("{} (and {} more output files are missing or bad)", first_problem, problems - 1));

  harness::CampaignOptions& options = run.options;
  options.profile = harness::profile_named(m.profile);
  options.seed = m.seed;
  options.cases = m.cases;
  options.replay = m.replay;
  if (!m.replay) {
    const Drawing drawing = file_route_drawing(m.spec);
    options.filters = drawing.filters;
    options.filters_text = drawing.filters_text;
  }
  // No saved case is replayed (the export folder has no tensor-files/ corpus) and none is saved:
  // the kernel's outputs exist for the exported cases alone.
  options.regressions = folder;
  options.save_regressions = false;
  run.kernel = make_outputs_backend(folder, m);
  return run;
}

harness::CampaignResult run_outputs(const OutputsRun& run, const harness::CampaignProgress& progress, const std::atomic<bool>& stop) {
  const auto as_file_route = [](harness::FailureRecord& failure) {
    failure.replay_command = file_route_replay_command(failure.case_text);
    if (!failure.flaky) failure.shrink_note = kNotShrunkNote;
  };
  harness::CampaignProgress told = progress;
  if (progress.failed)
    told.failed = [&](const harness::FailureRecord& failure) {
      harness::FailureRecord shown = failure;
      as_file_route(shown);
      progress.failed(shown);
    };
  harness::CampaignResult result = harness::run_campaign(run.options, *run.kernel, told, stop);
  for (harness::FailureRecord& failure : result.failures) as_file_route(failure);
  return result;
}

}  // namespace peconform::tensorfiles
