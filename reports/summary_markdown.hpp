#pragma once
// summary.md: the campaign as GitHub-flavoured Markdown for a CI step summary, the first thing
// a kernel author sees on a pull request: the verdict, the conformance matrix, the bounds too
// loose to mean anything, and each failure with the command that replays it.
#include <string>

#include "harness/campaign_result.hpp"

namespace peconform {

std::string summary_markdown(const harness::CampaignResult& result);

}  // namespace peconform
