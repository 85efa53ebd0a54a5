#pragma once
// Reading a Hugging Face config.json into a Spec, with an account of how it was read: which keys
// were used, which were ignored and which defaults filled a gap (`peconform reference --explain`).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "spec/spec.hpp"

namespace peconform {

struct HfConfigOptions {
  // Configs with one rope plan per layer type (Gemma 3's full_attention and sliding_attention)
  // give one Spec per type; this names the one wanted. Empty: the config must have one plan.
  std::string layer_type;
  // LongRoPE's factor: transformers 5.x takes rope_scaling's explicit `factor` (the default
  // here); 4.x derived it as max_position_embeddings / original_max_position_embeddings
  // whenever the model names an original length. True follows 4.x.
  bool longrope_factor_from_lengths = false;
  // The dtype the model runs in (its torch_dtype). Set, a rotary model's spec is transformers' own
  // recipe in it: precision=fp32-angle,theta=hf (inv_freq and the angle in float32), and for
  // bf16 and fp16 also cache=storage,math=storage (cos.to(x.dtype), the rotation in x's dtype);
  // fp64 is refused (cos and sin in float32, cast up: no class); an ALiBi model's spec takes the
  // dtype alone. Unset: dtype fp32 and exact-angle, the mathematics the config describes.
  std::optional<Dtype> dtype = std::nullopt;
};

struct HfConfigExplanation {
  Spec spec;
  std::vector<std::string> used;      // key paths, e.g. "rope_scaling.factor"
  std::vector<std::string> ignored;   // key paths present in the config but not read
  std::vector<std::string> defaults;  // one sentence per default applied, naming its source
  std::vector<std::string> layer_types;  // the plans a per-layer config offers; empty otherwise
};

// Both throw SpecError naming the key and why, for configs that are malformed and for configs
// whose positional encoding no Spec expresses (the message says why).
HfConfigExplanation explain_hf_config(std::string_view config_json_text, const HfConfigOptions& options = {});

}  // namespace peconform
