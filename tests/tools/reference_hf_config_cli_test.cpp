// peconform reference --hf-config with --layer-type, --longrope-factor-from-lengths and --explain,
// run on the corpus configs as a user would.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/scratch_dir.hpp"

namespace peconform {
namespace {

ToolRun reference(const std::string& arguments) {
  return run_tool(fmt::format("{} reference --hf-config {}/fixtures/hf-configs/{}", PECONFORM_BINARY, PECONFORM_SOURCE_DIR, arguments));
}

TEST(ReferenceHfConfig, LayerTypePicksOnePlanAndItsAbsenceListsThem) {
  const ToolRun sliding = reference("gemma-3-4b/config.json --layer-type sliding_attention --explain");
  ASSERT_EQ(sliding.exit_code, 0) << sliding.output;
  const nlohmann::json out = nlohmann::json::parse(sliding.output);
  EXPECT_EQ(out.at("spec"), "rope(d=256,base=10000,layout=half)");
  EXPECT_EQ(out.at("hf_config").at("layer_types"), nlohmann::json::array({"full_attention", "sliding_attention"}));
  const ToolRun neither = reference("gemma-3-4b/config.json --positions 1");
  EXPECT_EQ(neither.exit_code, 2) << neither.output;
  EXPECT_NE(neither.output.find("(full_attention, sliding_attention); choose one with --layer-type"), std::string::npos)
      << neither.output;
}

TEST(ReferenceHfConfig, ExplainAloneReportsHowTheConfigWasRead) {
  const ToolRun result = reference("mixtral-no-theta/config.json --explain");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const nlohmann::json out = nlohmann::json::parse(result.output);
  EXPECT_EQ(out.at("spec"), "rope(d=128,base=1000000,layout=half)");
  const nlohmann::json& read = out.at("hf_config");
  EXPECT_NE(std::find(read.at("used").begin(), read.at("used").end(), "hidden_size"), read.at("used").end());
  EXPECT_NE(std::find(read.at("ignored").begin(), read.at("ignored").end(), "transformers_version"), read.at("ignored").end());
  ASSERT_EQ(read.at("defaults").size(), 1u);
  EXPECT_NE(read.at("defaults")[0].get<std::string>().find("MixtralConfig.default_theta"), std::string::npos);
}

TEST(ReferenceHfConfig, LongRopeFactorFromLengthsFollows4x) {
  const std::string path = ::testing::TempDir() + "/peconform-longrope-config.json";
  std::FILE* file = std::fopen(path.c_str(), "w");
  std::fputs(R"({"model_type": "phi3", "head_dim": 4, "max_position_embeddings": 131072, "original_max_position_embeddings": 4096,
    "rope_scaling": {"type": "longrope", "factor": 16, "short_factor": [1, 1], "long_factor": [2, 2]}})", file);
  std::fclose(file);
  const auto spec_with = [&](const char* flag) {
    const ToolRun result = run_tool(fmt::format("{} reference --hf-config {} {} --explain", PECONFORM_BINARY, path, flag));
    EXPECT_EQ(result.exit_code, 0) << result.output;
    return nlohmann::json::parse(result.output).at("spec").get<std::string>();
  };
  EXPECT_EQ(spec_with(""), "rope(d=4,base=10000,layout=half,scaling=longrope(factor=16,orig=4096,short=[1,1],long=[2,2]))");
  EXPECT_EQ(spec_with("--longrope-factor-from-lengths"),
            "rope(d=4,base=10000,layout=half,scaling=longrope(factor=32,orig=4096,short=[1,1],long=[2,2]))");
}

}  // namespace
}  // namespace peconform
