#include <fmt/format.h>
#include <gtest/gtest.h>
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

}  // namespace
}  // namespace peconform
