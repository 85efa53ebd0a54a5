#include "reports/junit_xml.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <set>

#include "reports/report_facts.hpp"
#include "reports/xml_escape.hpp"

namespace peconform {
namespace {

// JUnit times are xs:decimal: fixed point, never "inf" or an exponent.
std::string seconds(double value) { return fmt::format("{:.3f}", std::isfinite(value) && value > 0 ? value : 0.0); }

struct Testcase {
  std::string name, classname;
  std::string failure_message;  // empty: passed
  std::string failure_body;
};

std::string failure_text(const std::vector<const harness::FailureRecord*>& failures) {
  std::string body;
  for (const harness::FailureRecord* f : failures) {
    if (!body.empty()) body += '\n';
    for (const Fact& fact : failure_facts(*f)) body += fmt::format("{}: {}\n", fact.label, fact.value);
    body += fmt::format("replay: {}\n", f->replay_command);
  }
  return body;
}

std::vector<Testcase> cell_testcases(const harness::CampaignResult& result) {
  std::vector<Testcase> cases;
  std::set<const harness::FailureRecord*> reported;
  for (const auto& [key, stats] : result.cells) {
    const std::vector<const harness::FailureRecord*> failures = failures_of(result, key);
    reported.insert(failures.begin(), failures.end());
    Testcase& testcase = cases.emplace_back(Testcase{cell_name(key), "peconform.cells", "", ""});
    if (stats.failed_cases == 0 && failures.empty()) continue;
    const auto failed = std::max<std::uint64_t>(stats.failed_cases, failures.size());
    const auto flaky = std::count_if(failures.begin(), failures.end(), [](const harness::FailureRecord* f) { return f->flaky; });
    testcase.failure_message = fmt::format("{} failing case{}{}, worst error/bound {:.3g} in {}", failed, failed == 1 ? "" : "s",
                                           flaky > 0 ? fmt::format(" ({} flaky)", flaky) : "", stats.worst_ratio, stats.worst_case);
    testcase.failure_body = failure_text(failures);
  }
  // A kernel that threw leaves a failure record but may have counted no element in any cell:
  // it still has to fail a test case, or CI would show green for a non-conformant run.
  for (const harness::FailureRecord& f : result.failures) {
    if (reported.contains(&f)) continue;
    const harness::CellKey key{f.cell_backend, f.cell_family, f.cell_dtype, f.cell_precision};
    cases.push_back({cell_name(key), "peconform.cells", fmt::format("failing case {}{}", f.case_text, f.flaky ? " (flaky)" : ""),
                     failure_text({&f})});
  }
  return cases;
}

std::vector<Testcase> property_testcases(const harness::CampaignResult& result) {
  std::vector<Testcase> cases;
  for (const harness::PropertyVerdict& p : result.properties) {
    if (p.passed) {
      cases.push_back({p.name, "peconform.properties", "", ""});
      continue;
    }
    // RapidCheck's description runs to many lines; its first names the counterexample.
    const std::string first_line = p.message.substr(0, p.message.find('\n'));
    cases.push_back({p.name, "peconform.properties",
                     first_line.empty() ? fmt::format("property failed on {}", p.families) : first_line, p.message});
  }
  return cases;
}

std::size_t failures_in(const std::vector<Testcase>& cases) {
  return static_cast<std::size_t>(
      std::count_if(cases.begin(), cases.end(), [](const Testcase& c) { return !c.failure_message.empty(); }));
}

void write_suite(std::string& xml, const std::string& name, const std::vector<Testcase>& cases, const std::string& time,
                 const harness::RunInfo& info) {
  xml += fmt::format(
      "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\"{} hostname=\"{}\">\n", name,
      cases.size(), failures_in(cases), time.empty() ? "" : fmt::format(" time=\"{}\"", time),
      xml_attribute(info.machine));
  xml += "    <properties>\n";
  const std::pair<const char*, std::string> properties[] = {{"seed", fmt::format("{}", info.seed)},
                                                            {"profile", info.profile},
                                                            {"backend", info.backend},
                                                            {"commit", info.commit}};
  for (const auto& [key, value] : properties)
    xml += fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", key, xml_attribute(value));
  xml += "    </properties>\n";
  for (const Testcase& c : cases) {
    const std::string open =
        fmt::format("    <testcase name=\"{}\" classname=\"{}\"", xml_attribute(c.name), c.classname);
    if (c.failure_message.empty()) {
      xml += open + "/>\n";
      continue;
    }
    xml += fmt::format("{}>\n      <failure message=\"{}\" type=\"nonconformance\">{}</failure>\n    </testcase>\n",
                       open, xml_attribute(c.failure_message), xml_text(c.failure_body));
  }
  xml += "  </testsuite>\n";
}

}  // namespace

std::string junit_xml(const harness::CampaignResult& result) {
  const std::vector<Testcase> cells = cell_testcases(result);
  const std::vector<Testcase> properties = property_testcases(result);
  // The campaign times itself as a whole: the wall time belongs to the cells, whose cases are
  // what it spends its time on; properties carry no time of their own.
  const std::string wall = seconds(result.info.wall_seconds);
  std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  xml += fmt::format(
      "<testsuites name=\"peconform\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\" time=\"{}\">\n",
      cells.size() + properties.size(), failures_in(cells) + failures_in(properties), wall);
  write_suite(xml, "peconform.cells", cells, wall, result.info);
  write_suite(xml, "peconform.properties", properties, "", result.info);
  xml += "</testsuites>\n";
  return xml;
}

}  // namespace peconform
