// peconform merge: joins the report.json of every shard of one campaign into the report of the
// unsharded campaign and writes all four reports. Exit 0 conformant, 1 not, 2 bad input (a shard
// missing, or a folder without its report, included). Partial shards merge into a partial
// report, exiting as `run` does on one: the report and the last line say partial and name them.
#include <filesystem>
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

// A shard's folder without report.json: its task ended before writing one (cancelled, out of
// time, its node lost) or has not run. Together with the shards no folder holds, it is named, and
// nothing is written: a merged report of fewer shards would look like the whole campaign's.
void merge(const MergeOptions& options) {
  std::vector<harness::CampaignResult> shards;
  std::vector<std::string> without_report;
  for (const std::string& folder : options.folders) {
    if (std::filesystem::is_directory(folder) && !std::filesystem::exists(std::filesystem::path(folder) / "report.json"))
      without_report.push_back(fmt::format("'{}'", folder));
    else
      shards.push_back(read_report(folder));
  }
  const std::string unfinished =
      without_report.empty() ? ""
                             : fmt::format(" ({} without report.json: a task that did not finish)", fmt::join(without_report, ", "));
  if (shards.empty()) throw SpecError(fmt::format("no shard report to merge{}", unfinished));
  harness::CampaignResult merged;
  try {
    merged = harness::merge_results(shards);
  } catch (const std::runtime_error& error) {
    throw SpecError(error.what() + unfinished);
  }
  if (!without_report.empty())
    throw SpecError(fmt::format("every shard has a report, yet{}; give only the campaign's shard folders", unfinished));
  write_campaign_reports(merged, options.out);
  const std::string summary =
      fmt::format("{} shards merged into {}/: {}{}", shards.size(), options.out, merged.conformant() ? "conformant" : "NON-CONFORMANT",
                  merged.info.partial ? fmt::format("; the campaign is PARTIAL ({})", merged.info.partial_reason) : "");
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
