#pragma once
// reports/report.css, the style sheet report.html and the upstream matrix page share, as the
// build read it: the binary writes a report anywhere, without the source tree beside it.
#include <string_view>

namespace peconform {

std::string_view report_css();

}  // namespace peconform
