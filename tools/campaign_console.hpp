#pragma once
// What `peconform run` prints while it runs: a progress bar on a terminal, a line per phase
// step otherwise; every failure in full (case, element, position, input, reference, actual,
// ULPs, ratio to bound, seed, replay command); a line per cell at the end.
#include "harness/campaign.hpp"

namespace peconform {

harness::CampaignProgress console_progress(bool quiet);
void print_failure(const harness::FailureRecord& failure);
void print_cells(const harness::CampaignResult& result);

}  // namespace peconform
