#pragma once
// `peconform run --outputs DIR`: the campaign on a kernel reached through files. The folder is
// one `peconform cases export` wrote, with the kernel's output files added; the campaign draws
// the manifest's cases again and its backend answers each call with the outputs the kernel
// wrote for it, so that verdicts, statistics and reports are the campaign's own.
#include <atomic>
#include <filesystem>
#include <memory>

#include "backends/tensor_backend.hpp"
#include "harness/campaign.hpp"
#include "tensorfiles/manifest.hpp"

namespace peconform::tensorfiles {

// The backend whose run() reads the outputs of the exported case its call is (found by
// call_fingerprint); a call no exported case makes is refused (SpecError), an output that
// cannot be read is an error naming its file.
std::unique_ptr<TensorBackend> make_outputs_backend(const std::filesystem::path& folder, const Manifest& manifest);

struct OutputsRun {
  std::filesystem::path folder;
  Manifest manifest;
  harness::CampaignOptions options;  // the manifest's draw; a caller may add a shard, a budget, --max-failures
  std::unique_ptr<TensorBackend> kernel;
};

// Reads the manifest, checks that the campaign draws exactly its cases and that every output
// file is there with its dtype, shape and size, before any case is verified. Throws SpecError
// naming the first bad file and what it should be (and how many more are bad).
OutputsRun prepare_outputs_run(const std::filesystem::path& folder);

// Runs the campaign. Its failures carry the file route's replay command and say why they are
// not shrunk (file_route.hpp), in the progress callback and in the result alike.
harness::CampaignResult run_outputs(const OutputsRun& run, const harness::CampaignProgress& progress, const std::atomic<bool>& stop);

}  // namespace peconform::tensorfiles
