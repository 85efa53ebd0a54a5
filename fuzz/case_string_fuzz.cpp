// CaseDescription::parse on any text, then validate(); a case it accepts must round-trip
// through its text (the report's case string is the reproducer).
#include <optional>

#include "fuzz/fuzz_support.hpp"
#include "harness/case_description.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace peconform;
  using harness::CaseDescription;
  std::optional<CaseDescription> description;
  try {
    description = CaseDescription::parse(fuzz::as_text(data, size));
    description->validate();
  } catch (const SpecError&) {
    return 0;
  }
  const std::string text = description->text();
  fuzz::must_not_throw("CaseDescription::parse(d.text()) == d", text, [&] {
    const CaseDescription again = CaseDescription::parse(text);
    fuzz::require(again == *description, "CaseDescription::parse(d.text()) == d", text + " reads back as " + again.text());
    fuzz::require(again.text() == text, "CaseDescription::parse(d.text()).text() == d.text()", text + " became " + again.text());
  });
  fuzz::check_spec_round_trips(description->spec);
  return 0;
}
