#include <algorithm>
#include <gtest/gtest.h>

#include "spec/hf_config.hpp"
#include "spec/spec.hpp"
#include "spec/spec_error.hpp"

namespace peconform {
namespace {

std::string spec_of(const char* config, HfConfigOptions options = {}) {
  return Spec::from_hf_config(config, options).canonical();
}

// The message of the SpecError a config raises, or a note that it raised none.
std::string refusal_of(const char* config, HfConfigOptions options = {}) {
  try {
    return "accepted as " + Spec::from_hf_config(config, options).canonical();
  } catch (const SpecError& error) {
    return error.what();
  }
}

// The config is refused with a message that holds `fragment`.
void expect_refused(const char* config, const std::string& fragment) {
  const std::string message = refusal_of(config);
  EXPECT_NE(message.find(fragment), std::string::npos) << message;
}

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

TEST(HfConfig, Llama31) {
  const Spec spec = Spec::from_hf_config(R"({
    "hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 131072,
    "rope_theta": 500000.0,
    "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                     "original_max_position_embeddings": 8192, "rope_type": "llama3"}})");
  EXPECT_EQ(spec.canonical(), "rope(d=128,base=500000,layout=half,scaling=llama3(factor=8,orig=8192))");
}

TEST(HfConfig, ADtypeGivesTransformersOwnRecipeInIt) {
  const char* config = R"({"hidden_size": 2048, "num_attention_heads": 16, "rope_theta": 10000,
                           "rope_scaling": {"type": "linear", "factor": 2.0}})";
  HfConfigOptions bf16;
  bf16.dtype = Dtype::bf16;
  EXPECT_EQ(spec_of(config, bf16), "rope(d=128,base=10000,layout=half,scaling=linear(factor=2),dtype=bf16,precision=fp32-angle,"
                                   "theta=hf,cache=storage,math=storage)");
  HfConfigOptions fp16 = bf16;
  fp16.dtype = Dtype::fp16;
  EXPECT_NE(spec_of(config, fp16).find("dtype=fp16,precision=fp32-angle,theta=hf,cache=storage,math=storage"), std::string::npos);
  HfConfigOptions fp32 = bf16;
  fp32.dtype = Dtype::fp32;
  EXPECT_EQ(spec_of(config, fp32), "rope(d=128,base=10000,layout=half,scaling=linear(factor=2),precision=fp32-angle,theta=hf)");
  // llama3's float32 blend is a recipe of its own, and so is dynamic's float32 base.
  const char* llama3 = R"({"hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 500000.0,
                           "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                                            "original_max_position_embeddings": 8192, "rope_type": "llama3"}})";
  EXPECT_EQ(spec_of(llama3, bf16), "rope(d=128,base=500000,layout=half,scaling=llama3(factor=8,orig=8192),dtype=bf16,"
                                   "precision=fp32-angle,theta=hf,cache=storage,math=storage)");
  const char* dynamic = R"({"hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 10000.0,
                            "max_position_embeddings": 4096, "rope_scaling": {"factor": 2.0, "rope_type": "dynamic"}})";
  EXPECT_EQ(spec_of(dynamic, bf16), "rope(d=128,base=10000,layout=half,scaling=dynamic(factor=2,orig=4096),dtype=bf16,"
                                    "precision=fp32-angle,theta=hf,cache=storage,math=storage)");
  HfConfigOptions fp64 = bf16;
  fp64.dtype = Dtype::fp64;
  EXPECT_NE(refusal_of(config, fp64).find("cos and sin in float32"), std::string::npos) << refusal_of(config, fp64);
  // Without a dtype, the mathematics the config describes.
  EXPECT_EQ(spec_of(config), "rope(d=128,base=10000,layout=half,scaling=linear(factor=2))");
  // ALiBi takes the dtype alone; T5's integer buckets take none.
  EXPECT_EQ(spec_of(R"({"model_type": "bloom", "hidden_size": 4096, "n_head": 32})", bf16), "alibi(heads=32,mode=causal,dtype=bf16)");
  EXPECT_NE(refusal_of(R"({"model_type": "t5", "relative_attention_num_buckets": 32})", bf16).find("integers"), std::string::npos);
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
      {R"({"head_dim": 64, "rope_scaling": {"rope_type": "su", "factor": 2}})", "\"rope_scaling.short_factor\" must be a list"},
      {R"({"head_dim": 64, "rope_scaling": {"rope_type": "magic", "factor": 2}})", "unknown rope type 'magic'"},
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

// Model-specific keys (transformers 5.23.0 configuration_<model>.py and modeling_<model>.py).

TEST(HfConfig, GptNeoxReadsRotaryPctAndRotaryEmbBase) {
  // Pythia's shape: rotary_pct and rotary_emb_base at the top; rope_theta is not GPT-NeoX's key.
  EXPECT_EQ(spec_of(R"({"model_type": "gpt_neox", "hidden_size": 6144, "num_attention_heads": 64,
                        "rotary_pct": 0.5, "rotary_emb_base": 20000, "rope_theta": 7})"),
            "rope(d=96,base=20000,layout=half,rot=48)");
  // Without rotary_pct GPT-NeoX rotates a quarter of the head.
  EXPECT_EQ(spec_of(R"({"model_type": "gpt_neox", "hidden_size": 512, "num_attention_heads": 8})"),
            "rope(d=64,base=10000,layout=half,rot=16)");
}

TEST(HfConfig, GptJRotatesRotaryDimInInterleavedPairsAtBase10000) {
  EXPECT_EQ(spec_of(R"({"model_type": "gptj", "n_embd": 4096, "n_head": 16, "rotary_dim": 64, "rope_theta": 5})"),
            "rope(d=256,base=10000,layout=interleaved,rot=64)");
  EXPECT_NE(refusal_of(R"({"model_type": "gptj", "n_embd": 4096, "n_head": 16, "rotary_dim": null})").find("cannot run"),
            std::string::npos);
  // Without rotary_dim, GPTJConfig's default 64; where that is the whole head, no rot is printed.
  EXPECT_EQ(spec_of(R"({"model_type": "gptj", "n_embd": 4096, "n_head": 16})"), "rope(d=256,base=10000,layout=interleaved,rot=64)");
  EXPECT_EQ(spec_of(R"({"model_type": "gptj", "n_embd": 1024, "n_head": 16})"), "rope(d=64,base=10000,layout=interleaved)");
}

TEST(HfConfig, PartialRotaryFactorDefaultsOfPhiAndStableLm) {
  EXPECT_EQ(spec_of(R"({"model_type": "phi", "hidden_size": 2560, "num_attention_heads": 32})"),
            "rope(d=80,base=10000,layout=half,rot=40)");
  EXPECT_EQ(spec_of(R"({"model_type": "stablelm", "hidden_size": 2560, "num_attention_heads": 32})"),
            "rope(d=80,base=10000,layout=half,rot=20)");
  EXPECT_EQ(spec_of(R"({"model_type": "phi", "hidden_size": 2560, "num_attention_heads": 32, "partial_rotary_factor": 0.4})"),
            "rope(d=80,base=10000,layout=half,rot=32)");
}

// transformers takes int(head_dim * partial_rotary_factor): Python's int() truncates. 128 times
// 155/512 (a factor double holds exactly) is 38.75: 38 dims rotate, not the 39 rounding gives
// (which, odd, would be refused). Issue 38's survivor: no other fixture's product has a fraction
// of 0.5 or more.
TEST(HfConfig, PartialRotaryDimsTruncateAsPythonsIntDoes) {
  EXPECT_EQ(spec_of(R"({"hidden_size": 4096, "num_attention_heads": 32, "partial_rotary_factor": 0.302734375})"),
            "rope(d=128,base=10000,layout=half,rot=38)");
  // 99.99 truncates to 99, odd, and is refused; rounded it would be the whole head.
  EXPECT_NE(refusal_of(R"({"head_dim": 100, "partial_rotary_factor": 0.9999})").find("= 99 rotary dims"), std::string::npos);
}

TEST(HfConfig, CohereRotatesInterleavedPairsWithItsOwnDefaultTheta) {
  const HfConfigExplanation reading = explain_hf_config(R"({"model_type": "cohere", "hidden_size": 8192, "num_attention_heads": 64})");
  EXPECT_EQ(reading.spec.canonical(), "rope(d=128,base=500000,layout=interleaved)");
  ASSERT_EQ(reading.defaults.size(), 1u);
  EXPECT_NE(reading.defaults[0].find("CohereConfig.default_theta"), std::string::npos) << reading.defaults[0];
}

TEST(HfConfig, MissingRopeThetaTakesTheModelClassDefault) {
  EXPECT_EQ(spec_of(R"({"model_type": "mixtral", "hidden_size": 4096, "num_attention_heads": 32})"),
            "rope(d=128,base=1000000,layout=half)");
  EXPECT_EQ(spec_of(R"({"model_type": "gpt_oss", "head_dim": 64})"), "rope(d=64,base=150000,layout=half)");
  EXPECT_EQ(spec_of(R"({"model_type": "llama", "head_dim": 64})"), "rope(d=64,base=10000,layout=half)");
}

TEST(HfConfig, FalconIsRotaryUnlessAlibi) {
  EXPECT_EQ(spec_of(R"({"model_type": "falcon", "hidden_size": 4544, "num_attention_heads": 71, "alibi": false})"),
            "rope(d=64,base=10000,layout=half)");
  EXPECT_EQ(spec_of(R"({"model_type": "falcon", "hidden_size": 4544, "num_attention_heads": 71, "alibi": true})"),
            "alibi(heads=71,mode=causal)");
}

// transformers 5.x rope_parameters.

TEST(HfConfig, RopeParametersCarryPartialRotaryFactorAndMropeSection) {
  EXPECT_EQ(spec_of(R"({"head_dim": 128, "rope_parameters": {"rope_type": "default", "rope_theta": 1000000,
                                                               "partial_rotary_factor": 0.5}})"),
            "rope(d=128,base=1000000,layout=half,rot=64)");
  EXPECT_EQ(spec_of(R"({"model_type": "qwen2_vl", "hidden_size": 3584, "num_attention_heads": 28,
                        "rope_parameters": {"rope_type": "default", "mrope_section": [16, 24, 24], "rope_theta": 1000000.0}})"),
            "mrope(d=128,base=1000000,layout=half,sections=[16,24,24])");
  // Qwen3-VL: the language model's keys sit in text_config, and its sections interleave.
  EXPECT_EQ(spec_of(R"({"model_type": "qwen3_vl", "text_config": {"model_type": "qwen3_vl_text", "head_dim": 128,
                        "rope_parameters": {"rope_type": "default", "mrope_section": [24, 20, 20], "mrope_interleaved": true,
                                            "rope_theta": 5000000}}})"),
            "mrope(d=128,base=5000000,layout=half,sections=[24,20,20],section_mode=interleaved)");
}

constexpr const char* gemma3_v5 = R"({"model_type": "gemma3_text", "head_dim": 256,
  "rope_parameters": {"full_attention": {"rope_type": "linear", "factor": 8.0, "rope_theta": 1000000.0},
                      "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}}})";
constexpr const char* gemma3_v4 = R"({"model_type": "gemma3_text", "head_dim": 256, "rope_theta": 1000000.0,
  "rope_local_base_freq": 10000.0, "rope_scaling": {"rope_type": "linear", "factor": 8.0}})";

TEST(HfConfig, PerLayerRopeParametersGiveOneSpecPerLayerType) {
  for (const char* config : {gemma3_v5, gemma3_v4}) {
    EXPECT_EQ(spec_of(config, {.layer_type = "full_attention"}), "rope(d=256,base=1000000,layout=half,scaling=linear(factor=8))");
    EXPECT_EQ(spec_of(config, {.layer_type = "sliding_attention"}), "rope(d=256,base=10000,layout=half)");
    EXPECT_NE(refusal_of(config).find("one rope plan per layer type (full_attention, sliding_attention)"), std::string::npos)
        << refusal_of(config);
    EXPECT_NE(refusal_of(config, {.layer_type = "global"}).find("no layer type 'global'"), std::string::npos);
  }
  EXPECT_EQ(explain_hf_config(gemma3_v5, {.layer_type = "full_attention"}).layer_types,
            (std::vector<std::string>{"full_attention", "sliding_attention"}));
  EXPECT_NE(refusal_of(R"({"head_dim": 64})", {.layer_type = "full_attention"}).find("does not apply"), std::string::npos);
}

// Shapes upstream accepts.

TEST(HfConfig, SuAndPhi3YarnAreLongRope) {
  const std::string expected = "rope(d=8,base=10000,layout=half,scaling=longrope(factor=32,orig=4096,short=[1,1,1,1],long=[1,2,3,4]))";
  EXPECT_EQ(spec_of(R"({"model_type": "phi3", "head_dim": 8, "max_position_embeddings": 131072, "original_max_position_embeddings": 4096,
                        "rope_scaling": {"type": "su", "short_factor": [1, 1, 1, 1], "long_factor": [1, 2, 3, 4]}})"),
            expected);
  EXPECT_EQ(spec_of(R"({"model_type": "phi3", "head_dim": 8, "max_position_embeddings": 131072, "original_max_position_embeddings": 4096,
                        "rope_scaling": {"type": "yarn", "short_factor": [1, 1, 1, 1], "long_factor": [1, 2, 3, 4]}})"),
            expected);
  // Outside Phi-3, yarn is YaRN.
  EXPECT_EQ(spec_of(R"({"head_dim": 8, "max_position_embeddings": 16384, "rope_scaling": {"type": "yarn", "factor": 4,
                        "original_max_position_embeddings": 4096}})"),
            "rope(d=8,base=10000,layout=half,scaling=yarn(factor=4,orig=4096))");
}

TEST(HfConfig, ProportionalRotatesItsLeadingPairsOverTheWholeHead) {
  // Every pair rotating: linear over the whole head, or no plan.
  EXPECT_EQ(spec_of(R"({"head_dim": 64, "rope_parameters": {"rope_type": "proportional", "factor": 2, "rope_theta": 10000}})"),
            "rope(d=64,base=10000,layout=half,scaling=linear(factor=2))");
  EXPECT_EQ(spec_of(R"({"head_dim": 64, "rope_parameters": {"rope_type": "proportional", "rope_theta": 10000}})"),
            "rope(d=64,base=10000,layout=half)");
  // int(0.5·64 // 2) = 16 pairs rotate with base^(-2i/64); rot stays the whole head.
  EXPECT_EQ(spec_of(R"({"head_dim": 64, "rope_parameters": {"rope_type": "proportional", "partial_rotary_factor": 0.5}})"),
            "rope(d=64,base=10000,layout=half,scaling=proportional(factor=1,pairs=16))");
  // Gemma 4's full-attention layers (configuration_gemma4.py defaults): 0.25 of a 512 head.
  EXPECT_EQ(spec_of(R"({"head_dim": 512, "rope_parameters": {"rope_type": "proportional", "partial_rotary_factor": 0.25,
                        "rope_theta": 1000000.0, "factor": 8}})"),
            "rope(d=512,base=1000000,layout=half,scaling=proportional(factor=8,pairs=64))");
  // Python's float floor: int(0.3·10 // 2) = int(3.0000000000000004 // 2) = 1.
  EXPECT_EQ(spec_of(R"({"head_dim": 10, "rope_parameters": {"rope_type": "proportional", "partial_rotary_factor": 0.3}})"),
            "rope(d=10,base=10000,layout=half,scaling=proportional(factor=1,pairs=1))");
  EXPECT_NE(refusal_of(R"({"head_dim": 64, "rope_parameters": {"rope_type": "proportional", "partial_rotary_factor": 0.01}})")
                .find("rotates no pair"),
            std::string::npos);
}

TEST(HfConfig, HunyuanDynamicWithAlphaIsTheStaticBaseChange) {
  // modeling_hunyuan_v1_dense.py: "dynamic" with alpha is ntk_alpha, base·alpha^(d/(d-2)), which
  // dynamic(factor=alpha-1,orig=1,len=2) forms; without alpha it stays dynamic.
  EXPECT_EQ(spec_of(R"({"model_type": "hunyuan_v1_dense", "head_dim": 128, "max_position_embeddings": 32768,
                        "rope_scaling": {"type": "dynamic", "alpha": 1000.0, "factor": 1.0}})"),
            "rope(d=128,base=10000,layout=half,scaling=dynamic(factor=999,orig=1,len=2))");
  EXPECT_EQ(spec_of(R"({"model_type": "hunyuan_v1_dense", "head_dim": 128, "max_position_embeddings": 32768,
                        "rope_scaling": {"type": "dynamic", "factor": 2.0}})"),
            "rope(d=128,base=10000,layout=half,scaling=dynamic(factor=2,orig=32768))");
  // Other models do not read alpha.
  EXPECT_EQ(spec_of(R"({"model_type": "llama", "head_dim": 128, "max_position_embeddings": 32768,
                        "rope_scaling": {"type": "dynamic", "alpha": 1000.0, "factor": 2.0}})"),
            "rope(d=128,base=10000,layout=half,scaling=dynamic(factor=2,orig=32768))");
}

TEST(HfConfig, NtkIsTheStaticBaseChange) {
  // base·4^(d/(d-2)): dynamic with (factor·len/orig − (factor − 1)) = 3·2/1 − 2 = 4.
  EXPECT_EQ(spec_of(R"({"head_dim": 64, "rope_scaling": {"type": "ntk", "factor": 4.0}})"),
            "rope(d=64,base=10000,layout=half,scaling=dynamic(factor=3,orig=1,len=2))");
  EXPECT_EQ(spec_of(R"({"head_dim": 64, "rope_scaling": {"type": "ntk", "factor": 1.0}})"), "rope(d=64,base=10000,layout=half)");
}

TEST(HfConfig, Llama3WithoutOriginalLengthFallsBackToMaxPositions) {
  EXPECT_EQ(spec_of(R"({"head_dim": 128, "rope_theta": 500000, "max_position_embeddings": 8192,
                        "rope_scaling": {"rope_type": "llama3", "factor": 8, "low_freq_factor": 1, "high_freq_factor": 4}})"),
            "rope(d=128,base=500000,layout=half,scaling=llama3(factor=8,orig=8192))");
}

TEST(HfConfig, YarnBetasOfZeroOrNullFallBack) {
  EXPECT_EQ(spec_of(R"({"head_dim": 64, "max_position_embeddings": 32768, "rope_scaling": {"rope_type": "yarn", "factor": 4,
                        "original_max_position_embeddings": 8192, "beta_fast": 0, "beta_slow": null}})"),
            "rope(d=64,base=10000,layout=half,scaling=yarn(factor=4,orig=8192))");
  EXPECT_EQ(spec_of(R"({"head_dim": 64, "max_position_embeddings": 32768, "rope_scaling": {"rope_type": "yarn", "factor": 4,
                        "original_max_position_embeddings": 8192, "beta_fast": 16, "beta_slow": 2}})"),
            "rope(d=64,base=10000,layout=half,scaling=yarn(factor=4,orig=8192,beta_fast=16,beta_slow=2))");
}

// The fallback is noted only where the key is there with a 0 or null: an absent beta is no
// replacement (issue 38: a mutant that never noted it survived the test above).
TEST(HfConfig, YarnBetaFallbacksAreNotedWhereTheKeyIsZeroOrNull) {
  const HfConfigExplanation replaced = explain_hf_config(R"({"head_dim": 64, "max_position_embeddings": 32768,
      "rope_scaling": {"rope_type": "yarn", "factor": 4, "original_max_position_embeddings": 8192, "beta_fast": 0, "beta_slow": null}})");
  EXPECT_TRUE(contains(replaced.defaults, "beta_fast: 32 (transformers replaces a 0 or null by 32)"));
  EXPECT_TRUE(contains(replaced.defaults, "beta_slow: 1 (transformers replaces a 0 or null by 1)"));
  const HfConfigExplanation absent = explain_hf_config(R"({"head_dim": 64, "max_position_embeddings": 32768,
      "rope_scaling": {"rope_type": "yarn", "factor": 4, "original_max_position_embeddings": 8192}})");
  for (const std::string& note : absent.defaults) EXPECT_EQ(note.find("beta_"), std::string::npos) << note;
}

TEST(HfConfig, OddPartialRotaryCountIsRefusedWithWhatUpstreamDoes) {
  for (const char* config : {R"({"head_dim": 64, "partial_rotary_factor": 0.3})",
                             R"({"model_type": "gpt_neox", "hidden_size": 512, "num_attention_heads": 8, "rotary_pct": 0.3})"}) {
    const std::string message = refusal_of(config);
    EXPECT_NE(message.find("= 19 rotary dims, an odd count"), std::string::npos) << message;
    EXPECT_NE(message.find("GPT-NeoX then rotates 20 dims"), std::string::npos) << message;
  }
}

TEST(HfConfig, LongRopeFactorFollowsTheCurrentReleaseUnlessAskedFor4x) {
  const char* config = R"({"model_type": "phi3", "head_dim": 8, "max_position_embeddings": 131072,
    "original_max_position_embeddings": 4096,
    "rope_scaling": {"type": "longrope", "factor": 16, "short_factor": [1, 1, 1, 1], "long_factor": [1, 2, 3, 4]}})";
  EXPECT_EQ(spec_of(config), "rope(d=8,base=10000,layout=half,scaling=longrope(factor=16,orig=4096,short=[1,1,1,1],long=[1,2,3,4]))");
  EXPECT_EQ(spec_of(config, {.layer_type = "", .longrope_factor_from_lengths = true}),
            "rope(d=8,base=10000,layout=half,scaling=longrope(factor=32,orig=4096,short=[1,1,1,1],long=[1,2,3,4]))");
}

TEST(HfConfig, NumbersKeepTheDigitsTheConfigWrote) {
  // 18.360000610351562 and 18.360000610351563 are the same double; the spec keeps the written one.
  EXPECT_EQ(spec_of(R"({"head_dim": 4, "max_position_embeddings": 8192, "original_max_position_embeddings": 4096,
                        "rope_scaling": {"type": "longrope", "short_factor": [1, 18.360000610351562], "long_factor": [1e-05, 2]}})"),
            "rope(d=4,base=10000,layout=half,scaling=longrope(factor=2,orig=4096,short=[1,18.360000610351562],long=[0.00001,2]))");
}

TEST(HfConfig, CountsPastAnIntAreRefusedNotWrapped) {
  // Found by fuzz/hf_config_fuzz.cpp: 2^32 + 128 once read as a head of 128 dims, and DeepSeek's
  // two head dims overflowed their int sum.
  EXPECT_NE(refusal_of(R"({"head_dim": 4294967424, "rope_theta": 10000})").find("head_dim is 4294967424"), std::string::npos);
  EXPECT_NE(refusal_of(R"({"hidden_size": 4294967424, "num_attention_heads": 1})")
                .find("hidden_size / num_attention_heads is 4294967424"),
            std::string::npos);
  EXPECT_NE(refusal_of(R"({"model_type": "t5", "relative_attention_num_buckets": 4294967328})")
                .find("relative_attention_num_buckets is 4294967328"),
            std::string::npos);
  EXPECT_NE(refusal_of(R"({"model_type": "deepseek_v3", "qk_rope_head_dim": 2147483647, "qk_nope_head_dim": 2147483647})")
                .find("qk_nope_head_dim + qk_rope_head_dim is 4294967294"),
            std::string::npos);
  EXPECT_NE(refusal_of(R"({"model_type": "gptj", "n_embd": 4096, "n_head": 16, "rotary_dim": 4294967360})")
                .find("rotary_dim is 4294967360"),
            std::string::npos);
  EXPECT_NE(refusal_of(R"({"head_dim": 128, "rope_scaling": {"type": "mrope", "mrope_section": [4294967312, 24, 24]}})")
                .find("mrope_section is 4294967312"),
            std::string::npos);
  EXPECT_NE(refusal_of(R"({"head_dim": 128, "rope_scaling": {"type": "mrope", "mrope_section": [-16, 24, 24]}})")
                .find("mrope_section holds -16, not a positive integer"),
            std::string::npos);
}

TEST(HfConfig, DeepNestingIsRefusedNotAStackOverflow) {
  // The message that dumped a 100,000-deep rope_scaling overflowed the stack (fuzz/hf_config).
  const std::string config = R"({"head_dim": 8, "rope_scaling": )" + std::string(100000, '[') + std::string(100000, ']') + "}";
  EXPECT_NE(refusal_of(config.c_str()).find("config.json: arrays and objects nest deeper than 64"), std::string::npos);
}

TEST(HfConfig, Llama3WithoutSmoothingBandIsPerPairFactors) {
  // Llama 4: low = high = 1, so θ_i/16 where 2π·500000^(i/4) > 8192 (i/4 > 0.5466: i = 3) and θ_i below.
  EXPECT_EQ(spec_of(R"({"head_dim": 8, "rope_theta": 500000, "rope_scaling": {"rope_type": "llama3", "factor": 16,
                        "low_freq_factor": 1, "high_freq_factor": 1, "original_max_position_embeddings": 8192}})"),
            "rope(d=8,base=500000,layout=half,scaling=custom(factors=[1,1,1,16]))");
  // What Spec::parse refuses in a llama3 plan is refused before it becomes per-pair factors
  // (fuzz/hf_config_fuzz.cpp): transformers divides by low_freq_factor, and a head of 2e9 dims
  // was built pair by pair until memory ran out.
  const char* const low_zero = R"({"head_dim": 8, "rope_scaling": {"rope_type": "llama3", "factor": 16, "low_freq_factor": 0,
                                   "high_freq_factor": 0, "original_max_position_embeddings": 8192}})";
  EXPECT_NE(refusal_of(low_zero).find("llama3 low_freq_factor 0 must be positive"), std::string::npos) << refusal_of(low_zero);
  const char* const factor_negative = R"({"head_dim": 8, "rope_scaling": {"rope_type": "llama3", "factor": -16,
                                          "low_freq_factor": 1, "high_freq_factor": 1, "original_max_position_embeddings": 8192}})";
  EXPECT_NE(refusal_of(factor_negative).find("llama3 factor -16 must be positive"), std::string::npos) << refusal_of(factor_negative);
  const char* const huge_head = R"({"head_dim": 2000000000, "rope_scaling": {"rope_type": "llama3", "factor": 8,
                                    "low_freq_factor": 1, "high_freq_factor": 1, "original_max_position_embeddings": 8192}})";
  EXPECT_NE(refusal_of(huge_head).find("key 'd' expects an integer in [1, 1048576], found '2000000000'"), std::string::npos)
      << refusal_of(huge_head);
}

// Non-rotary configs.

TEST(HfConfig, T5ConfigsGiveBucketSpecs) {
  EXPECT_EQ(spec_of(R"({"model_type": "t5", "d_model": 512, "num_heads": 8, "relative_attention_num_buckets": 64,
                        "relative_attention_max_distance": 256, "is_decoder": true})"),
            "t5(buckets=64,max_distance=256,bidirectional=false)");
  EXPECT_EQ(spec_of(R"({"model_type": "t5", "d_model": 512})"), "t5(buckets=32,max_distance=128)");
}

TEST(HfConfig, BloomAndMptConfigsGiveAlibiSpecs) {
  EXPECT_EQ(spec_of(R"({"model_type": "bloom", "hidden_size": 4096, "n_head": 32})"), "alibi(heads=32,mode=causal)");
  EXPECT_EQ(spec_of(R"({"model_type": "mpt", "d_model": 4096, "n_heads": 24, "attn_config": {"alibi": true, "alibi_bias_max": 8}})"),
            "alibi(heads=24,mode=causal)");
  EXPECT_NE(refusal_of(R"({"model_type": "mpt", "n_heads": 24, "attn_config": {"alibi_bias_max": 16}})").find("2^(-16h/n)"),
            std::string::npos);
  EXPECT_NE(refusal_of(R"({"model_type": "mpt", "n_heads": 24, "attn_config": {"alibi": false}})").find("learned"),
            std::string::npos);
  EXPECT_NE(refusal_of(R"({"model_type": "gpt2", "n_embd": 768, "n_head": 12})").find("learned or sinusoidal table"),
            std::string::npos);
}

// DeepSeek MLA.

constexpr const char* deepseek_v2 = R"({"model_type": "deepseek_v2", "hidden_size": 5120, "num_attention_heads": 128,
  "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "max_position_embeddings": 163840, "rope_theta": 10000,
  "rope_scaling": {"type": "yarn", "factor": 40, "original_max_position_embeddings": 4096, "beta_fast": 32,
                   "beta_slow": 1, "mscale": 0.707, "mscale_all_dim": 0.707}})";

TEST(HfConfig, DeepSeekV2RotatesTheLastQkRopeHeadDimInInterleavedPairs) {
  EXPECT_EQ(spec_of(deepseek_v2),
            "rope(d=192,base=10000,layout=interleaved,rot=64,rot_at=last,"
            "scaling=yarn(factor=40,orig=4096,mscale=0.707,mscale_all_dim=0.707))");
}

TEST(HfConfig, DeepSeekV3ReadsInterleavedAndWritesHalfUnlessRopeInterleaveIsFalse) {
  const std::string v3 = R"({"model_type": "deepseek_v3", "hidden_size": 7168, "num_attention_heads": 128,
    "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "rope_theta": 10000})";
  EXPECT_EQ(spec_of(v3.c_str()), "rope(d=192,base=10000,layout=interleaved-to-half,rot=64,rot_at=last)");
  const std::string half = v3.substr(0, v3.size() - 1) + R"(, "rope_interleave": false})";
  EXPECT_EQ(spec_of(half.c_str()), "rope(d=192,base=10000,layout=half,rot=64,rot_at=last)");
}

TEST(HfConfig, YarnMscaleCountsOnlyWhenBothAreNonzero) {
  EXPECT_EQ(spec_of(R"({"head_dim": 64, "max_position_embeddings": 16384, "rope_scaling": {"rope_type": "yarn", "factor": 4,
                        "original_max_position_embeddings": 4096, "mscale": 1.0, "mscale_all_dim": 0}})"),
            "rope(d=64,base=10000,layout=half,scaling=yarn(factor=4,orig=4096))");
}

// --explain.

TEST(HfConfig, ExplainNamesUsedIgnoredAndDefaultedKeys) {
  const HfConfigExplanation reading = explain_hf_config(R"({"model_type": "llama", "vocab_size": 32000, "head_dim": 128,
    "max_position_embeddings": 8192,
    "rope_scaling": {"rope_type": "llama3", "factor": 8, "low_freq_factor": 1, "high_freq_factor": 4, "rotate": "yes"}})");
  EXPECT_TRUE(contains(reading.used, "rope_scaling.factor"));
  EXPECT_TRUE(contains(reading.used, "max_position_embeddings"));
  EXPECT_TRUE(contains(reading.ignored, "vocab_size"));
  EXPECT_TRUE(contains(reading.ignored, "rope_scaling.rotate"));
  EXPECT_FALSE(contains(reading.ignored, "rope_scaling.factor"));
  ASSERT_EQ(reading.defaults.size(), 2u);
  EXPECT_NE(reading.defaults[0].find("rope_theta: 10000"), std::string::npos) << reading.defaults[0];
  EXPECT_NE(reading.defaults[1].find("original_max_position_embeddings: 8192"), std::string::npos) << reading.defaults[1];
}

// Issue 51: refusals and branches of the config reader the tests above were not written for.

TEST(HfConfig, MalformedPlansAndFactorsAreRefusedNamingTheKeyAndValue) {
  expect_refused(R"({"head_dim": 8, "rope_scaling": 3})", "config.json: \"rope_scaling\" must be an object, found 3");
  expect_refused(R"({"head_dim": 8, "rope_parameters": [1]})", "config.json: \"rope_parameters\" must be an object, found [1]");
  // (0, 1]: a factor of 0 is refused as out of range, not later as a head that rotates nothing.
  expect_refused(R"({"head_dim": 8, "partial_rotary_factor": 0})", "partial_rotary_factor 0 must lie in (0, 1]");
  // int(8·0.1) = 0 rotary dims; rot=0 would mean the whole head.
  expect_refused(R"({"head_dim": 8, "partial_rotary_factor": 0.1})", "partial_rotary_factor 0.1 of head_dim 8 rotates no dims");
  expect_refused(R"({"head_dim": 128, "rope_scaling": {"type": "mrope", "mrope_section": 16}})", "\"rope_scaling.mrope_section\" must be a list of integers");
}

TEST(HfConfig, StaticNtkRefusesFactorsItCannotWriteExactly) {
  const char* below_one = R"({"head_dim": 64, "rope_scaling": {"type": "ntk", "factor": 0.5}})";
  EXPECT_NE(refusal_of(below_one).find("config.json: ntk factor 0.5 must be at least 1"), std::string::npos) << refusal_of(below_one);
  // 2^53 + 2: f - 1 = 2^53 + 1 rounds to 2^53 in binary64, so dynamic(factor=f-1) would not give f.
  const char* inexact = R"({"head_dim": 64, "rope_scaling": {"type": "ntk", "factor": 9007199254740994}})";
  EXPECT_NE(refusal_of(inexact).find("ntk factor 9007199254740994 - 1 is not exact in binary64"), std::string::npos)
      << refusal_of(inexact);
  const HfConfigExplanation ntk = explain_hf_config(R"({"head_dim": 64, "rope_scaling": {"type": "ntk", "factor": 4.0}})");
  EXPECT_TRUE(contains(ntk.defaults, "ntk factor 4 written as dynamic(factor=3,orig=1,len=2), which gives the same base·factor^(d/(d-2))"))
      << (ntk.defaults.empty() ? "" : ntk.defaults.back());
}

TEST(HfConfig, Llama3RefusesAWavelengthOnItsThreshold) {
  // Pair 0's wavelength is 2π; orig/low = 2/0.31830985 is 2π·(1 + 1.1e-7), within float32 rounding.
  const char* config = R"({"head_dim": 8, "rope_scaling": {"rope_type": "llama3", "factor": 8, "low_freq_factor": 0.31830985,
                           "high_freq_factor": 0.31830985, "original_max_position_embeddings": 2}})";
  EXPECT_NE(refusal_of(config).find("puts pair 0's wavelength"), std::string::npos) << refusal_of(config);
  // 2/0.3183035 is 2π·(1 + 2.0e-5), outside the 1e-5 window: pair 0 keeps θ, pairs 1-3 (2π·10^i) are divided.
  EXPECT_EQ(spec_of(R"({"head_dim": 8, "rope_scaling": {"rope_type": "llama3", "factor": 8, "low_freq_factor": 0.3183035,
                        "high_freq_factor": 0.3183035, "original_max_position_embeddings": 2}})"),
            "rope(d=8,base=10000,layout=half,scaling=custom(factors=[1,8,8,8]))");
}

TEST(HfConfig, EveryCountPastAnIntIsRefusedNamingItsKey) {
  EXPECT_NE(refusal_of(R"({"model_type": "t5", "relative_attention_max_distance": 4294967424})")
                .find("relative_attention_max_distance is 4294967424"),
            std::string::npos);
  EXPECT_NE(refusal_of(R"({"model_type": "bloom", "n_head": 4294967304})").find("the head count is 4294967304"), std::string::npos);
  EXPECT_NE(refusal_of(R"({"model_type": "deepseek_v3", "qk_rope_head_dim": 64, "qk_nope_head_dim": 4294967424})")
                .find("qk_nope_head_dim is 4294967424"),
            std::string::npos);
  HfConfigOptions full;
  full.layer_type = "full_attention";
  EXPECT_NE(refusal_of(R"({"model_type": "gemma4_text", "head_dim": 256, "global_head_dim": 4294967808,
                           "rope_parameters": {"full_attention": {"rope_type": "default", "rope_theta": 1000000},
                                               "sliding_attention": {"rope_type": "default", "rope_theta": 10000}}})",
                       full)
                .find("global_head_dim is 4294967808"),
            std::string::npos);
}

TEST(HfConfig, YarnAndLongRopeReadTheirLengthsFactorsAndAttention) {
  // No factor: max_position_embeddings / original, through a double where it does not divide.
  EXPECT_EQ(spec_of(R"({"head_dim": 64, "max_position_embeddings": 10000,
                        "rope_scaling": {"rope_type": "yarn", "original_max_position_embeddings": 4096}})"),
            "rope(d=64,base=10000,layout=half,scaling=yarn(factor=2.44140625,orig=4096))");
  const HfConfigExplanation derived = explain_hf_config(R"({"head_dim": 64, "max_position_embeddings": 16384,
      "rope_scaling": {"rope_type": "yarn", "original_max_position_embeddings": 4096}})");
  EXPECT_EQ(derived.spec.canonical(), "rope(d=64,base=10000,layout=half,scaling=yarn(factor=4,orig=4096))");
  EXPECT_TRUE(contains(derived.defaults, "factor: 4 (max_position_embeddings / original_max_position_embeddings)"));
  // The model-level original length wins over the plan's (standardize_rope_params).
  EXPECT_EQ(spec_of(R"({"head_dim": 128, "rope_theta": 500000, "original_max_position_embeddings": 8192,
                        "rope_scaling": {"rope_type": "llama3", "factor": 8, "low_freq_factor": 1, "high_freq_factor": 4,
                                         "original_max_position_embeddings": 4096}})"),
            "rope(d=128,base=500000,layout=half,scaling=llama3(factor=8,orig=8192))");
  EXPECT_EQ(spec_of(R"({"head_dim": 64, "rope_scaling": {"rope_type": "yarn", "factor": 4, "original_max_position_embeddings": 4096,
                        "attention_factor": 1.2}})"),
            "rope(d=64,base=10000,layout=half,scaling=yarn(factor=4,orig=4096,attention=1.2))");
  EXPECT_EQ(spec_of(R"({"head_dim": 8, "original_max_position_embeddings": 4096, "rope_scaling": {"rope_type": "longrope", "factor": 4,
                        "attention_factor": 1.1, "short_factor": [1, 1, 1, 1], "long_factor": [1, 2, 3, 4]}})"),
            "rope(d=8,base=10000,layout=half,scaling=longrope(factor=4,orig=4096,attention=1.1,short=[1,1,1,1],long=[1,2,3,4]))");
  // One mscale key alone is dropped, and the reading says so.
  const HfConfigExplanation dropped = explain_hf_config(R"({"head_dim": 64, "rope_scaling": {"rope_type": "yarn", "factor": 4,
      "original_max_position_embeddings": 4096, "mscale": 1, "mscale_all_dim": 0}})");
  EXPECT_TRUE(contains(dropped.defaults, "attention factor 0.1·ln(factor) + 1: transformers uses mscale and mscale_all_dim only when "
                                         "both are set and nonzero"));
}

// transformers 4.x derived LongRoPE's factor from the lengths only where the model level names
// the original length; a plan-level length leaves the explicit factor.
TEST(HfConfig, LongRope4xOptionNeedsTheModelLevelLength) {
  HfConfigOptions v4;
  v4.longrope_factor_from_lengths = true;
  EXPECT_EQ(spec_of(R"({"head_dim": 8, "max_position_embeddings": 131072, "rope_scaling": {"type": "longrope", "factor": 16,
                        "original_max_position_embeddings": 4096, "short_factor": [1, 1, 1, 1], "long_factor": [1, 2, 3, 4]}})",
                    v4),
            "rope(d=8,base=10000,layout=half,scaling=longrope(factor=16,orig=4096,short=[1,1,1,1],long=[1,2,3,4]))");
  const HfConfigExplanation model_level = explain_hf_config(R"({"head_dim": 8, "max_position_embeddings": 131072,
      "original_max_position_embeddings": 4096,
      "rope_scaling": {"type": "longrope", "factor": 16, "short_factor": [1, 1, 1, 1], "long_factor": [1, 2, 3, 4]}})",
                                                            v4);
  EXPECT_TRUE(contains(model_level.defaults, "factor: 32 (max_position_embeddings / original_max_position_embeddings, as "
                                             "transformers 4.x derives it; --longrope-factor-from-lengths)"));
}

TEST(HfConfig, ModelTypesSelectTheirOwnReadings) {
  // phi4_multimodal's "yarn" is LongRoPE's older name, as Phi-3's is.
  const HfConfigExplanation phi4 = explain_hf_config(R"({"model_type": "phi4_multimodal", "head_dim": 8,
      "max_position_embeddings": 131072, "original_max_position_embeddings": 4096,
      "rope_scaling": {"type": "yarn", "factor": 16, "short_factor": [1, 1, 1, 1], "long_factor": [1, 2, 3, 4]}})");
  EXPECT_EQ(phi4.spec.canonical(), "rope(d=8,base=10000,layout=half,scaling=longrope(factor=16,orig=4096,short=[1,1,1,1],long=[1,2,3,4]))");
  EXPECT_TRUE(contains(phi4.defaults, "rope_type 'yarn' read as longrope (phi4_multimodal's legacy name, configuration_phi3.py)"));
  // Qwen3-VL interleaves whatever the config says; Qwen2-VL keeps blocks; others follow mrope_interleaved.
  EXPECT_EQ(spec_of(R"({"model_type": "qwen3_vl_text", "head_dim": 16, "rope_theta": 10000,
                        "rope_scaling": {"rope_type": "default", "mrope_section": [2, 3, 3]}})"),
            "mrope(d=16,base=10000,layout=half,sections=[2,3,3],section_mode=interleaved)");
  EXPECT_EQ(spec_of(R"({"model_type": "qwen2_vl", "head_dim": 16, "rope_theta": 10000,
                        "rope_scaling": {"type": "mrope", "mrope_section": [2, 3, 3], "mrope_interleaved": true}})"),
            "mrope(d=16,base=10000,layout=half,sections=[2,3,3])");
  EXPECT_EQ(spec_of(R"({"head_dim": 16, "rope_scaling": {"type": "mrope", "mrope_section": [2, 3, 3], "mrope_interleaved": true}})"),
            "mrope(d=16,base=10000,layout=half,sections=[2,3,3],section_mode=interleaved)");
  // HunYuan's MoE and VL models read a dynamic plan with alpha as static NTK, as the dense one does.
  for (const char* type : {"hunyuan_v1_moe", "hunyuan_vl"}) {
    const std::string config = std::string(R"({"model_type": ")") + type +
                               R"(", "head_dim": 128, "max_position_embeddings": 32768,
                               "rope_scaling": {"type": "dynamic", "alpha": 1000.0, "factor": 1.0}})";
    EXPECT_EQ(spec_of(config.c_str()), "rope(d=128,base=10000,layout=half,scaling=dynamic(factor=999,orig=1,len=2))") << type;
  }
  // T5's descendants, and any config with T5's bucket count.
  for (const char* config : {R"({"model_type": "mt5", "d_model": 512})", R"({"model_type": "umt5", "d_model": 512})",
                             R"({"model_type": "switch_transformers", "d_model": 512})", R"({"relative_attention_num_buckets": 32})"})
    EXPECT_EQ(spec_of(config), "t5(buckets=32,max_distance=128)") << config;
  // Falcon is rotary unless alibi is true (its default false is noted); RefinedWeb is Falcon.
  const HfConfigExplanation falcon = explain_hf_config(R"({"model_type": "falcon", "hidden_size": 4544, "num_attention_heads": 71})");
  EXPECT_EQ(falcon.spec.canonical(), "rope(d=64,base=10000,layout=half)");
  EXPECT_TRUE(contains(falcon.defaults, "alibi: false (FalconConfig default), so rotary"));
  for (const char* type : {"RefinedWeb", "RefinedWebModel"}) {
    const std::string config = std::string(R"({"model_type": ")") + type + R"(", "hidden_size": 4544, "n_head": 71, "alibi": true})";
    EXPECT_EQ(spec_of(config.c_str()), "alibi(heads=71,mode=causal)") << type;
  }
  // Gemma 3's flat keys hold one plan per layer type under each of its model types.
  for (const char* type : {"gemma3", "gemma3n_text"}) {
    const std::string config = std::string(R"({"model_type": ")") + type + R"(", "head_dim": 256, "rope_theta": 1000000})";
    EXPECT_NE(refusal_of(config.c_str()).find("choose one with --layer-type"), std::string::npos) << type;
  }
}

TEST(HfConfig, GemmaFourFullAttentionDefaultsToAHeadOf512) {
  HfConfigOptions full;
  full.layer_type = "full_attention";
  for (const char* type : {"gemma4", "gemma4_text"}) {
    const std::string config = std::string(R"({"model_type": ")") + type + R"(", "head_dim": 256,
        "rope_parameters": {"full_attention": {"rope_type": "default", "rope_theta": 1000000},
                            "sliding_attention": {"rope_type": "default", "rope_theta": 10000}}})";
    const HfConfigExplanation gemma = explain_hf_config(config, full);
    EXPECT_EQ(gemma.spec.canonical(), "rope(d=512,base=1000000,layout=half)") << type;
    EXPECT_TRUE(contains(gemma.defaults, "global_head_dim: 512 (Gemma4TextConfig default), the head of full_attention layers")) << type;
  }
}

TEST(HfConfig, HeadDimsComeFromEveryNameAModelGivesThem) {
  EXPECT_EQ(spec_of(R"({"d_model": 512, "num_heads": 8})"), "rope(d=64,base=10000,layout=half)");
  EXPECT_EQ(spec_of(R"({"d_model": 512, "n_heads": 16})"), "rope(d=32,base=10000,layout=half)");
  // DeepSeek's MLA head without its keys: 128 unrotated and 64 rotated dims.
  const HfConfigExplanation deepseek = explain_hf_config(R"({"model_type": "deepseek_v3", "rope_theta": 10000})");
  EXPECT_EQ(deepseek.spec.canonical(), "rope(d=192,base=10000,layout=interleaved-to-half,rot=64,rot_at=last)");
  EXPECT_TRUE(contains(deepseek.defaults, "qk_rope_head_dim: 64 (deepseek_v3 default)"));
  EXPECT_TRUE(contains(deepseek.defaults, "qk_nope_head_dim: 128 (deepseek_v3 default)"));
}

// text_config holds a multimodal model's language model only where the top level has none of it.
TEST(HfConfig, TextConfigIsReadOnlyWithoutFlatKeysAndItsModelTypeWins) {
  // The inner cohere rotates interleaved pairs at its own default theta, the outer llava would not.
  EXPECT_EQ(spec_of(R"({"model_type": "llava", "text_config": {"model_type": "cohere", "head_dim": 128}})"),
            "rope(d=128,base=500000,layout=interleaved)");
  for (const char* config : {R"({"head_dim": 64, "text_config": {"head_dim": 128}})",
                             R"({"hidden_size": 512, "num_attention_heads": 8, "text_config": {"head_dim": 128}})",
                             R"({"n_embd": 512, "n_head": 8, "text_config": {"head_dim": 128}})",
                             R"({"d_model": 512, "num_heads": 8, "text_config": {"head_dim": 128}})"})
    EXPECT_EQ(spec_of(config), "rope(d=64,base=10000,layout=half)") << config;
  // rope_theta alone keeps the top level too, where the head is missing.
  expect_refused(R"({"rope_theta": 5000, "text_config": {"head_dim": 128}})", "hidden_size");
}

TEST(HfConfig, DefaultsTakenAreNamedWithTheirSource) {
  const HfConfigExplanation t5 = explain_hf_config(R"({"model_type": "t5", "d_model": 512})");
  EXPECT_TRUE(contains(t5.defaults, "relative_attention_num_buckets: 32 (T5Config default)"));
  EXPECT_TRUE(contains(t5.defaults, "relative_attention_max_distance: 128 (T5Config default)"));
  EXPECT_TRUE(contains(t5.defaults, "is_decoder: false (T5Config default), so bidirectional=true; the decoder stack of an "
                                    "encoder-decoder model uses bidirectional=false"));
  const HfConfigExplanation mpt = explain_hf_config(R"({"model_type": "mpt", "n_heads": 24})");
  EXPECT_TRUE(contains(mpt.defaults, "attn_config.alibi: true (MptAttentionConfig default)"));
  EXPECT_TRUE(contains(mpt.defaults, "attn_config.alibi_bias_max: 8 (MptAttentionConfig default)"));
  const HfConfigExplanation neox = explain_hf_config(R"({"model_type": "gpt_neox", "hidden_size": 512, "num_attention_heads": 8})");
  EXPECT_TRUE(contains(neox.defaults, "partial_rotary_factor: 0.25 (GPTNeoXConfig (rotary_pct), transformers 5.23.0)"));
  const HfConfigExplanation gptj = explain_hf_config(R"({"model_type": "gptj", "n_embd": 4096, "n_head": 16})");
  EXPECT_TRUE(contains(gptj.defaults, "rotary_dim: 64 (GPTJConfig default)"));
}

// convert_rope_params_to_dict: a non-empty rope_scaling wins over rope_parameters.
TEST(HfConfig, ANonEmptyRopeScalingWinsOverRopeParameters) {
  EXPECT_EQ(spec_of(R"({"head_dim": 64, "rope_scaling": {"rope_type": "linear", "factor": 2},
                        "rope_parameters": {"rope_type": "linear", "factor": 4}})"),
            "rope(d=64,base=10000,layout=half,scaling=linear(factor=2))");
  EXPECT_EQ(spec_of(R"({"head_dim": 64, "rope_parameters": {"rope_type": "linear", "factor": 4},
                        "rope_scaling": {"rope_type": "linear", "factor": 2}})"),
            "rope(d=64,base=10000,layout=half,scaling=linear(factor=2))");
}

// MptConfig maps num_attention_heads to n_heads (its attribute_map), so a config may give either.
TEST(HfConfig, MptTakesItsHeadCountUnderEitherName) {
  EXPECT_EQ(spec_of(R"({"model_type": "mpt", "d_model": 4096, "num_attention_heads": 24})"), "alibi(heads=24,mode=causal)");
}

// transformers' `if mscale and mscale_all_dim`: a zero mscale leaves both out too, whichever of
// the two is zero.
TEST(HfConfig, YarnMscaleOfZeroBesideANonzeroMscaleAllDimCountsNeither) {
  EXPECT_EQ(spec_of(R"({"head_dim": 64, "max_position_embeddings": 16384, "rope_scaling": {"rope_type": "yarn", "factor": 4,
                        "original_max_position_embeddings": 4096, "mscale": 0, "mscale_all_dim": 1.0}})"),
            "rope(d=64,base=10000,layout=half,scaling=yarn(factor=4,orig=4096))");
}

}  // namespace
}  // namespace peconform
