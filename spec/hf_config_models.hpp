#pragma once
// What Hugging Face model classes assume when a config.json leaves a rope key out, and which
// models rotate differently from transformers' rotate_half. Values follow transformers 5.23.0
// (models/*/configuration_*.py and modeling_*.py), the current release when this was written.
#include <optional>
#include <string>
#include <string_view>

#include "spec/decimal.hpp"
#include "spec/spec.hpp"

namespace peconform {

struct ModelDefault {
  Decimal value;
  std::string source;  // e.g. "CohereConfig.default_theta, transformers 5.23.0"
};

// The model class's rope_theta when the config has none; `layer_type` picks the value of
// models that keep one per layer type (Gemma 3: full_attention 1e6, sliding_attention 1e4).
ModelDefault default_rope_theta(std::string_view model_type, std::string_view layer_type);
// The partial rotary factor a model class sets when the config has none (GPT-NeoX 0.25, Phi 0.5).
std::optional<ModelDefault> default_partial_rotary_factor(std::string_view model_type);
// Models whose rotate_half pairs (2i, 2i+1) (Cohere, GLM, Llama 4) rather than (i, i + d/2).
bool rotates_interleaved_pairs(std::string_view model_type);
// Model types that position by a learned or sinusoidal table, not by anything from_hf_config reads.
bool positions_by_table(std::string_view model_type);

}  // namespace peconform
