#include <gtest/gtest.h>

#include "spec/spec.hpp"
#include "spec/spec_error.hpp"

namespace peconform {
namespace {

TEST(HfConfig, Llama31) {
  const Spec spec = Spec::from_hf_config(R"({
    "hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 131072,
    "rope_theta": 500000.0,
    "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                     "original_max_position_embeddings": 8192, "rope_type": "llama3"}})");
  EXPECT_EQ(spec.canonical(), "rope(d=128,base=500000,layout=half,scaling=llama3(factor=8,orig=8192))");
}

TEST(HfConfig, DefaultsWithExplicitHeadDimAndPartialRotary) {
  const Spec spec = Spec::from_hf_config(R"({"head_dim": 80, "hidden_size": 2560, "num_attention_heads": 32,
                                             "partial_rotary_factor": 0.4, "rope_theta": 10000})");
  EXPECT_EQ(spec.canonical(), "rope(d=80,base=10000,layout=half,rot=32)");
  const Spec no_theta = Spec::from_hf_config(R"({"hidden_size": 768, "num_attention_heads": 12, "rope_scaling": null})");
  EXPECT_EQ(no_theta.canonical(), "rope(d=64,base=10000,layout=half)");
}

TEST(HfConfig, LegacyTypeKeyLinearAndDynamic) {
  EXPECT_EQ(Spec::from_hf_config(R"({"head_dim": 64, "rope_scaling": {"type": "linear", "factor": 2.0}})").canonical(),
            "rope(d=64,base=10000,layout=half,scaling=linear(factor=2))");
  EXPECT_EQ(Spec::from_hf_config(R"({"head_dim": 64, "max_position_embeddings": 2048,
                                     "rope_scaling": {"rope_type": "dynamic", "factor": 4}})").canonical(),
            "rope(d=64,base=10000,layout=half,scaling=dynamic(factor=4,orig=2048))");
}

TEST(HfConfig, YarnDeepSeekStyle) {
  const Spec spec = Spec::from_hf_config(R"({"head_dim": 64, "max_position_embeddings": 163840,
    "rope_scaling": {"rope_type": "yarn", "factor": 40, "original_max_position_embeddings": 4096,
                     "beta_fast": 32, "beta_slow": 1, "mscale": 1.0, "mscale_all_dim": 1.0}})");
  EXPECT_EQ(spec.canonical(), "rope(d=64,base=10000,layout=half,scaling=yarn(factor=40,orig=4096,mscale=1,mscale_all_dim=1))");
}

TEST(HfConfig, LongRopeDerivesFactorFromLengths) {
  const Spec spec = Spec::from_hf_config(R"({"head_dim": 8, "max_position_embeddings": 131072,
    "original_max_position_embeddings": 4096,
    "rope_scaling": {"rope_type": "longrope", "short_factor": [1, 1, 1.5, 2], "long_factor": [2, 4, 8, 16]}})");
  EXPECT_EQ(spec.canonical(), "rope(d=8,base=10000,layout=half,scaling=longrope(factor=32,orig=4096,short=[1,1,1.5,2],long=[2,4,8,16]))");
}

TEST(HfConfig, Qwen2VlMrope) {
  const Spec spec = Spec::from_hf_config(R"({"hidden_size": 3584, "num_attention_heads": 28, "rope_theta": 1000000.0,
    "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}})");
  EXPECT_EQ(spec.canonical(), "mrope(d=128,base=1000000,layout=half,sections=[16,24,24])");
}

TEST(HfConfig, TransformersV5RopeParameters) {
  const Spec spec = Spec::from_hf_config(R"({"head_dim": 128, "rope_parameters": {"rope_type": "default", "rope_theta": 1000000}})");
  EXPECT_EQ(spec.canonical(), "rope(d=128,base=1000000,layout=half)");
}

TEST(HfConfig, MalformedConfigsAreNamed) {
  const std::pair<const char*, const char*> cases[] = {
      {"{not json", "not valid JSON"},
      {"[1, 2]", "must hold an object"},
      {R"({"num_attention_heads": 12})", "\"hidden_size\" must be a positive integer"},
      {R"({"hidden_size": 100, "num_attention_heads": 12})", "not divisible"},
      {R"({"head_dim": 64, "rope_theta": "big"})", "\"rope_theta\" must be a number, found \"big\""},
      {R"({"head_dim": 64, "rope_scaling": {"rope_type": "su", "factor": 2}})", "unknown rope_scaling type 'su'"},
      {R"({"head_dim": 64, "rope_scaling": {"factor": 2}})", "no \"rope_type\""},
      {R"({"head_dim": 64, "rope_scaling": {"rope_type": "linear", "factor": -1}})", "factor=-1 must be positive"},
      {R"({"head_dim": 64, "partial_rotary_factor": 1.5})", "partial_rotary_factor 1.5"},
      {R"({"head_dim": 65})", "rotary dims 65 are odd"},
  };
  for (const auto& [config, needle] : cases) {
    try {
      Spec::from_hf_config(config);
      ADD_FAILURE() << "accepted " << config;
    } catch (const SpecError& error) {
      EXPECT_NE(std::string(error.what()).find(needle), std::string::npos) << error.what() << "\nmissing: " << needle;
    }
  }
}

}  // namespace
}  // namespace peconform
