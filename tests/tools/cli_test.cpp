#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/scratch_dir.hpp"
#include "tools/family_examples.hpp"

namespace peconform {
namespace {

ToolRun run(const std::string& arguments) { return run_tool(fmt::format("{} {}", PECONFORM_BINARY, arguments)); }

TEST(Cli, ListPrintsOneWorkingLinePerFamily) {
  const ToolRun result = run("list");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  std::size_t lines = 0;
  for (const FamilyExample& example : kFamilyExamples) {
    EXPECT_NE(result.output.find(fmt::format("{:<11} {}", example.family, example.spec)), std::string::npos) << example.family;
    ++lines;
  }
  EXPECT_EQ(std::count(result.output.begin(), result.output.end(), '\n'), static_cast<long>(lines));
}

TEST(Cli, ReferencePrintsTheTextbookRopeExample) {
  const ToolRun result = run("reference --spec 'rope(layout=interleaved,d=4,base=10000)' --positions 2 --input 1,0,1,0 --digits 12");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const nlohmann::json json = nlohmann::json::parse(result.output);
  EXPECT_EQ(json.at("spec"), "rope(d=4,base=10000,layout=interleaved)");
  EXPECT_EQ(json.at("positions"), nlohmann::json::array({"2"}));
  EXPECT_EQ(json.at("outputs").at(0).at(0), "-4.16146836547e-01");
  EXPECT_EQ(json.at("outputs").at(0).at(3), "1.99986666933e-02");
}

TEST(Cli, ReferenceTakesPairsForRelativeFamiliesAndFlagsT5Boundaries) {
  const ToolRun result = run("reference --spec 't5()' --pairs 0:16,0:17 --digits 3");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const nlohmann::json json = nlohmann::json::parse(result.output);
  EXPECT_EQ(json.at("pairs"), nlohmann::json::array({"0:16", "0:17"}));
  EXPECT_EQ(json.at("t5_boundary"), nlohmann::json::array({true, false}));
}

TEST(Cli, ReferenceReadsHuggingFaceConfigs) {
  const std::string path = ::testing::TempDir() + "/peconform-config.json";
  std::FILE* file = std::fopen(path.c_str(), "w");
  std::fputs(R"({"head_dim": 4, "rope_theta": 10000, "rope_scaling": {"rope_type": "linear", "factor": 2}})", file);
  std::fclose(file);
  const ToolRun result = run(fmt::format("reference --hf-config {} --positions 4 --input 1,0,1,0", path));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(nlohmann::json::parse(result.output).at("spec"), "rope(d=4,base=10000,layout=half,scaling=linear(factor=2))");
}

// Bad input: one clear line naming the bad value, exit code 2, never a crash or a clamp.
TEST(Cli, BadInputGetsExitTwoAndNamesTheValue) {
  const std::pair<std::string, std::string> cases[] = {
      {"reference --spec 'rope(d=5,layout=half)' --positions 1 --input 1,2,3,4,5", "rotary dims 5 are odd"},
      {"reference --spec 'rope(d=4,rot=6)' --positions 1 --input 1,2,3,4", "rot=6 exceeds d=4"},
      {"reference --spec 'rope(d=4,base=0)' --positions 1 --input 1,2,3,4", "base=0 must be positive"},
      {"reference --spec 'rope(d=4,scaling=linear(factor=inf))' --positions 1 --input 1,2,3,4", "'inf' is not a finite decimal"},
      {"reference --spec 'rope(d=4,scaling=linear(factor=-1))' --positions 1 --input 1,2,3,4", "factor=-1 must be positive"},
      {"reference --spec 'learned(d=1,rows=2)' --positions 2 --input 1,2", "position 2 is past the learned table of 2 rows"},
      {"reference --spec 'rotary(d=4)' --positions 1", "unknown family 'rotary'"},
      {"reference --hf-config /nonexistent/config.json --positions 1", "cannot read config file '/nonexistent/config.json'"},
      {"reference --spec 'rope(d=4)' --positions 1,x --input 1,2,3,4", "found 'x'"},
      {"reference --spec 'rope(d=4)' --positions 1 --input 1,2,oops,4", "'oops' is not a finite decimal"},
      {"reference --spec 'rope(d=4)' --positions 1 --input 1,2", "needs --input with 4 values"},
      {"reference --spec 'rope(d=4)' --pairs 1:2 --input 1,2,3,4", "rope takes --positions, not --pairs"},
      {"reference --spec 'alibi(heads=4)' --positions 3", "alibi takes --pairs, not --positions"},
      {"reference --spec 'rope(d=4)' --positions 1 --input 1,2,3,4 --digits 0", "--digits"},
      {"reference --positions 1", "needs --spec or --hf-config"},
      {"frobnicate", "frobnicate"},
      {"bench --repeats 0", "--repeats: Value 0 not in range"},
      {"bench --only nothing", "--only 'nothing' matches no benchmark"},
  };
  for (const auto& [arguments, needle] : cases) {
    const ToolRun result = run(arguments);
    EXPECT_EQ(result.exit_code, 2) << arguments << "\n" << result.output;
    EXPECT_NE(result.output.find(needle), std::string::npos) << arguments << "\n" << result.output;
  }
}

TEST(Cli, BenchPrintsOneRecordPerBenchmarkWithItsFractionOfTheTriad) {
  const ToolRun result = run("bench --json --repeats 1 --only rope-interleaved-fp32-table");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  // Progress lines go to stderr ahead of the JSON document.
  const nlohmann::json report = nlohmann::json::parse(result.output.substr(result.output.find("{\n")));
  EXPECT_EQ(report.at("schema"), "peconform-bench/1");
  ASSERT_EQ(report.at("records").size(), 1u);
  const nlohmann::json& record = report.at("records")[0];
  EXPECT_EQ(record.at("name"), "rope-interleaved-fp32-table");
  EXPECT_EQ(record.at("shape"), "[1, 4096, 32, 128]");
  EXPECT_EQ(record.at("dtype"), "fp32");
  EXPECT_GT(record.at("milliseconds").get<double>(), 0.0);
  // In place: 4096 x 32 x 128 fp32 read and written, the ids, and a 4096 x 64 cos and sin cache.
  EXPECT_EQ(record.at("bytes").get<double>(), 2.0 * 4096 * 32 * 128 * 4 + 4096 * 8 + 2.0 * 4096 * 64 * 4);
  EXPECT_DOUBLE_EQ(record.at("fraction_of_triad").get<double>(),
                   record.at("gb_per_s").get<double>() / record.at("triad_gb_per_s").get<double>());
}

TEST(Cli, MalformedHuggingFaceConfigIsBadInput) {
  const std::string path = ::testing::TempDir() + "/peconform-bad-config.json";
  std::FILE* file = std::fopen(path.c_str(), "w");
  std::fputs("{\"head_dim\": 64, ", file);
  std::fclose(file);
  const ToolRun result = run(fmt::format("reference --hf-config {} --positions 1", path));
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("config.json is not valid JSON"), std::string::npos) << result.output;
}

TEST(Cli, SelfcheckWritesAWholeReport) {
  const std::string path = ::testing::TempDir() + "/peconform-selfcheck/report.json";
  const ToolRun result = run(fmt::format("selfcheck --samples 4 --report {}", path));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  std::FILE* file = std::fopen(path.c_str(), "r");
  ASSERT_NE(file, nullptr);
  std::string text;
  std::array<char, 4096> buffer{};
  for (std::size_t n; (n = std::fread(buffer.data(), 1, buffer.size(), file)) > 0;) text.append(buffer.data(), n);
  std::fclose(file);
  const nlohmann::json report = nlohmann::json::parse(text);
  EXPECT_EQ(report.at("schema"), "peconform.selfcheck/1");
  EXPECT_TRUE(report.at("passed").get<bool>());
  EXPECT_GE(report.at("golden").at("fewest_digits").get<double>(), 40.0);
}

TEST(Cli, SelfcheckFailsWithExitOneOnAWrongGoldenValue) {
  const std::string golden = ::testing::TempDir() + "/peconform-wrong-golden.json";
  const std::string source = fmt::format("{}/fixtures/golden.json", PECONFORM_SOURCE_DIR);
  // Corrupt one golden value in the 20th digit: the check must notice.
  const std::string command = fmt::format(
      "sed '0,/0.84147098480789650665/s//0.84147098480789650666/' {} > {}", source, golden);
  ASSERT_EQ(std::system(command.c_str()), 0);
  const ToolRun result = run(fmt::format("selfcheck --samples 0 --fixtures {} --report {}/peconform-wrong.json", golden, ::testing::TempDir()));
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find("textbook sinusoidal d=4"), std::string::npos) << result.output;
}

}  // namespace
}  // namespace peconform
