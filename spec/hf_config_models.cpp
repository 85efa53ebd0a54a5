// Model-class knowledge for Spec::from_hf_config; see hf_config_models.hpp. Each entry names
// the transformers 5.23.0 file it was read from.
#include "spec/hf_config_models.hpp"

#include <algorithm>
#include <array>
#include <fmt/format.h>

namespace peconform {
namespace {

constexpr std::string_view release = "transformers 5.23.0";

struct ThetaEntry {
  std::string_view model_type;
  std::string_view config_class;
  std::string_view value;
};

// `default_theta` class attributes (models/<type>/configuration_<type>.py). Model types not
// listed take PreTrainedConfig's 10000 (modeling_rope_utils.py, RotaryEmbeddingConfigMixin).
constexpr std::array<ThetaEntry, 31> theta_defaults{{
    {"apertus", "ApertusConfig", "12000000"},       {"bitnet", "BitNetConfig", "500000"},
    {"cohere", "CohereConfig", "500000"},           {"csm", "CsmConfig", "500000"},
    {"cwm", "CwmConfig", "1000000"},                {"emu3", "Emu3TextConfig", "1000000"},
    {"ernie4_5", "Ernie4_5Config", "500000"},       {"ernie4_5_moe", "Ernie4_5_MoeConfig", "500000"},
    {"flex_olmo", "FlexOlmoConfig", "500000"},      {"fuyu", "FuyuConfig", "25000"},
    {"gpt_oss", "GptOssConfig", "150000"},          {"helium", "HeliumConfig", "100000"},
    {"lfm2", "Lfm2Config", "1000000"},              {"lfm2_moe", "Lfm2MoeConfig", "1000000"},
    {"llama4", "Llama4TextConfig", "500000"},       {"llama4_text", "Llama4TextConfig", "500000"},
    {"longcat_flash", "LongcatFlashConfig", "10000000"}, {"minimax", "MiniMaxConfig", "1000000"},
    {"minimax_m2", "MiniMaxM2Config", "5000000"},   {"mixtral", "MixtralConfig", "1000000"},
    {"mllama", "MllamaTextConfig", "500000"},       {"olmo3", "Olmo3Config", "500000"},
    {"phimoe", "PhimoeConfig", "1000000"},          {"qwen2_5_vl", "Qwen2_5_VLTextConfig", "1000000"},
    {"qwen2_vl", "Qwen2VLTextConfig", "1000000"},   {"qwen3_vl", "Qwen3VLTextConfig", "500000"},
    {"qwen3_vl_text", "Qwen3VLTextConfig", "500000"}, {"qwen3_vl_moe", "Qwen3VLMoeTextConfig", "500000"},
    {"qwen3_vl_moe_text", "Qwen3VLMoeTextConfig", "500000"}, {"smollm3", "SmolLM3Config", "2000000"},
    {"solar_open", "SolarOpenConfig", "1000000"},
}};

// Models with one default per layer type, keyed {"global": full attention, "local": sliding}.
struct LayeredThetaEntry {
  std::string_view model_type;
  std::string_view config_class;
  std::string_view full_attention;
  std::string_view sliding_attention;
};
constexpr std::array<LayeredThetaEntry, 5> layered_theta_defaults{{
    {"gemma3", "Gemma3TextConfig", "1000000", "10000"},
    {"gemma3_text", "Gemma3TextConfig", "1000000", "10000"},
    {"gemma3n_text", "Gemma3nTextConfig", "1000000", "10000"},
    {"modernbert", "ModernBertConfig", "160000", "10000"},
    {"modernbert-decoder", "ModernBertDecoderConfig", "160000", "10000"},
}};

struct FactorEntry {
  std::string_view model_type;
  std::string_view where;
  std::string_view value;
};
// `kwargs.setdefault("partial_rotary_factor", ...)` in each configuration file, and GPT-NeoX's
// rotary_pct default (configuration_gpt_neox.py).
constexpr std::array<FactorEntry, 10> partial_factor_defaults{{
    {"gpt_neox", "GPTNeoXConfig (rotary_pct)", "0.25"}, {"stablelm", "StableLmConfig", "0.25"},
    {"phi", "PhiConfig", "0.5"},                         {"persimmon", "PersimmonConfig", "0.5"},
    {"glm", "GlmConfig", "0.5"},                         {"glm4", "Glm4Config", "0.5"},
    {"glm4_moe", "Glm4MoeConfig", "0.5"},                {"nemotron", "NemotronConfig", "0.5"},
    {"moonshine", "MoonshineConfig", "0.9"},             {"fuyu", "FuyuConfig", "0.5"},
}};

// rotate_half taking x[..., ::2] and x[..., 1::2] with cos/sin repeated per pair
// (modeling_cohere.py, modeling_cohere2.py, modeling_glm.py, modeling_glm4.py), or complex
// multiplication over pairs (2i, 2i+1) (modeling_llama4.py, view_as_complex).
constexpr std::array<std::string_view, 7> interleaved_models{"cohere", "cohere2", "glm",        "glm4",
                                                             "glm4_moe", "llama4", "llama4_text"};

// Learned absolute tables (GPT-2, BERT, OPT, ...) or sinusoidal tables (DistilBERT option).
constexpr std::array<std::string_view, 14> table_models{"gpt2",    "bert",  "roberta", "distilbert", "opt",
                                                         "bart",    "mbart", "xlm-roberta", "electra", "albert",
                                                         "gpt_bigcode", "biogpt", "xglm", "whisper"};

template <class Table> auto find_entry(const Table& table, std::string_view model_type) {
  return std::find_if(table.begin(), table.end(), [&](const auto& entry) { return entry.model_type == model_type; });
}

}  // namespace

ModelDefault default_rope_theta(std::string_view model_type, std::string_view layer_type) {
  if (auto layered = find_entry(layered_theta_defaults, model_type); layered != layered_theta_defaults.end()) {
    const bool sliding = layer_type == "sliding_attention";
    return {Decimal::parse(sliding ? layered->sliding_attention : layered->full_attention),
            fmt::format("{}.default_theta[\"{}\"], {}", layered->config_class, sliding ? "local" : "global", release)};
  }
  if (auto entry = find_entry(theta_defaults, model_type); entry != theta_defaults.end())
    return {Decimal::parse(entry->value), fmt::format("{}.default_theta, {}", entry->config_class, release)};
  return {Decimal(10000), fmt::format("PreTrainedConfig's default_theta, {}", release)};
}

std::optional<ModelDefault> default_partial_rotary_factor(std::string_view model_type) {
  auto entry = find_entry(partial_factor_defaults, model_type);
  if (entry == partial_factor_defaults.end()) return std::nullopt;
  return ModelDefault{Decimal::parse(entry->value), fmt::format("{}, {}", entry->where, release)};
}

bool rotates_interleaved_pairs(std::string_view model_type) {
  return std::find(interleaved_models.begin(), interleaved_models.end(), model_type) != interleaved_models.end();
}

bool positions_by_table(std::string_view model_type) {
  return std::find(table_models.begin(), table_models.end(), model_type) != table_models.end();
}

}  // namespace peconform
