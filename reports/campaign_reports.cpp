#include "reports/campaign_reports.hpp"

#include <nlohmann/json.hpp>

#include "reports/atomic_file.hpp"
#include "reports/junit_xml.hpp"
#include "reports/report_html.hpp"
#include "reports/summary_markdown.hpp"

namespace peconform {

void write_campaign_reports(const harness::CampaignResult& result, const std::filesystem::path& dir) {
  write_file_atomically(dir / "report.json", harness::to_json(result).dump(2) + "\n");
  write_file_atomically(dir / "junit.xml", junit_xml(result));
  write_file_atomically(dir / "summary.md", summary_markdown(result));
  write_file_atomically(dir / "report.html", report_html(result));
}

}  // namespace peconform
