// Spec::from_json on any JSON document; a spec it accepts must round-trip (docs/specs.md).
#include <optional>

#include "fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace peconform;
  const nlohmann::json json = nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return 0;
  std::optional<Spec> spec;
  try {
    spec = Spec::from_json(json);
  } catch (const SpecError&) {
    return 0;
  }
  fuzz::check_spec_round_trips(*spec);
  return 0;
}
