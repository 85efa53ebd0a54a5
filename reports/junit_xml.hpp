#pragma once
// junit.xml: the campaign in the JUnit XML dialect that CI systems display (schema: junit.xsd
// beside this file). One test case per conformance cell and one per property, so that a CI
// page lists which backend/family/dtype/class failed and shows the failing element and its
// replay command without anyone opening report.json.
#include <string>

#include "harness/campaign_result.hpp"

namespace peconform {

std::string junit_xml(const harness::CampaignResult& result);

}  // namespace peconform
