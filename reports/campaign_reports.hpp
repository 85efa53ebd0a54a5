#pragma once
// Writes every report of a campaign into one directory: report.json (the data, which
// `peconform merge` and other tools read back), junit.xml (for CI test pages), summary.md (for
// a CI step summary) and report.html (to publish). Each file is written whole or not at all.
#include <filesystem>

#include "harness/campaign_result.hpp"

namespace peconform {

// Throws std::runtime_error naming the file that could not be written.
void write_campaign_reports(const harness::CampaignResult& result, const std::filesystem::path& dir);

}  // namespace peconform
