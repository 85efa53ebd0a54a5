#pragma once
// report.html's failing cases, first on the page when there are any: one card per failing case
// with what a kernel author acts on (the case, the replay command to copy, as report.json holds
// it, and the first failing element: where, reference, actual, error / bound, kind), every
// other fact of the failure folded beneath. Past the first few the cards are folded too, so
// that a kernel failing hundreds of cases still shows the overview grid on the first screen.
#include <string>

#include "harness/campaign_result.hpp"

namespace peconform {

std::string failure_cards(const harness::CampaignResult& result);

}  // namespace peconform
