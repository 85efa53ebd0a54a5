#pragma once
// report.html: the campaign as one self-contained page (inline CSS and SVG, no script, nothing
// fetched), for backend teams to publish and for anyone to open from a CI artifact offline:
// the verdict, the conformance matrix, loose bounds, properties, failures, and per family the
// worst error/bound ratio against position and the distribution of ratios.
#include <string>

#include "harness/campaign_result.hpp"

namespace peconform {

std::string report_html(const harness::CampaignResult& result);

}  // namespace peconform
