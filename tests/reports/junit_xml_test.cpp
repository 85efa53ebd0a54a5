#include <fmt/format.h>
#include <gtest/gtest.h>
#include <cmath>
#include <functional>
#include <regex>

#include "reports/junit_xml.hpp"
#include "reports/xml_escape.hpp"
#include "sample_result.hpp"
#include "support/scratch_dir.hpp"

namespace peconform {
namespace {

const std::string kXmllint = "/usr/bin/xmllint";
const std::string kSchema = std::string(PECONFORM_SOURCE_DIR) + "/reports/junit.xsd";

ToolRun validate(const std::filesystem::path& file) {
  return run_tool(fmt::format("{} --noout --schema {} {}", kXmllint, shell_quote(kSchema), shell_quote(file.string())));
}

// The value of an XPath expression, without the line feed xmllint ends it with.
std::string xpath(const std::filesystem::path& file, const std::string& expression) {
  std::string value =
      run_tool(fmt::format("{} --xpath {} {}", kXmllint, shell_quote(expression), shell_quote(file.string()))).output;
  if (value.ends_with('\n')) value.pop_back();
  return value;
}

TEST(JunitXml, IsValidAgainstOurSchema) {
  ASSERT_TRUE(tool_installed(kXmllint, "libxml2-utils"));
  const ScratchDir dir;
  const ToolRun run = validate(dir.write("junit.xml", junit_xml(sample_result())));
  EXPECT_EQ(run.exit_code, 0) << run.output;
}

TEST(JunitXml, SchemaRejectsATestcaseWithoutAName) {
  ASSERT_TRUE(tool_installed(kXmllint, "libxml2-utils"));
  const ScratchDir dir;
  const std::string xml =
      std::regex_replace(junit_xml(sample_result()), std::regex("<testcase name=\"[^\"]*\""), "<testcase");
  EXPECT_NE(validate(dir.write("junit.xml", xml)).exit_code, 0);
}

TEST(JunitXml, CountsMatchTheCellsAndProperties) {
  ASSERT_TRUE(tool_installed(kXmllint, "libxml2-utils"));
  const ScratchDir dir;
  const std::filesystem::path file = dir.write("junit.xml", junit_xml(sample_result()));
  // 5 cells, one failing; 3 properties, one failing.
  EXPECT_EQ(xpath(file, "string(/testsuites/@tests)"), "8");
  EXPECT_EQ(xpath(file, "string(/testsuites/@failures)"), "2");
  // Nothing is an error or skipped: a failing cell is a failure, and every cell ran.
  EXPECT_EQ(xpath(file, "string(/testsuites/@errors)"), "0");
  EXPECT_EQ(xpath(file, "string(/testsuites/@skipped)"), "0");
  EXPECT_EQ(xpath(file, "string(//testsuite[@name='peconform.cells']/@tests)"), "5");
  EXPECT_EQ(xpath(file, "string(//testsuite[@name='peconform.cells']/@failures)"), "1");
  EXPECT_EQ(xpath(file, "string(//testsuite[@name='peconform.properties']/@tests)"), "3");
  EXPECT_EQ(xpath(file, "string(//testsuite[@name='peconform.properties']/@failures)"), "1");
  EXPECT_EQ(xpath(file, "count(//testcase)"), "8");
  EXPECT_EQ(xpath(file, "count(//failure)"), "2");
  EXPECT_EQ(xpath(file, "string(//testcase[failure]/@name)"), "cpu/rope/float32/fp32-angle");
  EXPECT_EQ(xpath(file, "string(//testsuite[@name='peconform.properties']/testcase[failure]/@name)"),
            "sinusoid_matches_shifted_angle");
  EXPECT_EQ(xpath(file, "string(//testsuite[1]/properties/property[@name='seed']/@value)"), "20261121");
  EXPECT_EQ(xpath(file, "string(//testsuite[1]/properties/property[@name='commit']/@value)"), "b6d69c0");
}

TEST(JunitXml, EscapedTextReadsBackAsWritten) {
  ASSERT_TRUE(tool_installed(kXmllint, "libxml2-utils"));
  const ScratchDir dir;
  const std::string xml = junit_xml(sample_result());
  EXPECT_EQ(xml.find("p<2^17"), std::string::npos);
  EXPECT_EQ(xml.find("select=q&k"), std::string::npos);
  EXPECT_NE(xml.find("p&lt;2^17"), std::string::npos);
  EXPECT_EQ(xml.find('\x01'), std::string::npos);
  const std::filesystem::path file = dir.write("junit.xml", xml);
  EXPECT_EQ(xpath(file, "string(//testcase[@classname='peconform.cells']/failure/@message)"),
            fmt::format("2 failing cases (1 flaky), worst error/bound 3.5 in {}", kFailingCase));
  const std::string body = xpath(file, "string(//testcase[@classname='peconform.cells']/failure)");
  EXPECT_NE(body.find(fmt::format("case: {}\n", kFailingCase)), std::string::npos) << body;
  EXPECT_NE(body.find(fmt::format("replay: peconform run --backend cpu --replay '{}'\n", kFailingCase)),
            std::string::npos);
  EXPECT_NE(body.find("first failure: nan in q element 3 at (0, 0, 0, 3)"), std::string::npos) << body;
  EXPECT_NE(body.find("error / bound: inf"), std::string::npos) << body;
  EXPECT_NE(body.find("flaky: yes\nshrinking: flaky: replay 2 of 5 of the smaller case '"), std::string::npos) << body;
  const std::string property = xpath(file, "string(//testcase[@name='sinusoid_matches_shifted_angle']/failure)");
  EXPECT_NE(property.find("\xEF\xBF\xBD counterexample: position=16777217"), std::string::npos) << property;
}

TEST(JunitXml, AFailureOutsideEveryCellStillFailsATestcase) {
  ASSERT_TRUE(tool_installed(kXmllint, "libxml2-utils"));
  const ScratchDir dir;
  harness::CampaignResult result = sample_result();
  harness::FailureRecord threw = result.failures.front();
  threw.cell_family = "xpos";
  threw.first.kind = "error";
  threw.message = "kernel threw: d must be even";
  result.failures.push_back(threw);
  const std::filesystem::path file = dir.write("junit.xml", junit_xml(result));
  EXPECT_EQ(validate(file).exit_code, 0);
  EXPECT_EQ(xpath(file, "string(/testsuites/@tests)"), "9");
  EXPECT_EQ(xpath(file, "string(/testsuites/@failures)"), "3");
  EXPECT_NE(
      xpath(file, "string(//testcase[@name='cpu/xpos/float32/fp32-angle']/failure)").find("kernel said: kernel threw"),
      std::string::npos);
}

// Two failures of one cell are one failure element, each with its facts and its replay line,
// a blank line between them.
TEST(JunitXml, TwoFailuresOfOneCellAreSeparatedByABlankLine) {
  harness::CampaignResult result = sample_result();
  harness::FailureRecord second = result.failures.front();
  second.replay_command = "peconform run --replay 'the second'";
  result.failures.push_back(second);
  const std::string xml = junit_xml(result);
  const std::string first_replay = "replay: " + xml_text(result.failures.front().replay_command) + "\n";
  const std::size_t first = xml.find(first_replay);
  ASSERT_NE(first, std::string::npos) << xml;
  const std::size_t after = first + first_replay.size();
  EXPECT_EQ(xml.substr(after, 1), "\n") << xml.substr(first, 200);
  EXPECT_NE(xml.find("replay: " + xml_text(second.replay_command), after), std::string::npos) << xml;
}

// The failing cell's failure message (sample: failed_cases 2, records numeric and nan, the nan
// one flaky) as xmllint reads it back, after `change`.
std::string cell_message(const std::function<void(harness::CampaignResult&)>& change) {
  harness::CampaignResult result = sample_result();
  change(result);
  const ScratchDir dir;
  return xpath(dir.write("junit.xml", junit_xml(result)), "string(//testcase[@name='cpu/rope/float32/fp32-angle']/failure/@message)");
}

// A cell's count of failing cases is the larger of its own tally and its failure records (a
// kernel that threw may leave a record and no tally, a run that saves only some failures a
// tally larger than its records), singular for one, with a flaky note only where one is flaky;
// and either alone fails the cell. Issue 51: no test's cell had the two counts differ.
TEST(JunitXml, AFailingCellCountsTheLargerOfItsTallyAndItsRecords) {
  ASSERT_TRUE(tool_installed(kXmllint, "libxml2-utils"));
  const auto cell = [](harness::CampaignResult& r) -> harness::CellStats& { return r.cells.at({"cpu", "rope", "float32", "fp32-angle"}); };
  const std::string tail = fmt::format(", worst error/bound 3.5 in {}", kFailingCase);
  // A tally of 3 with the numeric record only (not flaky): no flaky note.
  EXPECT_EQ(cell_message([&](harness::CampaignResult& r) {
              cell(r).failed_cases = 3;
              r.failures.pop_back();
            }),
            "3 failing cases" + tail);
  // A tally of 1 with both records: 2, one of them flaky.
  EXPECT_EQ(cell_message([&](harness::CampaignResult& r) { cell(r).failed_cases = 1; }), "2 failing cases (1 flaky)" + tail);
  // One failure: "case", singular.
  EXPECT_EQ(cell_message([&](harness::CampaignResult& r) {
              cell(r).failed_cases = 1;
              r.failures.pop_back();
            }),
            "1 failing case" + tail);
  // A record without a tally, and a tally without a record, each fail the cell.
  EXPECT_EQ(cell_message([&](harness::CampaignResult& r) {
              cell(r).failed_cases = 0;
              r.failures.pop_back();
            }),
            "1 failing case" + tail);
  EXPECT_EQ(cell_message([&](harness::CampaignResult& r) { r.failures.clear(); }), "2 failing cases" + tail);
}

// JUnit times are xs:decimal seconds with 3 decimals: the wall time on <testsuites> and on the
// cells suite, which spend it, none on the properties suite; a time that is unknown (NaN),
// infinite or negative is written 0.000, never "nan" or "inf", which the schema refuses.
TEST(JunitXml, TimesAreTheWallTimeInFixedPointSecondsAndZeroWhenUnknown) {
  ASSERT_TRUE(tool_installed(kXmllint, "libxml2-utils"));
  const ScratchDir dir;
  const std::filesystem::path file = dir.write("junit.xml", junit_xml(sample_result()));
  EXPECT_EQ(xpath(file, "string(/testsuites/@time)"), "12.500");
  EXPECT_EQ(xpath(file, "string(//testsuite[@name='peconform.cells']/@time)"), "12.500");
  EXPECT_EQ(xpath(file, "count(//testsuite[@name='peconform.properties']/@time)"), "0");
  for (const double unknown : {std::nan(""), -1.0, static_cast<double>(INFINITY)}) {
    harness::CampaignResult result = sample_result();
    result.info.wall_seconds = unknown;
    const std::filesystem::path unknown_file = dir.write("unknown.junit.xml", junit_xml(result));
    EXPECT_EQ(xpath(unknown_file, "string(/testsuites/@time)"), "0.000") << unknown;
    EXPECT_EQ(xpath(unknown_file, "string(//testsuite[@name='peconform.cells']/@time)"), "0.000") << unknown;
    EXPECT_EQ(validate(unknown_file).exit_code, 0) << unknown;
  }
}

// Each suite states no errors and no skipped tests (a failing cell is a failure, every cell ran),
// the machine it ran on, and the run's profile and backend beside its seed and commit.
TEST(JunitXml, EachSuiteStatesTheMachineProfileAndBackend) {
  ASSERT_TRUE(tool_installed(kXmllint, "libxml2-utils"));
  const ScratchDir dir;
  const std::filesystem::path file = dir.write("junit.xml", junit_xml(sample_result()));
  for (const char* suite : {"peconform.cells", "peconform.properties"}) {
    const std::string at = fmt::format("//testsuite[@name='{}']", suite);
    EXPECT_EQ(xpath(file, "string(" + at + "/@errors)"), "0") << suite;
    EXPECT_EQ(xpath(file, "string(" + at + "/@skipped)"), "0") << suite;
    EXPECT_EQ(xpath(file, "string(" + at + "/@hostname)"), "ci-runner-7") << suite;
    EXPECT_EQ(xpath(file, "string(" + at + "/properties/property[@name='profile']/@value)"), "ci") << suite;
    EXPECT_EQ(xpath(file, "string(" + at + "/properties/property[@name='backend']/@value)"), "cpu") << suite;
  }
}

// A failure outside every cell names its case in its message, and says when it is flaky.
TEST(JunitXml, AFailureOutsideEveryCellNamesItsCaseInItsMessage) {
  ASSERT_TRUE(tool_installed(kXmllint, "libxml2-utils"));
  const ScratchDir dir;
  for (const bool flaky : {false, true}) {
    harness::CampaignResult result = sample_result();
    harness::FailureRecord stray = result.failures.front();
    stray.cell_family = "xpos";
    stray.flaky = flaky;
    result.failures.push_back(stray);
    const std::filesystem::path file = dir.write("junit.xml", junit_xml(result));
    EXPECT_EQ(xpath(file, "string(//testcase[@name='cpu/xpos/float32/fp32-angle']/failure/@message)"),
              fmt::format("failing case {}{}", kFailingCase, flaky ? " (flaky)" : ""));
  }
}

// A failed property's message attribute is the first line of its message (RapidCheck's names
// the counterexample), the whole message its body; a message whose first line is empty still
// gives a message, naming the families, since an empty one would read as a pass.
TEST(JunitXml, AFailedPropertysMessageIsItsFirstLineOrNamesItsFamilies) {
  ASSERT_TRUE(tool_installed(kXmllint, "libxml2-utils"));
  const ScratchDir dir;
  const std::string at = "//testcase[@name='sinusoid_matches_shifted_angle']/failure/@message";
  EXPECT_EQ(xpath(dir.write("junit.xml", junit_xml(sample_result())), "string(" + at + ")"), "Falsifiable after 211 tests");
  harness::CampaignResult result = sample_result();
  result.properties.back().message = "\nthe counterexample";
  const std::filesystem::path file = dir.write("blank.junit.xml", junit_xml(result));
  EXPECT_EQ(xpath(file, "string(" + at + ")"), "property failed on sinusoidal");
  EXPECT_EQ(xpath(file, "string(/testsuites/@failures)"), "2");
}

// Test case names are escaped as attributes: a property named with markup reads back as named.
TEST(JunitXml, ATestcaseNameWithMarkupReadsBackAsWritten) {
  ASSERT_TRUE(tool_installed(kXmllint, "libxml2-utils"));
  const ScratchDir dir;
  harness::CampaignResult result = sample_result();
  result.properties.front().name = "a<b&\"c\"";
  const std::string xml = junit_xml(result);
  EXPECT_NE(xml.find("name=\"a&lt;b&amp;&quot;c&quot;\""), std::string::npos) << xml;
  const std::filesystem::path file = dir.write("junit.xml", xml);
  EXPECT_EQ(validate(file).exit_code, 0);
  EXPECT_EQ(xpath(file, "string(//testsuite[@name='peconform.properties']/testcase[1]/@name)"), "a<b&\"c\"");
}

// A failure belongs to the cell that matches it in backend, family, dtype and precision: one that
// differs from the failing cell in any one of them is not counted under it (which would state
// 3 failing cases there) but fails a testcase of its own.
TEST(JunitXml, AFailureIsCountedOnlyUnderTheCellItMatchesInEveryField) {
  ASSERT_TRUE(tool_installed(kXmllint, "libxml2-utils"));
  const ScratchDir dir;
  const std::vector<std::pair<const char*, std::function<void(harness::FailureRecord&)>>> changes{
      {"backend", [](harness::FailureRecord& f) { f.cell_backend = "cuda"; }},
      {"dtype", [](harness::FailureRecord& f) { f.cell_dtype = "float16"; }},
      {"precision", [](harness::FailureRecord& f) { f.cell_precision = "exact-angle"; }}};
  for (const auto& [field, change] : changes) {
    harness::CampaignResult result = sample_result();
    harness::FailureRecord other = result.failures.front();
    change(other);
    result.failures.push_back(other);
    const std::filesystem::path file = dir.write("junit.xml", junit_xml(result));
    EXPECT_EQ(xpath(file, "string(//testcase[@name='cpu/rope/float32/fp32-angle']/failure/@message)"),
              fmt::format("2 failing cases (1 flaky), worst error/bound 3.5 in {}", kFailingCase))
        << field;
    EXPECT_EQ(xpath(file, "string(/testsuites/@tests)"), "9") << field;
  }
}

}  // namespace
}  // namespace peconform
