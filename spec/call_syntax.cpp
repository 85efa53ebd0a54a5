#include "spec/call_syntax.hpp"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "spec/spec_error.hpp"

namespace peconform {
namespace {

bool is_word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-' || c == '+';
}

// The length of the well-formed UTF-8 sequence starting at `at` (1 for ASCII), or 0 where the
// bytes there are not one (RFC 3629: no overlong forms, surrogates or code points past U+10FFFF).
std::size_t utf8_length(std::string_view text, std::size_t at) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[at + k]); };
  const unsigned char lead = byte(0);
  if (lead < 0x80) return 1;
  const std::size_t length = lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : lead >= 0xf0 && lead <= 0xf4 ? 4 : 0;
  if (length == 0 || at + length > text.size()) return 0;
  for (std::size_t k = 1; k < length; ++k)
    if ((byte(k) & 0xc0) != 0x80) return 0;
  const unsigned char second = byte(1);
  if ((lead == 0xe0 && second < 0xa0) || (lead == 0xed && second > 0x9f) || (lead == 0xf0 && second < 0x90) ||
      (lead == 0xf4 && second > 0x8f))
    return 0;
  return length;
}

// `text` as it can be printed: whole UTF-8 characters as they are, any other byte as \xNN, so
// that an error message stays valid UTF-8 whatever the user typed.
std::string printable(std::string_view text) {
  std::string out;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t length = utf8_length(text, at);
    if (length == 0) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(text[at]));
      ++at;
    } else {
      out += text.substr(at, length);
      at += length;
    }
  }
  return out;
}

// The 1-based column of byte `at`, counted in characters: each well-formed UTF-8 sequence is
// one, each stray byte one.
std::size_t column_of(std::string_view text, std::size_t at) {
  std::size_t column = 1;
  for (std::size_t k = 0; k < at; ++column) k += std::max<std::size_t>(utf8_length(text, k), 1);
  return column;
}

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Call parse_all() {
    Call call = parse_call_body(read_word("a family name"));
    skip_space();
    if (at_ < text_.size()) fail("the end of the spec");
    return call;
  }

 private:
  std::string_view text_;
  std::size_t at_ = 0;
  std::size_t depth_ = 0;  // calls open at the cursor

  [[noreturn]] void fail(std::string_view expected) {
    skip_space();
    std::string found = at_ < text_.size() ? fmt::format("'{}'", printable(token_here())) : "the end of the text";
    throw SpecError(fmt::format("spec error at column {} of \"{}\": expected {}, found {}", column_of(text_, at_),
                                printable(text_), expected, found));
  }

  // The word at the cursor, or else the one character there (a whole UTF-8 sequence).
  std::string_view token_here() const {
    std::size_t end = at_;
    while (end < text_.size() && is_word_char(text_[end])) ++end;
    return text_.substr(at_, end > at_ ? end - at_ : std::max<std::size_t>(utf8_length(text_, at_), 1));
  }

  void skip_space() {
    while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_]))) ++at_;
  }

  bool accept(char c) {
    skip_space();
    if (at_ < text_.size() && text_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }

  void expect(char c, std::string_view what) {
    if (!accept(c)) fail(fmt::format("'{}' {}", c, what));
  }

  std::string read_word(std::string_view what) {
    skip_space();
    std::size_t start = at_;
    while (at_ < text_.size() && is_word_char(text_[at_])) ++at_;
    if (at_ == start) fail(what);
    return std::string(text_.substr(start, at_ - start));
  }

  Call parse_call_body(std::string name) {
    Call call{std::move(name), {}};
    expect('(', fmt::format("after '{}'", call.name));
    if (++depth_ > kNestingLimit) fail(fmt::format("at most {} nested calls", kNestingLimit));
    if (accept(')')) {
      --depth_;
      return call;
    }
    do {
      Argument argument;
      argument.key = read_word("a key");
      expect('=', fmt::format("after key '{}'", argument.key));
      parse_value(argument);
      call.arguments.push_back(std::move(argument));
    } while (accept(','));
    expect(')', fmt::format("or ',' to close '{}('", call.name));
    --depth_;
    return call;
  }

  void parse_value(Argument& argument) {
    if (accept('[')) {
      argument.kind = Argument::Kind::list;
      if (accept(']')) return;
      do argument.list.push_back(read_word(fmt::format("a list element for '{}'", argument.key)));
      while (accept(','));
      expect(']', fmt::format("or ',' in the list for '{}'", argument.key));
      return;
    }
    std::string word = read_word(fmt::format("a value for '{}'", argument.key));
    skip_space();
    if (at_ < text_.size() && text_[at_] == '(') {
      argument.kind = Argument::Kind::call;
      argument.call.push_back(parse_call_body(std::move(word)));
    } else {
      argument.atom = std::move(word);
    }
  }
};

nlohmann::json atom_to_json(const std::string& atom) {
  if (atom == "true") return true;
  if (atom == "false") return false;
  nlohmann::json number = nlohmann::json::parse(atom, nullptr, /*allow_exceptions=*/false);
  if (number.is_number() && number.dump() == atom) return number;
  return atom;
}

std::string atom_from_json(const nlohmann::json& value, std::string_view key) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
  if (value.is_number()) return value.dump();
  throw SpecError(fmt::format("spec JSON: key '{}' has {} where a string, number or boolean was expected",
                              key, value.dump()));
}

// call_from_json, on a document no deeper than kNestingLimit.
Call call_from_nested_json(const nlohmann::json& json, std::string_view name_key) {
  if (!json.is_object()) throw SpecError(fmt::format("spec JSON: expected an object, found {}", json.dump()));
  auto name = json.find(std::string(name_key));
  if (name == json.end() || !name->is_string())
    throw SpecError(fmt::format("spec JSON: expected a string under \"{}\" in {}", name_key, json.dump()));
  Call call{name->get<std::string>(), {}};
  for (const auto& [key, value] : json.items()) {
    if (key == name_key) continue;
    Argument argument;
    argument.key = key;
    if (value.is_array()) {
      argument.kind = Argument::Kind::list;
      for (const nlohmann::json& element : value) argument.list.push_back(atom_from_json(element, key));
    } else if (value.is_object()) {
      argument.kind = Argument::Kind::call;
      argument.call.push_back(call_from_nested_json(value, "type"));
    } else {
      argument.atom = atom_from_json(value, key);
    }
    call.arguments.push_back(std::move(argument));
  }
  return call;
}

}  // namespace

Call parse_call(std::string_view text) { return Parser(text).parse_all(); }

std::string format_call(const Call& call) {
  std::string out = call.name + "(";
  for (std::size_t k = 0; k < call.arguments.size(); ++k) {
    const Argument& argument = call.arguments[k];
    // Appended piece by piece, never as "literal" + std::string: GCC 12 warns falsely
    // (-Wrestrict) on that concatenation at -O3.
    if (k) out += ',';
    out += argument.key;
    out += '=';
    switch (argument.kind) {
      case Argument::Kind::atom: out += argument.atom; break;
      case Argument::Kind::list: out += fmt::format("[{}]", fmt::join(argument.list, ",")); break;
      case Argument::Kind::call: out += format_call(argument.call.front()); break;
    }
  }
  return out + ")";
}

nlohmann::json call_to_json(const Call& call, std::string_view name_key) {
  nlohmann::json out = nlohmann::json::object();
  out[std::string(name_key)] = call.name;
  for (const Argument& argument : call.arguments) {
    nlohmann::json& slot = out[argument.key];
    switch (argument.kind) {
      case Argument::Kind::atom: slot = atom_to_json(argument.atom); break;
      case Argument::Kind::list:
        slot = nlohmann::json::array();
        for (const std::string& element : argument.list) slot.push_back(atom_to_json(element));
        break;
      case Argument::Kind::call: slot = call_to_json(argument.call.front(), "type"); break;
    }
  }
  return out;
}

// Checked first, as call_from_nested_json recurses and its messages dump what they found.
Call call_from_json(const nlohmann::json& json, std::string_view name_key) {
  if (nests_deeper_than(json, kNestingLimit))
    throw SpecError(fmt::format("spec JSON: arrays and objects nest deeper than {}", kNestingLimit));
  return call_from_nested_json(json, name_key);
}

bool nests_deeper_than(const nlohmann::json& json, std::size_t limit) {
  std::vector<std::pair<const nlohmann::json*, std::size_t>> pending{{&json, 0}};
  while (!pending.empty()) {
    const auto [value, depth] = pending.back();
    pending.pop_back();
    if (!value->is_structured()) continue;
    if (depth + 1 > limit) return true;
    for (const nlohmann::json& element : *value) pending.emplace_back(&element, depth + 1);
  }
  return false;
}

}  // namespace peconform
