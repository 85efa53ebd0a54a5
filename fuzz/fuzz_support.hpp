#pragma once
// Shared by the libFuzzer targets (fuzz/*_fuzz.cpp). A parser may reject bad input only with
// peconform::SpecError; any other exception escapes LLVMFuzzerTestOneInput and aborts, which
// libFuzzer reports as a crash. A broken documented invariant aborts through require().
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "spec/spec.hpp"
#include "spec/spec_error.hpp"

namespace peconform::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Aborts with both texts when an invariant does not hold: a finding.
[[noreturn]] inline void broken(std::string_view invariant, std::string_view detail) {
  std::fprintf(stderr, "\nINVARIANT BROKEN: %.*s\n  %.*s\n", static_cast<int>(invariant.size()), invariant.data(),
               static_cast<int>(detail.size()), detail.data());
  std::abort();
}

inline void require(bool holds, std::string_view invariant, std::string_view detail) {
  if (!holds) broken(invariant, detail);
}

// Runs `check`; any exception from it (SpecError included: the input was valid, so what is
// derived from it must be too) is a broken invariant.
template <class Check>
void must_not_throw(std::string_view invariant, std::string_view detail, Check&& check) {
  try {
    check();
  } catch (const std::exception& error) {
    broken(invariant, std::string(detail) + " threw: " + error.what());
  }
}

// README "Specs": canonical text round-trips text -> Spec -> text unchanged and gives the same
// spec back; the JSON form round-trips too.
inline void check_spec_round_trips(const Spec& spec) {
  const std::string canonical = spec.canonical();
  must_not_throw("Spec::parse(s.canonical()) == s", canonical, [&] {
    const Spec again = Spec::parse(canonical);
    require(again.canonical() == canonical, "Spec::parse(s.canonical()).canonical() == s.canonical()",
            canonical + " became " + again.canonical());
    require(again == spec, "Spec::parse(s.canonical()) == s", canonical);
  });
  must_not_throw("Spec::from_json(s.to_json()) == s", canonical, [&] {
    const nlohmann::json json = spec.to_json();
    const Spec from_json = Spec::from_json(json);
    require(from_json == spec, "Spec::from_json(s.to_json()) == s", canonical + " as " + json.dump());
    // The JSON text a user would store, read back.
    const Spec from_text = Spec::from_json(nlohmann::json::parse(json.dump()));
    require(from_text == spec, "Spec::from_json(parse(s.to_json().dump())) == s", canonical + " as " + json.dump());
  });
}

}  // namespace peconform::fuzz
