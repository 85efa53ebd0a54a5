// Spec::parse on arbitrary text; a spec it accepts must round-trip through its canonical text
// and its JSON form (docs/specs.md).
#include <optional>

#include "fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace peconform;
  std::optional<Spec> spec;
  try {
    spec = Spec::parse(fuzz::as_text(data, size));
  } catch (const SpecError&) {
    return 0;
  }
  fuzz::check_spec_round_trips(*spec);
  return 0;
}
