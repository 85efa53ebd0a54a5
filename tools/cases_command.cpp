// peconform cases export: the cases `peconform run` draws, as .npy files and a manifest, for a
// kernel that cannot be called in-process (tensorfiles/case_export.hpp); `peconform run
// --outputs` verifies what the kernel wrote.
#include <fmt/format.h>
#include <memory>

#include "tensorfiles/case_export.hpp"
#include "tools/commands.hpp"

namespace peconform {
namespace {

struct ExportOptions {
  tensorfiles::ExportRequest request;
  std::string out;
  bool quiet = false;
};

void export_command(const ExportOptions& o) {
  const tensorfiles::Manifest manifest = tensorfiles::export_cases(o.request, o.out, [&](std::uint64_t done, std::uint64_t total) {
    if (!o.quiet && (done % 100 == 0 || done == total)) fmt::print(stderr, "cases export: {}/{} cases written\n", done, total);
  });
  std::size_t outputs = 0;
  for (const tensorfiles::ManifestCase& c : manifest.entries) outputs += c.outputs.size();
  fmt::print(stderr, "exported {} cases to {}/ ({}): run the kernel on each case's inputs, write the {} output files the "
             "manifest names, then: peconform run --outputs {}\n", manifest.entries.size(), o.out, tensorfiles::kManifestFile,
             outputs, o.out);
}

}  // namespace

void add_cases_command(CLI::App& app) {
  CLI::App* cases = app.add_subcommand("cases", "Campaign cases as files, for kernels that cannot be called in-process");
  cases->require_subcommand(1);
  auto options = std::make_shared<ExportOptions>();
  options->request.seed = 20261121;  // `peconform run`'s default
  CLI::App* command = cases->add_subcommand(
      "export", "Write the cases `peconform run` draws as .npy inputs and ids with manifest.json; `run --outputs` verifies the outputs");
  CLI::Option* spec = command->add_option("--spec", options->request.spec,
                                          "The spec every case uses, or a spec pattern (`*`, `a|b` choices) to draw specs from");
  command->add_option("--replay", options->request.replay, "Export exactly this case string (as a failure prints it)")->excludes(spec);
  command->add_option("--profile", options->request.profile, "smoke, ci or deep")->capture_default_str();
  command->add_option("--seed", options->request.seed, "Campaign seed, as `peconform run --seed`")->capture_default_str();
  command->add_option("--cases", options->request.cases, "Random cases (overrides the profile's count)");
  command->add_option("--out", options->out, "A new (or empty) folder for the files and manifest.json")->required();
  command->add_flag("--quiet", options->quiet, "Print errors only");
  command->callback([options] { export_command(*options); });
}

}  // namespace peconform
