// Spec::from_hf_config and explain_hf_config on any text, under each HfConfigOptions variant:
// no layer type and either longrope factor rule, and Gemma 3's two layer types. A spec read
// from a config must round-trip like any other (docs/specs.md).
#include <array>

#include "fuzz/fuzz_support.hpp"
#include "spec/hf_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace peconform;
  const std::string_view text = fuzz::as_text(data, size);
  try {
    fuzz::check_spec_round_trips(Spec::from_hf_config(text));
  } catch (const SpecError&) {
  }
  static const std::array<HfConfigOptions, 4> variants{{
      {"", true},
      {"full_attention", false},
      {"sliding_attention", true},
      {"no_such_layer", false},
  }};
  for (const HfConfigOptions& options : variants) {
    try {
      const HfConfigExplanation explanation = explain_hf_config(text, options);
      fuzz::check_spec_round_trips(explanation.spec);
    } catch (const SpecError&) {
    }
  }
  return 0;
}
