#pragma once
// report.html: the campaign as one self-contained page (inline CSS and SVG, no script, nothing
// fetched), for backend teams to publish and for anyone to open from a CI artifact offline:
// the verdict; the failing cases, if any, as cards; the overview grid; the run; the table of
// every cell; loose bounds; per family the worst error/bound ratio against position and the
// distribution of ratios; the properties. It never scrolls sideways at 1,400 pixels and prints
// on A4 (reports/report.css).
#include <string>

#include "harness/campaign_result.hpp"

namespace peconform {

std::string report_html(const harness::CampaignResult& result);

}  // namespace peconform
