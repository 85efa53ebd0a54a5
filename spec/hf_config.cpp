// Spec::from_hf_config and explain_hf_config: a Hugging Face config.json read the way
// transformers reads it. Key names, fallbacks and defaults follow transformers 5.23.0
// (modeling_rope_utils.py: the rope init functions, convert_rope_params_to_dict and
// standardize_rope_params; models/*/configuration_*.py for each model's own keys), the current
// release when this was written; where 4.x differed and a config still depends on it, the
// comment says so. ../shared/notes/variants.md section 3 has the formulas.
#include "spec/hf_config.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <nlohmann/json.hpp>
#include <numbers>

#include "spec/call_syntax.hpp"
#include "spec/hf_config_models.hpp"
#include "spec/hf_config_reading.hpp"
#include "spec/spec_error.hpp"

namespace peconform {
namespace {

using nlohmann::json;
using hf_config_reading::Reading;
using hf_config_reading::Scope;

// Python's a / b as transformers computes it, kept exact where the quotient terminates.
Decimal ratio(std::int64_t numerator, std::int64_t denominator) {
  if (numerator % denominator == 0) return Decimal(numerator / denominator);
  return Decimal::parse(fmt::format("{}", static_cast<double>(numerator) / static_cast<double>(denominator)));
}

// A count as the int a Spec keeps: past int's range it is refused, never wrapped (a head_dim of
// 2^32 + 128 must not read as 128). Spec::parse then applies each key's own range.
int int_count(std::int64_t value, std::string_view what) {
  if (value > std::numeric_limits<int>::max())
    throw SpecError(fmt::format("config.json: {} is {}, past the largest count a spec holds ({})", what, value,
                                std::numeric_limits<int>::max()));
  return static_cast<int>(value);
}

bool is_one_of(std::string_view value, std::initializer_list<std::string_view> choices) {
  return std::find(choices.begin(), choices.end(), value) != choices.end();
}

// The first of several names a model family gives one quantity (GPT-J's n_head, MPT's n_heads).
std::int64_t count_named(Reading& reading, const Scope& scope, std::initializer_list<std::string_view> names,
                         std::string_view context = "") {
  for (std::string_view name : names)
    if (reading.has(scope, name)) return reading.count(scope, name, context);
  return reading.count(scope, *names.begin(), context);
}

int head_dim_of(Reading& reading, const Scope& model) {
  if (auto head_dim = reading.optional_count(model, "head_dim")) return int_count(*head_dim, model.prefix + "head_dim");
  const std::int64_t hidden = count_named(reading, model, {"hidden_size", "n_embd", "d_model"}, "without head_dim, ");
  const std::int64_t heads = count_named(reading, model, {"num_attention_heads", "n_head", "n_heads", "num_heads"},
                                         "without head_dim, ");
  if (hidden % heads != 0)
    throw SpecError(fmt::format("config.json: hidden_size {} is not divisible by num_attention_heads {}", hidden, heads));
  return int_count(hidden / heads, fmt::format("{}hidden_size / num_attention_heads", model.prefix));
}

// T5 and its descendants: relative position buckets (configuration_t5.py).
Spec read_t5(Reading& reading, const Scope& model) {
  Spec spec;
  spec.family = Family::t5;
  if (auto buckets = reading.optional_count(model, "relative_attention_num_buckets")) {
    spec.buckets = int_count(*buckets, model.prefix + "relative_attention_num_buckets");
  } else {
    reading.defaulted("relative_attention_num_buckets: 32 (T5Config default)");
  }
  if (auto distance = reading.optional_count(model, "relative_attention_max_distance")) {
    spec.max_distance = int_count(*distance, model.prefix + "relative_attention_max_distance");
  } else {
    reading.defaulted("relative_attention_max_distance: 128 (T5Config default)");
  }
  const std::optional<bool> decoder = reading.optional_bool(model, "is_decoder");
  if (!decoder)
    reading.defaulted("is_decoder: false (T5Config default), so bidirectional=true; the decoder stack of an "
                      "encoder-decoder model uses bidirectional=false");
  spec.bidirectional = !decoder.value_or(false);
  return spec;
}

Spec alibi_spec(std::int64_t heads) {
  Spec spec;
  spec.family = Family::alibi;
  spec.heads = int_count(heads, "the head count");
  // Bloom, MPT and Falcon are causal decoders: the bias +m·j under a causal mask, which
  // softmax makes -m·(i - j).
  spec.mode = AlibiMode::causal;
  return spec;
}

// MPT: attn_config.alibi (default true) with slopes 2^(-alibi_bias_max·h/n) (modeling_mpt.py
// build_mpt_alibi_tensor), which is the published series only for alibi_bias_max = 8.
Spec read_mpt(Reading& reading, const Scope& model) {
  Scope attention{reading.find(model, "attn_config"), model.prefix + "attn_config."};
  const std::optional<bool> alibi = reading.optional_bool(attention, "alibi");
  if (!alibi) reading.defaulted("attn_config.alibi: true (MptAttentionConfig default)");
  if (!alibi.value_or(true))
    throw SpecError("config.json: MPT with attn_config.alibi false positions by a learned table "
                    "(learned_pos_emb), which a config does not describe; use a learned(...) spec");
  if (auto bias_max = reading.optional_count(attention, "alibi_bias_max")) {
    if (*bias_max != 8)
      throw SpecError(fmt::format("config.json: attn_config.alibi_bias_max {} gives slopes 2^(-{}h/n); alibi(...) has "
                                  "the published slopes 2^(-8h/n) only",
                                  *bias_max, *bias_max));
  } else {
    reading.defaulted("attn_config.alibi_bias_max: 8 (MptAttentionConfig default)");
  }
  return alibi_spec(count_named(reading, model, {"n_heads", "num_attention_heads"}));
}

// The rope plan a config (or one of its layer types) holds: the object with rope_type and its
// keys, and the model-level key that gives the base when the object has no rope_theta.
struct RopePlan {
  Scope scope;                 // rope_scaling, rope_parameters or one layer type's entry; may be empty
  std::string layer_type;      // empty for configs with one plan
  std::string theta_fallback;  // the model-level key that supplies rope_theta
};

bool is_gemma3(std::string_view model_type) {
  return is_one_of(model_type, {"gemma3", "gemma3_text", "gemma3n_text"});
}

// Per-layer rope_parameters (transformers 5.x hybrid models): every value is an object or null.
bool is_nested(const json& parameters) {
  if (!parameters.is_object() || parameters.empty()) return false;
  return std::all_of(parameters.begin(), parameters.end(), [](const json& value) { return value.is_object() || value.is_null(); });
}

RopePlan select_plan(Reading& reading, const Scope& model, std::string_view model_type, const HfConfigOptions& options,
                     std::vector<std::string>& layer_types) {
  // convert_rope_params_to_dict: a non-empty rope_scaling wins over rope_parameters.
  Scope scaling{reading.find(model, "rope_scaling"), model.prefix + "rope_scaling."};
  Scope parameters{reading.find(model, "rope_parameters"), model.prefix + "rope_parameters."};
  for (const Scope* scope : {&scaling, &parameters})
    if (scope->object && !scope->object->is_object())
      throw SpecError(fmt::format("config.json: \"{}\" must be an object, found {}", scope->prefix.substr(0, scope->prefix.size() - 1),
                                  scope->object->dump()));
  const bool scaling_given = scaling.object && !scaling.object->empty();
  Scope chosen = scaling_given ? scaling : parameters;

  std::string layer_type;
  if (chosen.object && is_nested(*chosen.object)) {
    for (const auto& [name, value] : chosen.object->items())
      if (value.is_object()) layer_types.push_back(name);
  } else if (is_gemma3(model_type)) {
    // Gemma 3 before transformers 5 kept one plan per layer type in flat keys: rope_theta and
    // rope_scaling for full attention, rope_local_base_freq for sliding attention
    // (configuration_gemma3.py, convert_rope_params_to_dict).
    layer_types = {"full_attention", "sliding_attention"};
  }
  if (!layer_types.empty()) {
    const std::string listed = fmt::format("{}", fmt::join(layer_types, ", "));
    if (options.layer_type.empty())
      throw SpecError(fmt::format("config.json has one rope plan per layer type ({}); choose one with --layer-type", listed));
    if (std::find(layer_types.begin(), layer_types.end(), options.layer_type) == layer_types.end())
      throw SpecError(fmt::format("config.json has no layer type '{}'; it has {}", options.layer_type, listed));
    layer_type = options.layer_type;
  } else if (!options.layer_type.empty()) {
    throw SpecError(fmt::format("config.json has one rope plan for every layer; --layer-type {} does not apply",
                                options.layer_type));
  }

  RopePlan plan{chosen, layer_type, "rope_theta"};
  if (model_type == "gpt_neox") plan.theta_fallback = "rotary_emb_base";  // configuration_gpt_neox.py
  if (layer_type.empty()) return plan;
  if (chosen.object && is_nested(*chosen.object)) {
    plan.scope = Scope{reading.find(chosen, layer_type), chosen.prefix + layer_type + "."};
  } else if (layer_type == "sliding_attention") {
    plan.scope = Scope{};  // Gemma 3's sliding layers have no scaling
  }
  if (is_gemma3(model_type) && layer_type == "sliding_attention") plan.theta_fallback = "rope_local_base_freq";
  return plan;
}

// The rotary head: its dims, where the rotated dims sit and how they pair.
struct RotaryHead {
  int d = 0;
  int rotary_head = 0;  // the dims transformers' rope init calls head_dim
  RotaryPlacement at = RotaryPlacement::first;
  Layout layout = Layout::half;
};

RotaryHead rotary_head_of(Reading& reading, const Scope& model, std::string_view model_type) {
  RotaryHead head;
  if (is_one_of(model_type, {"deepseek_v2", "deepseek_v3"})) {
    // MLA: each query head is [q_nope, q_pe] and only q_pe (qk_rope_head_dim) rotates
    // (modeling_deepseek_v2.py, modeling_deepseek_v3.py).
    const std::optional<std::int64_t> rope = reading.optional_count(model, "qk_rope_head_dim");
    const std::optional<std::int64_t> nope = reading.optional_count(model, "qk_nope_head_dim");
    if (!rope) reading.defaulted(fmt::format("qk_rope_head_dim: 64 ({} default)", model_type));
    if (!nope) reading.defaulted(fmt::format("qk_nope_head_dim: 128 ({} default)", model_type));
    head.rotary_head = int_count(rope.value_or(64), model.prefix + "qk_rope_head_dim");
    const int nope_dims = int_count(nope.value_or(128), model.prefix + "qk_nope_head_dim");
    head.d = int_count(std::int64_t{nope_dims} + head.rotary_head, model.prefix + "qk_nope_head_dim + qk_rope_head_dim");
    head.at = RotaryPlacement::last;
    if (model_type == "deepseek_v2") {
      head.layout = Layout::interleaved;  // V2 rotates q_pe as complex numbers over pairs (2i, 2i+1)
      return head;
    }
    // V3 with rope_interleave (true by default) reads each rotated pair from (2i, 2i+1) and writes
    // it to (i, i + d/2) (apply_rotary_pos_emb_interleave); without it, rotate_half.
    const std::optional<bool> interleave = reading.optional_bool(model, "rope_interleave");
    if (!interleave) reading.defaulted("rope_interleave: true (deepseek_v3 default)");
    head.layout = interleave.value_or(true) ? Layout::interleaved_to_half : Layout::half;
    return head;
  }
  head.d = head_dim_of(reading, model);
  head.rotary_head = head.d;
  if (rotates_interleaved_pairs(model_type)) head.layout = Layout::interleaved;
  return head;
}

struct PartialFactor {
  std::optional<Decimal> value;
  std::string_view source;  // the key it was read from
};

PartialFactor partial_rotary_factor(Reading& reading, const RopePlan& plan, const Scope& model, std::string_view model_type) {
  std::optional<Decimal> factor = reading.optional_number(plan.scope, "partial_rotary_factor");
  std::string_view source = "partial_rotary_factor";
  if (!factor) {
    // GPT-NeoX reads rotary_pct, not partial_rotary_factor, at the model level (configuration_gpt_neox.py).
    source = model_type == "gpt_neox" ? "rotary_pct" : "partial_rotary_factor";
    factor = reading.optional_number(model, source);
  }
  if (!factor) {
    if (auto fallback = default_partial_rotary_factor(model_type)) {
      reading.defaulted(fmt::format("partial_rotary_factor: {} ({})", fallback->value.text(), fallback->source));
      factor = fallback->value;
    }
  }
  if (factor && !(factor->to_double() > 0.0 && factor->to_double() <= 1.0))
    throw SpecError(fmt::format("config.json: {} {} must lie in (0, 1]", source, factor->text()));
  return {factor, source};
}

// Partial rotary: d_rot = int(head_dim · factor) as Python truncates it.
int rotary_dims(const PartialFactor& partial, int rotary_head) {
  if (!partial.value) return rotary_head;
  const std::optional<Decimal>& factor = partial.value;
  const std::string_view source = partial.source;
  const double value = factor->to_double();
  const int dims = static_cast<int>(rotary_head * value);
  if (dims % 2 != 0)
    throw SpecError(fmt::format(
        "config.json: {} {} of head_dim {} gives int({}·{}) = {} rotary dims, an odd count. transformers builds "
        "{} frequencies base^(-2i/{}) and a cos/sin table {} wide from them; GPT-NeoX then rotates {} dims, other "
        "models fail to broadcast the table against their {} dims. A spec with rot={} forms base^(-2i/{}), not "
        "base^(-2i/{}), and custom frequencies cannot hold those irrational values exactly, so this is refused",
        source, factor->text(), rotary_head, rotary_head, factor->text(), dims, (dims + 1) / 2, dims, dims + 1,
        dims + 1, dims, dims + 1, dims + 1, dims));
  if (dims == 0)
    throw SpecError(fmt::format("config.json: {} {} of head_dim {} rotates no dims", source, factor->text(), rotary_head));
  return dims;
}

Decimal rope_theta(Reading& reading, const RopePlan& plan, const Scope& model, std::string_view model_type) {
  if (auto theta = reading.optional_number(plan.scope, "rope_theta")) return *theta;
  if (auto theta = reading.optional_number(model, plan.theta_fallback)) return *theta;
  const ModelDefault fallback = default_rope_theta(model_type, plan.layer_type);
  reading.defaulted(fmt::format("rope_theta: {} ({})", fallback.value.text(), fallback.source));
  return fallback.value;
}

// The pretraining length of llama3, yarn and longrope: the model-level key first, as
// standardize_rope_params gives it priority (Phi-3 keeps it there), then the plan's own, then
// max_position_embeddings.
std::int64_t original_length(Reading& reading, const RopePlan& plan, const Scope& model) {
  if (auto length = reading.optional_count(model, "original_max_position_embeddings")) return *length;
  if (auto length = reading.optional_count(plan.scope, "original_max_position_embeddings")) return *length;
  const std::int64_t fallback = reading.count(model, "max_position_embeddings");
  reading.defaulted(fmt::format("original_max_position_embeddings: {} (max_position_embeddings, as "
                                "standardize_rope_params falls back)",
                                fallback));
  return fallback;
}

std::string rope_type_of(Reading& reading, const RopePlan& plan, std::string_view model_type) {
  std::optional<std::string> type = reading.optional_string(plan.scope, "rope_type");
  if (!type) type = reading.optional_string(plan.scope, "type");  // the key's name before transformers 4.45
  if (!type) return "default";
  // configuration_phi3.py (and phi4_multimodal): "su" and "yarn" are older names for longrope.
  if (*type == "su" || (*type == "yarn" && is_one_of(model_type, {"phi3", "phi4_multimodal"}))) {
    reading.defaulted(fmt::format("rope_type '{}' read as longrope ({}'s legacy name, configuration_phi3.py)", *type,
                                  *type == "su" ? "Phi-3" : model_type));
    return "longrope";
  }
  return *type;
}

void read_yarn(Reading& reading, const RopePlan& plan, const Scope& model, FrequencyPlan& out) {
  out.kind = PlanKind::yarn;
  out.orig = original_length(reading, plan, model);
  if (auto factor = reading.optional_number(plan.scope, "factor")) {
    out.factor = *factor;
  } else {
    out.factor = ratio(reading.count(model, "max_position_embeddings"), out.orig);
    reading.defaulted(fmt::format("factor: {} (max_position_embeddings / original_max_position_embeddings)", out.factor.text()));
  }
  // `get("beta_fast") or 32`: a 0 or null falls back as an absent key does.
  auto beta = [&](std::string_view key, long long fallback) {
    const bool present = plan.scope.object != nullptr && plan.scope.object->contains(std::string(key));
    std::optional<Decimal> value = reading.optional_number(plan.scope, key);
    if (value && value->to_double() != 0.0) return *value;
    if (present)
      reading.defaulted(fmt::format("{}: {} (transformers replaces a 0 or null by {})", key, fallback, fallback));
    return Decimal(fallback);
  };
  out.beta_fast = beta("beta_fast", 32);
  out.beta_slow = beta("beta_slow", 1);
  // mscale and mscale_all_dim count only when both are set and nonzero (`if mscale and mscale_all_dim`).
  std::optional<Decimal> mscale = reading.optional_number(plan.scope, "mscale");
  std::optional<Decimal> mscale_all_dim = reading.optional_number(plan.scope, "mscale_all_dim");
  if (mscale && mscale_all_dim && mscale->to_double() != 0.0 && mscale_all_dim->to_double() != 0.0) {
    out.mscale = mscale;
    out.mscale_all_dim = mscale_all_dim;
  } else if (mscale || mscale_all_dim) {
    reading.defaulted("attention factor 0.1·ln(factor) + 1: transformers uses mscale and mscale_all_dim only when both are "
                      "set and nonzero");
  }
  out.attention = reading.optional_number(plan.scope, "attention_factor");
  // transformers reads truncate from the top-level rope_parameters (modeling_rope_utils.py).
  if (auto truncate = reading.optional_bool(plan.scope, "truncate")) out.truncate = *truncate;
}

void read_longrope(Reading& reading, const RopePlan& plan, const Scope& model, const HfConfigOptions& options,
                   FrequencyPlan& out) {
  out.kind = PlanKind::longrope;
  out.short_factors = reading.numbers(plan.scope, "short_factor");
  out.long_factors = reading.numbers(plan.scope, "long_factor");
  const bool model_names_length = reading.has(model, "original_max_position_embeddings");
  out.orig = original_length(reading, plan, model);
  out.attention = reading.optional_number(plan.scope, "attention_factor");
  std::optional<Decimal> factor = reading.optional_number(plan.scope, "factor");
  const bool from_lengths = !factor || (options.longrope_factor_from_lengths && model_names_length);
  if (!from_lengths) {
    out.factor = *factor;
    return;
  }
  out.factor = ratio(reading.count(model, "max_position_embeddings"), out.orig);
  reading.defaulted(fmt::format("factor: {} (max_position_embeddings / original_max_position_embeddings{})", out.factor.text(),
                                factor ? ", as transformers 4.x derives it; --longrope-factor-from-lengths" : ""));
}

// llama3 with low_freq_factor = high_freq_factor (Llama 4): the smoothing band is empty and its
// formula divides by zero, which transformers never evaluates outside the band. What remains
// divides θ_i by factor where 2π/θ_i > orig/low and keeps it elsewhere: custom(factors=[...]).
void llama3_without_smoothing(Spec& spec) {
  FrequencyPlan& plan = spec.scaling;
  // What Spec::parse would refuse in a llama3 plan must be refused before the plan becomes a list
  // of factors that no longer shows it: a factor or low_freq_factor of 0 or less (transformers
  // divides by low_freq_factor), and a head past a spec's d, built here pair by pair.
  if (plan.factor.to_double() <= 0.0)
    throw SpecError(fmt::format("config.json: llama3 factor {} must be positive", plan.factor.text()));
  if (plan.low.to_double() <= 0.0)
    throw SpecError(fmt::format("config.json: llama3 low_freq_factor {} must be positive", plan.low.text()));
  Spec head = spec;
  head.scaling = FrequencyPlan{};
  Spec::parse(head.canonical());
  const int pairs = spec.rotary_dims() / 2;
  const double threshold = static_cast<double>(plan.orig) / plan.low.to_double();
  std::vector<Decimal> factors;
  for (int i = 0; i < pairs; ++i) {
    const double wavelength = 2.0 * std::numbers::pi * std::pow(spec.base.to_double(), 2.0 * i / spec.rotary_dims());
    // float32 frequencies could fall on either side of a wavelength this close to the threshold.
    if (std::abs(wavelength / threshold - 1.0) < 1e-5)
      throw SpecError(fmt::format("config.json: llama3 with low_freq_factor = high_freq_factor puts pair {}'s wavelength "
                                  "{} within float32 rounding of the threshold {}; which side transformers takes is "
                                  "not decidable here",
                                  i, wavelength, threshold));
    factors.push_back(wavelength > threshold ? plan.factor : Decimal(1));
  }
  plan = FrequencyPlan{};
  plan.kind = PlanKind::custom;
  plan.factors = std::move(factors);
}

// Static NTK, base' = base·f^(d/(d-2)): dynamic(factor=f-1, orig=1, len=2) forms exactly that
// base, since (f-1)·2/1 - (f-2) = f. `what` names f in messages.
void static_ntk(Reading& reading, const Decimal& factor, std::string_view what, FrequencyPlan& out) {
  const double f = factor.to_double();
  if (f < 1.0) throw SpecError(fmt::format("config.json: {} {} must be at least 1", what, factor.text()));
  if (f == 1.0) return;
  const double reduced = f - 1.0;
  if (reduced + 1.0 != f)
    throw SpecError(fmt::format("config.json: {} {} - 1 is not exact in binary64", what, factor.text()));
  out.kind = PlanKind::dynamic;
  out.factor = Decimal::parse(fmt::format("{}", reduced));
  out.orig = 1;
  out.length = 2;
  reading.defaulted(fmt::format("{} {} written as dynamic(factor={},orig=1,len=2), which gives the same "
                                "base·{}^(d/(d-2))",
                                what, factor.text(), out.factor.text(), what.substr(what.rfind(' ') + 1)));
}

// _compute_proportional_rope_parameters (transformers 5.x): frequencies base^(-2i/head_dim) for
// the first int(partial_rotary_factor · head_dim // 2) pairs of the whole head and 0 for the
// rest, all divided by factor; rotate_half spans the whole head. The spec's rot stays the whole
// head (read_rotary does not apply the partial factor to it for this type).
void read_proportional(Reading& reading, const RopePlan& plan, const Scope& model, std::string_view model_type, Spec& spec) {
  FrequencyPlan& out = spec.scaling;
  std::optional<Decimal> factor = reading.optional_number(plan.scope, "factor");
  if (!factor) reading.defaulted("factor: 1 (proportional's default)");
  const int head = spec.rotary_dims();
  int pairs = head / 2;
  if (const PartialFactor partial = partial_rotary_factor(reading, plan, model, model_type); partial.value) {
    // Python's float product, then // 2 (exact on a double) and int().
    pairs = static_cast<int>(std::floor(partial.value->to_double() * head / 2.0));
    if (pairs == 0)
      throw SpecError(fmt::format("config.json: proportional rope with {} {} of head_dim {} rotates no pair "
                                  "(int({}·{} // 2) = 0): every frequency is 0",
                                  partial.source, partial.value->text(), head, partial.value->text(), head));
  }
  const bool scaled = factor && factor->to_double() != 1.0;
  if (pairs == head / 2) {
    // Every pair rotates: linear over the whole head, or no plan at all.
    if (scaled) {
      out.kind = PlanKind::linear;
      out.factor = *factor;
    }
    return;
  }
  out.kind = PlanKind::proportional;
  out.factor = factor.value_or(Decimal(1));
  out.pairs = pairs;
}

void read_plan(Reading& reading, const RopePlan& plan, std::string_view type, const Scope& model,
               std::string_view model_type, const HfConfigOptions& options, Spec& spec) {
  FrequencyPlan& out = spec.scaling;
  // mRoPE is a plan with mrope_section, whatever its type says (Qwen3-VL writes "default").
  if (reading.has(plan.scope, "mrope_section") || type == "mrope") {
    spec.family = Family::mrope;
    const json* sections = reading.find(plan.scope, "mrope_section");
    if (sections == nullptr || !sections->is_array())
      throw SpecError(fmt::format("config.json: \"{}mrope_section\" must be a list of integers", plan.scope.prefix));
    for (const json& section : *sections) {
      // A uint64 past int64's range reads as negative here, and is refused with the rest.
      if (!section.is_number_integer() || section.get<std::int64_t>() < 1)
        throw SpecError(fmt::format("config.json: mrope_section holds {}, not a positive integer", section.dump()));
      spec.sections.push_back(int_count(section.get<std::int64_t>(), plan.scope.prefix + "mrope_section"));
    }
    // Qwen3-VL interleaves t, h, w whatever the config says (modeling_qwen3_vl.py,
    // recomposition_frequencies); Qwen2-VL and Qwen2.5-VL keep blocks. Other models follow
    // their mrope_interleaved key.
    if (is_one_of(model_type, {"qwen3_vl", "qwen3_vl_text", "qwen3_vl_moe", "qwen3_vl_moe_text"})) {
      spec.section_mode = SectionMode::interleaved;
    } else if (!is_one_of(model_type, {"qwen2_vl", "qwen2_5_vl", "qwen2_vl_text", "qwen2_5_vl_text"})) {
      if (reading.optional_bool(plan.scope, "mrope_interleaved").value_or(false)) spec.section_mode = SectionMode::interleaved;
    }
    if (type == "mrope" || type == "default") return;
  }
  if (type == "default") return;
  if (type == "linear") {
    out.kind = PlanKind::linear;
    out.factor = reading.number(plan.scope, "factor");
  } else if (type == "dynamic" && is_one_of(model_type, {"hunyuan_v1_dense", "hunyuan_v1_moe", "hunyuan_vl"}) &&
             reading.optional_number(plan.scope, "alpha").value_or(Decimal(0)).to_double() != 0.0) {
    // HunYuan's "ntk_alpha": a dynamic plan with a nonzero alpha is the static base·alpha^(d/(d-2))
    // (modeling_hunyuan_v1_dense.py, compute_ntk_alpha_rope_parameters).
    static_ntk(reading, reading.number(plan.scope, "alpha"), "ntk_alpha alpha", out);
  } else if (type == "dynamic") {
    out.kind = PlanKind::dynamic;
    out.factor = reading.number(plan.scope, "factor");
    out.orig = reading.count(model, "max_position_embeddings");
  } else if (type == "ntk") {
    // Older transformers' static NTK (modeling_rope_utils.py at 0044e3b, _compute_ntk_parameters).
    static_ntk(reading, reading.number(plan.scope, "factor"), "ntk factor", out);
  } else if (type == "yarn") {
    read_yarn(reading, plan, model, out);
  } else if (type == "llama3") {
    out.kind = PlanKind::llama3;
    out.factor = reading.number(plan.scope, "factor");
    out.low = reading.number(plan.scope, "low_freq_factor");
    out.high = reading.number(plan.scope, "high_freq_factor");
    out.orig = original_length(reading, plan, model);
    if (out.low == out.high) llama3_without_smoothing(spec);
  } else if (type == "longrope") {
    read_longrope(reading, plan, model, options, out);
  } else if (type == "proportional") {
    read_proportional(reading, plan, model, model_type, spec);
  } else {
    throw SpecError(fmt::format("config.json: unknown rope type '{}'; expected default, linear, dynamic, ntk, yarn, "
                                "llama3, longrope (or su), proportional or mrope",
                                type));
  }
}

Spec read_rotary(Reading& reading, const Scope& model, std::string_view model_type, const HfConfigOptions& options,
                 std::vector<std::string>& layer_types) {
  Spec spec;
  spec.family = Family::rope;
  RotaryHead head = rotary_head_of(reading, model, model_type);
  spec.d = head.d;
  spec.layout = head.layout;
  spec.rot_at = head.at;
  if (model_type == "gptj") {
    // GPT-J: rotary_dim (default 64) in interleaved pairs, base fixed at 10000 by
    // create_sinusoidal_positions (modeling_gptj.py); rope_theta is not read.
    spec.layout = Layout::interleaved;
    if (const json* rotary = reading.find(model, "rotary_dim"); rotary != nullptr) {
      spec.rot = int_count(reading.count(model, "rotary_dim"), model.prefix + "rotary_dim");
    } else if (model.object->contains("rotary_dim")) {
      throw SpecError("config.json: GPT-J with rotary_dim null builds its table for the whole embedding width, not a "
                      "head, and cannot run; no spec describes it");
    } else {
      reading.defaulted("rotary_dim: 64 (GPTJConfig default)");
      spec.rot = 64;
    }
    if (spec.rot == spec.d) spec.rot = 0;
    return spec;
  }
  const RopePlan plan = select_plan(reading, model, model_type, options, layer_types);
  if (is_one_of(model_type, {"gemma4", "gemma4_text"}) && plan.layer_type == "full_attention") {
    // Gemma 4's full-attention layers have a head of their own: per_layer_config sets their
    // head_dim to global_head_dim, 512 by default (configuration_gemma4.py).
    const std::optional<std::int64_t> global = reading.optional_count(model, "global_head_dim");
    if (!global) reading.defaulted("global_head_dim: 512 (Gemma4TextConfig default), the head of full_attention layers");
    head.d = head.rotary_head = int_count(global.value_or(512), model.prefix + "global_head_dim");
    spec.d = head.d;
  }
  spec.base = rope_theta(reading, plan, model, model_type);
  const std::string type = rope_type_of(reading, plan, model_type);
  // Proportional rope takes its partial factor as a count of rotating pairs over the whole head.
  const int dims = type == "proportional"
                       ? head.rotary_head
                       : rotary_dims(partial_rotary_factor(reading, plan, model, model_type), head.rotary_head);
  // A spec's rot counts the rotated dims of the whole head; MLA heads always name it.
  spec.rot = (dims == spec.d) ? 0 : dims;
  read_plan(reading, plan, type, model, model_type, options, spec);
  return spec;
}

Spec read_model(Reading& reading, const Scope& model, std::string_view model_type, const HfConfigOptions& options,
                std::vector<std::string>& layer_types) {
  if (is_one_of(model_type, {"t5", "mt5", "umt5", "switch_transformers"}) ||
      reading.has(model, "relative_attention_num_buckets"))
    return read_t5(reading, model);
  if (model_type == "bloom") return alibi_spec(count_named(reading, model, {"n_head", "num_attention_heads"}));
  if (model_type == "mpt") return read_mpt(reading, model);
  // Falcon, and its configs from before it joined transformers (model_type RefinedWeb*).
  if (is_one_of(model_type, {"falcon", "RefinedWeb", "RefinedWebModel"})) {
    const std::optional<bool> alibi = reading.optional_bool(model, "alibi");
    if (!alibi) reading.defaulted("alibi: false (FalconConfig default), so rotary");
    if (alibi.value_or(false)) return alibi_spec(count_named(reading, model, {"num_attention_heads", "n_head"}));
  }
  if (positions_by_table(model_type))
    throw SpecError(fmt::format("config.json: model_type '{}' positions by a learned or sinusoidal table, which its "
                                "config does not describe; write a learned(...) or sinusoidal(...) spec",
                                model_type));
  return read_rotary(reading, model, model_type, options, layer_types);
}

// The roundings transformers performs in a model of `dtype` (HfConfigOptions::dtype): its
// rotary module forms inv_freq and inv_freq @ position_ids in float32 with autocast off, takes
// cos and sin in float32 and casts them to x's dtype; apply_rotary_pos_emb then multiplies and
// adds in that dtype.
void apply_transformers_recipe(Spec& spec, Dtype dtype) {
  if (spec.family == Family::t5)
    throw SpecError(fmt::format("dtype={}: a T5 model's buckets are integers, which no dtype changes; read it without dtype",
                                dtype_name(dtype)));
  spec.dtype = dtype;
  if (!is_rotary(spec.family)) return;
  // A float64 model still forms cos and sin in float32 and casts them up: a float32 rounding of
  // cos/sin that no class charges a float64 kernel.
  if (dtype == Dtype::fp64)
    throw SpecError("dtype=fp64: transformers forms cos and sin in float32 and casts them to float64, which no precision "
                    "class describes; read the config with fp32, bf16 or fp16, or without dtype");
  spec.precision = PrecisionClass::fp32_angle;
  spec.theta = ThetaRecipe::hf;
  const bool sixteen_bit = dtype == Dtype::bf16 || dtype == Dtype::fp16;
  spec.cache = sixteen_bit ? RoundsIn::storage : RoundsIn::compute;
  spec.math = sixteen_bit ? RoundsIn::storage : RoundsIn::compute;
}

}  // namespace

HfConfigExplanation explain_hf_config(std::string_view config_json_text, const HfConfigOptions& options) {
  const json config = json::parse(config_json_text, nullptr, /*allow_exceptions=*/false);
  if (config.is_discarded()) throw SpecError("config.json is not valid JSON");
  // Before anything walks it: the account of ignored keys and the messages that dump a value recurse.
  if (nests_deeper_than(config, kNestingLimit))
    throw SpecError(fmt::format("config.json: arrays and objects nest deeper than {}", kNestingLimit));
  if (!config.is_object()) throw SpecError(fmt::format("config.json must hold an object, found {}", config.dump()));

  Reading reading(config, config_json_text);
  Scope model{&config, ""};
  std::string model_type = reading.optional_string(model, "model_type").value_or("");
  // Multimodal configs (Qwen3-VL, Llama 4, Gemma 3) keep the language model's keys in text_config.
  const bool flat = config.contains("hidden_size") || config.contains("head_dim") || config.contains("n_embd") ||
                    config.contains("d_model") || config.contains("rope_theta");
  if (!flat) {
    if (const json* text = reading.find(model, "text_config"); text != nullptr && text->is_object()) {
      model = Scope{text, "text_config."};
      if (auto inner = reading.optional_string(model, "model_type")) model_type = *inner;
    }
  }
  HfConfigExplanation out;
  Spec spec = read_model(reading, model, model_type, options, out.layer_types);
  if (options.dtype) apply_transformers_recipe(spec, *options.dtype);
  // Round-trip through the text form so that every rule of Spec::parse (odd dims, list
  // lengths, positive factors) applies to configs as well.
  out.spec = Spec::parse(spec.canonical());
  out.used = reading.used();
  out.ignored = reading.ignored();
  out.defaults = reading.defaults();
  return out;
}

Spec Spec::from_hf_config(std::string_view config_json_text) { return explain_hf_config(config_json_text).spec; }

Spec Spec::from_hf_config(std::string_view config_json_text, const HfConfigOptions& options) {
  return explain_hf_config(config_json_text, options).spec;
}

}  // namespace peconform
