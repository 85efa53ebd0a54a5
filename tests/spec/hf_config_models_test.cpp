// The model-class knowledge behind Spec::from_hf_config (spec/hf_config_models.cpp), entry by
// entry, against transformers 5.23.0 itself: each value below was read from the installed
// package, not from our table, as
//   t = CONFIG_MAPPING[model_type]().get_text_config()
//   type(t).__name__, type(t).default_theta, t.rope_parameters["partial_rotary_factor"]
// (Fuyu's theta is FuyuConfig.default_theta, the class our table names). Issue 38: a swapped,
// emptied or misspelt entry survived every config test, which reach only a few model types.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "spec/hf_config_models.hpp"

namespace peconform {
namespace {

struct UpstreamTheta {
  const char* model_type;
  const char* config_class;
  const char* value;
};

const std::vector<UpstreamTheta> kUpstreamThetas = {
    {"apertus", "ApertusConfig", "12000000"},    {"bitnet", "BitNetConfig", "500000"},
    {"cohere", "CohereConfig", "500000"},        {"csm", "CsmConfig", "500000"},
    {"cwm", "CwmConfig", "1000000"},             {"emu3", "Emu3TextConfig", "1000000"},
    {"ernie4_5", "Ernie4_5Config", "500000"},    {"ernie4_5_moe", "Ernie4_5_MoeConfig", "500000"},
    {"flex_olmo", "FlexOlmoConfig", "500000"},   {"fuyu", "FuyuConfig", "25000"},
    {"gpt_oss", "GptOssConfig", "150000"},       {"helium", "HeliumConfig", "100000"},
    {"lfm2", "Lfm2Config", "1000000"},           {"lfm2_moe", "Lfm2MoeConfig", "1000000"},
    {"llama4", "Llama4TextConfig", "500000"},    {"llama4_text", "Llama4TextConfig", "500000"},
    {"longcat_flash", "LongcatFlashConfig", "10000000"}, {"minimax", "MiniMaxConfig", "1000000"},
    {"minimax_m2", "MiniMaxM2Config", "5000000"}, {"mixtral", "MixtralConfig", "1000000"},
    {"mllama", "MllamaTextConfig", "500000"},    {"olmo3", "Olmo3Config", "500000"},
    {"phimoe", "PhimoeConfig", "1000000"},       {"qwen2_5_vl", "Qwen2_5_VLTextConfig", "1000000"},
    {"qwen2_vl", "Qwen2VLTextConfig", "1000000"}, {"qwen3_vl", "Qwen3VLTextConfig", "500000"},
    {"qwen3_vl_text", "Qwen3VLTextConfig", "500000"}, {"qwen3_vl_moe", "Qwen3VLMoeTextConfig", "500000"},
    {"qwen3_vl_moe_text", "Qwen3VLMoeTextConfig", "500000"}, {"smollm3", "SmolLM3Config", "2000000"},
    {"solar_open", "SolarOpenConfig", "1000000"},
};

TEST(HfConfigModels, EachClassDefaultThetaIsTransformersOwn) {
  for (const UpstreamTheta& upstream : kUpstreamThetas) {
    const ModelDefault theta = default_rope_theta(upstream.model_type, "full_attention");
    EXPECT_EQ(theta.value, Decimal::parse(upstream.value)) << upstream.model_type;
    EXPECT_EQ(theta.source, std::string(upstream.config_class) + ".default_theta, transformers 5.23.0") << upstream.model_type;
  }
  // A model type no class lists takes PreTrainedConfig's 10000.
  EXPECT_EQ(default_rope_theta("llama", "full_attention").value, Decimal(10000));
}

TEST(HfConfigModels, LayeredThetasPickTheLayerTypesValue) {
  struct Layered {
    const char* model_type;
    const char* config_class;
    const char* global;
  };
  // Each class's default_theta is {"global": ..., "local": 10000.0}.
  for (const Layered& upstream : std::vector<Layered>{{"gemma3", "Gemma3TextConfig", "1000000"},
                                                      {"gemma3_text", "Gemma3TextConfig", "1000000"},
                                                      {"gemma3n_text", "Gemma3nTextConfig", "1000000"},
                                                      {"modernbert", "ModernBertConfig", "160000"},
                                                      {"modernbert-decoder", "ModernBertDecoderConfig", "160000"}}) {
    const ModelDefault full = default_rope_theta(upstream.model_type, "full_attention");
    const ModelDefault sliding = default_rope_theta(upstream.model_type, "sliding_attention");
    EXPECT_EQ(full.value, Decimal::parse(upstream.global)) << upstream.model_type;
    EXPECT_EQ(sliding.value, Decimal(10000)) << upstream.model_type;
    const std::string prefix = std::string(upstream.config_class) + ".default_theta[\"";
    EXPECT_EQ(full.source, prefix + "global\"], transformers 5.23.0") << upstream.model_type;
    EXPECT_EQ(sliding.source, prefix + "local\"], transformers 5.23.0") << upstream.model_type;
  }
}

TEST(HfConfigModels, EachPartialRotaryFactorIsTransformersOwn) {
  struct Factor {
    const char* model_type;
    const char* value;
  };
  for (const Factor& upstream : std::vector<Factor>{{"gpt_neox", "0.25"}, {"stablelm", "0.25"}, {"phi", "0.5"},
                                                    {"persimmon", "0.5"}, {"glm", "0.5"}, {"glm4", "0.5"},
                                                    {"glm4_moe", "0.5"}, {"nemotron", "0.5"}, {"moonshine", "0.9"},
                                                    {"fuyu", "0.5"}}) {
    const std::optional<ModelDefault> factor = default_partial_rotary_factor(upstream.model_type);
    ASSERT_TRUE(factor.has_value()) << upstream.model_type;
    EXPECT_EQ(factor->value, Decimal::parse(upstream.value)) << upstream.model_type;
    EXPECT_NE(factor->source.find("transformers 5.23.0"), std::string::npos) << factor->source;
  }
  EXPECT_FALSE(default_partial_rotary_factor("llama").has_value());
}

// rotate_half over (2i, 2i+1): modeling_cohere.py, modeling_cohere2.py, modeling_glm.py,
// modeling_glm4.py (and Glm4Moe's, which imports it), modeling_llama4.py (view_as_complex).
TEST(HfConfigModels, InterleavedPairsAreTheModelsThatRotateThem) {
  for (const char* model_type : {"cohere", "cohere2", "glm", "glm4", "glm4_moe", "llama4", "llama4_text"})
    EXPECT_TRUE(rotates_interleaved_pairs(model_type)) << model_type;
  for (const char* model_type : {"llama", "gpt_neox", "phi", "gemma3"}) EXPECT_FALSE(rotates_interleaved_pairs(model_type)) << model_type;
}

// Models whose position embedding is a learned or sinusoidal table (an nn.Embedding of
// max_position_embeddings rows, or DistilBERT's and Whisper's sinusoids), none rotary.
TEST(HfConfigModels, TableModelsAreTheOnesWithoutRotaryPositions) {
  for (const char* model_type : {"gpt2", "bert", "roberta", "distilbert", "opt", "bart", "mbart", "xlm-roberta", "electra",
                                 "albert", "gpt_bigcode", "biogpt", "xglm", "whisper"})
    EXPECT_TRUE(positions_by_table(model_type)) << model_type;
  for (const char* model_type : {"llama", "gpt_neox", "t5", "bloom"}) EXPECT_FALSE(positions_by_table(model_type)) << model_type;
}

// Issue 51: each default's source names the class transformers takes it from.
TEST(HfConfigModels, EachDefaultsSourceNamesItsConfigClass) {
  EXPECT_EQ(default_rope_theta("llama", "full_attention").source, "PreTrainedConfig's default_theta, transformers 5.23.0");
  EXPECT_EQ(default_rope_theta("llama", "sliding_attention").source, "PreTrainedConfig's default_theta, transformers 5.23.0");
  struct Source {
    const char* model_type;
    const char* config_class;
  };
  for (const Source& upstream : std::vector<Source>{{"gpt_neox", "GPTNeoXConfig (rotary_pct)"}, {"stablelm", "StableLmConfig"},
                                                    {"phi", "PhiConfig"}, {"persimmon", "PersimmonConfig"}, {"glm", "GlmConfig"},
                                                    {"glm4", "Glm4Config"}, {"glm4_moe", "Glm4MoeConfig"},
                                                    {"nemotron", "NemotronConfig"}, {"moonshine", "MoonshineConfig"},
                                                    {"fuyu", "FuyuConfig"}}) {
    const std::optional<ModelDefault> factor = default_partial_rotary_factor(upstream.model_type);
    ASSERT_TRUE(factor.has_value()) << upstream.model_type;
    EXPECT_EQ(factor->source, std::string(upstream.config_class) + ", transformers 5.23.0") << upstream.model_type;
  }
}

}  // namespace
}  // namespace peconform
