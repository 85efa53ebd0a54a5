#pragma once
// The generic text form `name(key=value,...)` that specs and frequency plans share. A value is
// an atom (`4`, `half`, `1e-4`), a list (`[16,24,24]`) or a nested call (`yarn(factor=4)`).
// This layer knows nothing of positional encodings; spec.cpp gives the keys their meaning.
#include <cstddef>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace peconform {

struct Call;

struct Argument {
  enum class Kind { atom, list, call };
  std::string key;
  Kind kind = Kind::atom;
  std::string atom;
  std::vector<std::string> list;
  std::vector<Call> call;  // exactly one element when kind == call; a vector allows the recursion
};

struct Call {
  std::string name;
  std::vector<Argument> arguments;
};

// How deep calls (text) and arrays and objects (JSON) may nest: a spec needs 2 (a plan inside
// it), a Hugging Face config 4. Deeper input is refused before anything walks it recursively,
// so that a document nested 100,000 deep is an error, not a stack overflow.
constexpr std::size_t kNestingLimit = 64;

// Throws SpecError naming the column, the offending token and what was expected there.
Call parse_call(std::string_view text);
std::string format_call(const Call& call);

// JSON form: {"<name_key>": name, key: value, ...}. Atoms become JSON numbers or booleans when
// that is lossless and strings otherwise; lists become arrays; nested calls become objects
// whose name sits under "type".
nlohmann::json call_to_json(const Call& call, std::string_view name_key);
Call call_from_json(const nlohmann::json& json, std::string_view name_key);

// Whether arrays and objects in `json` nest deeper than `limit` (a number is 0 deep, [1] 1),
// found without recursion.
bool nests_deeper_than(const nlohmann::json& json, std::size_t limit);

}  // namespace peconform
