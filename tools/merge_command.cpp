// peconform merge: joins the report.json of every shard of one campaign into the report of the
// unsharded campaign and writes all four reports. Exit 0 conformant, 1 not, 2 bad input.
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>

#include "harness/campaign_result.hpp"
#include "reports/campaign_reports.hpp"
#include "spec/spec_error.hpp"
#include "tools/commands.hpp"
#include "tools/exit_codes.hpp"

namespace peconform {
namespace {

struct MergeOptions {
  std::vector<std::string> folders;
  std::string out = "out";
};

harness::CampaignResult read_report(const std::string& folder) {
  const std::filesystem::path path = std::filesystem::path(folder) / "report.json";
  std::ifstream in(path);
  if (!in) throw SpecError(fmt::format("cannot read '{}'", path.string()));
  const nlohmann::json json = nlohmann::json::parse(in, nullptr, false);
  if (json.is_discarded()) throw SpecError(fmt::format("'{}' is not JSON", path.string()));
  try {
    return harness::from_json(json);
  } catch (const std::runtime_error& error) {
    throw SpecError(fmt::format("'{}': {}", path.string(), error.what()));
  }
}

void merge(const MergeOptions& options) {
  std::vector<harness::CampaignResult> shards;
  for (const std::string& folder : options.folders) shards.push_back(read_report(folder));
  harness::CampaignResult merged;
  try {
    merged = harness::merge_results(shards);
  } catch (const std::runtime_error& error) {
    throw SpecError(error.what());
  }
  write_campaign_reports(merged, options.out);
  const std::string summary = fmt::format("{} shards merged into {}/: {}", shards.size(), options.out,
                                          merged.conformant() ? "conformant" : "NON-CONFORMANT");
  if (!merged.conformant()) throw CheckFailed(summary);
  fmt::print(stderr, "{}\n", summary);
}

}  // namespace

void add_merge_command(CLI::App& app) {
  auto options = std::make_shared<MergeOptions>();
  CLI::App* command = app.add_subcommand("merge", "Join shard reports into the report of the whole campaign");
  command->add_option("folders", options->folders, "The --out folder of every shard")->required();
  command->add_option("--out", options->out, "Folder for the merged reports")->capture_default_str();
  command->callback([options] { merge(*options); });
}

}  // namespace peconform
