#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "harness/campaign_result.hpp"
#include "sample_result.hpp"
#include "support/scratch_dir.hpp"

namespace peconform {
namespace {

const std::string kSchema = std::string(PECONFORM_SOURCE_DIR) + "/reports/report.schema.json";

constexpr int kInvalid = 3;  // any other failure (a bad schema, a missing file) exits 1

// The system Python: Debian's python3-jsonschema is installed for it, not for whichever
// python3 comes first on PATH.
ToolRun validate(const std::filesystem::path& report) {
  const std::string script = fmt::format(
      "import json, sys, jsonschema\n"
      "schema = json.load(open(sys.argv[1]))\n"
      "jsonschema.Draft202012Validator.check_schema(schema)\n"
      "try:\n"
      "    jsonschema.Draft202012Validator(schema).validate(json.load(open(sys.argv[2])))\n"
      "except jsonschema.ValidationError as error:\n"
      "    print(error)\n"
      "    sys.exit({})\n",
      kInvalid);
  return run_tool(fmt::format("{} -c {} {} {}", PECONFORM_SYSTEM_PYTHON, shell_quote(script), shell_quote(kSchema),
                              shell_quote(report.string())));
}

::testing::AssertionResult jsonschema_installed() {
  const ToolRun run = run_tool(fmt::format("{} -c 'import jsonschema'", PECONFORM_SYSTEM_PYTHON));
  if (run.exit_code == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "the system Python cannot import jsonschema: install the Debian package "
                                          "python3-jsonschema (scripts/install-deps.sh lists it)\n"
                                       << run.output;
}

TEST(ReportJson, IsValidAgainstOurSchema) {
  ASSERT_TRUE(jsonschema_installed());
  const ScratchDir dir;
  const ToolRun run = validate(dir.write("report.json", harness::to_json(sample_result()).dump(2)));
  EXPECT_EQ(run.exit_code, 0) << run.output;
}

TEST(ReportJson, AnEmptyCampaignIsValidToo) {
  ASSERT_TRUE(jsonschema_installed());
  const ScratchDir dir;
  const ToolRun run = validate(dir.write("report.json", harness::to_json(harness::CampaignResult{}).dump(2)));
  EXPECT_EQ(run.exit_code, 0) << run.output;
}

TEST(ReportJson, SchemaRejectsAReportThatBreaksIt) {
  ASSERT_TRUE(jsonschema_installed());
  const ScratchDir dir;
  const nlohmann::json good = harness::to_json(sample_result());
  nlohmann::json missing = good;
  missing.erase("verdict");
  nlohmann::json wrong_schema = good;
  wrong_schema["schema"] = "peconform.report/2";
  nlohmann::json text_count = good;
  text_count["cells"][0]["cases"] = "400";
  nlohmann::json extra = good;
  extra["run"]["unlisted"] = 1;
  nlohmann::json short_histogram = good;
  short_histogram["cells"][0]["ratio_histogram"].erase(0);
  nlohmann::json unmarked = good;
  unmarked["failures"][0].erase("flaky");
  nlohmann::json text_flaky = good;
  text_flaky["failures"][1]["flaky"] = "yes";
  for (const nlohmann::json& bad : {missing, wrong_schema, text_count, extra, short_histogram, unmarked, text_flaky}) {
    const ToolRun run = validate(dir.write("bad.json", bad.dump()));
    EXPECT_EQ(run.exit_code, kInvalid) << run.output;
  }
}

// A run's shape bounds and execution (issue 48) are written where set, valid and read back; a
// report without them is as it was before they existed.
TEST(ReportJson, ShapeBoundsAndExecutionAreValidWhereSetAndAbsentOtherwise) {
  ASSERT_TRUE(jsonschema_installed());
  const ScratchDir dir;
  harness::CampaignResult result = sample_result();
  for (const char* key : {"max_elements", "max_tokens", "execution"}) EXPECT_FALSE(harness::to_json(result).at("run").contains(key));
  result.info.max_elements = 4096;
  result.info.max_tokens = 64;
  result.info.execution = "triton 3.9.0 interpreter, GPU-faithful";
  const nlohmann::json json = harness::to_json(result);
  EXPECT_EQ(json.at("run").at("max_elements"), 4096);
  EXPECT_EQ(json.at("run").at("max_tokens"), 64);
  EXPECT_EQ(json.at("run").at("execution"), "triton 3.9.0 interpreter, GPU-faithful");
  EXPECT_EQ(validate(dir.write("report.json", json.dump(2))).exit_code, 0);
  EXPECT_EQ(harness::to_json(harness::from_json(json)).dump(2), json.dump(2));
  nlohmann::json zero_bound = json;
  zero_bound["run"]["max_tokens"] = 0;
  nlohmann::json empty_execution = json;
  empty_execution["run"]["execution"] = "";
  for (const nlohmann::json& bad : {zero_bound, empty_execution})
    EXPECT_EQ(validate(dir.write("bad.json", bad.dump())).exit_code, kInvalid);
}

TEST(ReportJson, RoundTripsThroughFromJson) {
  const nlohmann::json json = harness::to_json(sample_result());
  EXPECT_EQ(harness::to_json(harness::from_json(json)).dump(2), json.dump(2));
  EXPECT_EQ(json.at("failures").at(1).at("first_failure").at("ratio"), "inf");
  EXPECT_EQ(json.at("failures").at(0).at("flaky"), false);
  EXPECT_EQ(json.at("failures").at(1).at("flaky"), true);
  std::uint64_t norm_checked = 0;
  for (const nlohmann::json& cell : json.at("cells")) norm_checked += cell.at("norm_checked_pairs").get<std::uint64_t>();
  EXPECT_EQ(norm_checked, 4800u);
}

}  // namespace
}  // namespace peconform
