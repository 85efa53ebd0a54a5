// Spec::from_hf_config: maps a Hugging Face config.json onto a Spec. Key names and fallbacks
// follow transformers' modeling_rope_utils (see ../shared/notes/variants.md, section 3).
#include <cmath>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "spec/spec.hpp"
#include "spec/spec_error.hpp"

namespace peconform {
namespace {

using nlohmann::json;

const json* find(const json& object, std::string_view key) {
  auto it = object.find(std::string(key));
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

Decimal decimal_at(const json& object, std::string_view key, std::string_view where) {
  const json* value = find(object, key);
  if (value == nullptr || !value->is_number())
    throw SpecError(fmt::format("config.json: {}\"{}\" must be a number, found {}", where, key,
                                value ? value->dump() : "nothing"));
  return Decimal::parse(value->dump());
}

std::int64_t integer_at(const json& object, std::string_view key, std::string_view where) {
  const json* value = find(object, key);
  if (value == nullptr || !value->is_number_integer() || value->get<std::int64_t>() < 1)
    throw SpecError(fmt::format("config.json: {}\"{}\" must be a positive integer, found {}", where, key,
                                value ? value->dump() : "nothing"));
  return value->get<std::int64_t>();
}

std::vector<Decimal> decimals_at(const json& object, std::string_view key) {
  const json* value = find(object, key);
  if (value == nullptr || !value->is_array())
    throw SpecError(fmt::format("config.json: rope_scaling \"{}\" must be a list of numbers", key));
  std::vector<Decimal> out;
  for (const json& element : *value) {
    if (!element.is_number())
      throw SpecError(fmt::format("config.json: rope_scaling \"{}\" holds {}, not a number", key, element.dump()));
    out.push_back(Decimal::parse(element.dump()));
  }
  return out;
}

int head_dim_of(const json& config) {
  if (find(config, "head_dim")) return static_cast<int>(integer_at(config, "head_dim", ""));
  const std::int64_t hidden = integer_at(config, "hidden_size", "without head_dim, ");
  const std::int64_t heads = integer_at(config, "num_attention_heads", "without head_dim, ");
  if (hidden % heads != 0)
    throw SpecError(fmt::format("config.json: hidden_size {} is not divisible by num_attention_heads {}", hidden, heads));
  return static_cast<int>(hidden / heads);
}

// The original context length: rope_scaling's own key, then the model's, then max_position_embeddings.
std::int64_t original_length(const json& config, const json& scaling) {
  if (find(scaling, "original_max_position_embeddings"))
    return integer_at(scaling, "original_max_position_embeddings", "rope_scaling ");
  if (find(config, "original_max_position_embeddings"))
    return integer_at(config, "original_max_position_embeddings", "");
  return integer_at(config, "max_position_embeddings", "");
}

void read_scaling(Spec& spec, const json& config, const json& scaling) {
  if (!scaling.is_object()) throw SpecError(fmt::format("config.json: rope_scaling must be an object, found {}", scaling.dump()));
  const json* type = find(scaling, "rope_type");
  if (type == nullptr) type = find(scaling, "type");  // the key's name before transformers 4.45
  if (type == nullptr || !type->is_string())
    throw SpecError(fmt::format("config.json: rope_scaling has no \"rope_type\": {}", scaling.dump()));
  const std::string kind = type->get<std::string>();
  FrequencyPlan& plan = spec.scaling;
  auto optional_decimal = [&](std::string_view key) -> std::optional<Decimal> {
    if (!find(scaling, key)) return std::nullopt;
    return decimal_at(scaling, key, "rope_scaling ");
  };
  if (kind == "default") return;
  if (kind == "mrope") {
    spec.family = Family::mrope;
    const json* sections = find(scaling, "mrope_section");
    if (sections == nullptr || !sections->is_array())
      throw SpecError("config.json: rope_scaling type mrope needs \"mrope_section\", a list of integers");
    for (const json& section : *sections) {
      if (!section.is_number_integer())
        throw SpecError(fmt::format("config.json: mrope_section holds {}, not an integer", section.dump()));
      spec.sections.push_back(section.get<int>());
    }
    return;
  }
  if (kind == "linear") {
    plan.kind = PlanKind::linear;
    plan.factor = decimal_at(scaling, "factor", "rope_scaling ");
  } else if (kind == "dynamic") {
    plan.kind = PlanKind::dynamic;
    plan.factor = decimal_at(scaling, "factor", "rope_scaling ");
    plan.orig = integer_at(config, "max_position_embeddings", "");
  } else if (kind == "yarn") {
    plan.kind = PlanKind::yarn;
    plan.factor = decimal_at(scaling, "factor", "rope_scaling ");
    plan.orig = original_length(config, scaling);
    if (auto value = optional_decimal("beta_fast")) plan.beta_fast = *value;
    if (auto value = optional_decimal("beta_slow")) plan.beta_slow = *value;
    plan.mscale = optional_decimal("mscale");
    plan.mscale_all_dim = optional_decimal("mscale_all_dim");
    plan.attention = optional_decimal("attention_factor");
    if (const json* truncate = find(scaling, "truncate")) plan.truncate = truncate->is_boolean() && truncate->get<bool>();
  } else if (kind == "llama3") {
    plan.kind = PlanKind::llama3;
    plan.factor = decimal_at(scaling, "factor", "rope_scaling ");
    plan.low = decimal_at(scaling, "low_freq_factor", "rope_scaling ");
    plan.high = decimal_at(scaling, "high_freq_factor", "rope_scaling ");
    plan.orig = integer_at(scaling, "original_max_position_embeddings", "rope_scaling ");
  } else if (kind == "longrope") {
    plan.kind = PlanKind::longrope;
    plan.short_factors = decimals_at(scaling, "short_factor");
    plan.long_factors = decimals_at(scaling, "long_factor");
    plan.orig = original_length(config, scaling);
    plan.attention = optional_decimal("attention_factor");
    // transformers derives the factor from the two lengths when the model names its original length.
    if (find(config, "original_max_position_embeddings") || !find(scaling, "factor")) {
      const double ratio = static_cast<double>(integer_at(config, "max_position_embeddings", "")) / static_cast<double>(plan.orig);
      plan.factor = Decimal::parse(fmt::format("{}", ratio));
    } else {
      plan.factor = decimal_at(scaling, "factor", "rope_scaling ");
    }
  } else {
    throw SpecError(fmt::format("config.json: unknown rope_scaling type '{}'; expected default, linear, dynamic, "
                                "yarn, llama3, longrope or mrope", kind));
  }
}

}  // namespace

Spec Spec::from_hf_config(std::string_view config_json_text) {
  json config = json::parse(config_json_text, nullptr, /*allow_exceptions=*/false);
  if (config.is_discarded()) throw SpecError("config.json is not valid JSON");
  if (!config.is_object()) throw SpecError(fmt::format("config.json must hold an object, found {}", config.dump()));

  Spec spec;
  spec.family = Family::rope;
  spec.layout = Layout::half;  // transformers' rotate_half
  spec.d = head_dim_of(config);
  // transformers v5 gathers rope_theta and the scaling keys under "rope_parameters".
  const json* parameters = find(config, "rope_parameters");
  const json& rope = parameters ? *parameters : config;
  if (find(rope, "rope_theta")) spec.base = decimal_at(rope, "rope_theta", "");
  if (find(config, "partial_rotary_factor")) {
    const double factor = decimal_at(config, "partial_rotary_factor", "").to_double();
    if (!(factor > 0.0 && factor <= 1.0))
      throw SpecError(fmt::format("config.json: partial_rotary_factor {} must lie in (0, 1]", factor));
    spec.rot = static_cast<int>(spec.d * factor);  // int(), as transformers truncates
  }
  if (parameters) {
    read_scaling(spec, config, *parameters);
  } else if (const json* scaling = find(config, "rope_scaling")) {
    read_scaling(spec, config, *scaling);
  }
  // Round-trip through the text form so that every rule of Spec::parse (odd dims, list
  // lengths, positive factors) applies to configs as well.
  return Spec::parse(spec.canonical());
}

}  // namespace peconform
