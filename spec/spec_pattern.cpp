#include "spec/spec_pattern.hpp"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "spec/spec_error.hpp"

namespace peconform {
namespace {

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

// `text` cut at every `separator` outside parentheses and brackets (a nested plan's commas,
// a list's commas stay inside their value).
std::vector<std::string_view> split_outside_brackets(std::string_view text, char separator, std::string_view pattern) {
  std::vector<std::string_view> parts;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t at = 0; at < text.size(); ++at) {
    const char c = text[at];
    if (c == '(' || c == '[') ++depth;
    if (c == ')' || c == ']') {
      if (--depth < 0) throw SpecError(fmt::format("pattern '{}' closes a bracket it never opened", pattern));
    }
    if (c == separator && depth == 0) {
      parts.push_back(text.substr(start, at - start));
      start = at + 1;
    }
  }
  if (depth != 0) throw SpecError(fmt::format("pattern '{}' leaves a bracket open", pattern));
  parts.push_back(text.substr(start));
  return parts;
}

const Argument* argument_named(const Call& call, std::string_view key) {
  const auto found = std::find_if(call.arguments.begin(), call.arguments.end(), [&](const Argument& a) { return a.key == key; });
  return found == call.arguments.end() ? nullptr : &*found;
}

Call with_argument(Call call, const Argument& argument) {
  const auto found = std::find_if(call.arguments.begin(), call.arguments.end(),
                                  [&](const Argument& a) { return a.key == argument.key; });
  if (found == call.arguments.end())
    call.arguments.push_back(argument);
  else
    *found = argument;
  return call;
}

// Whether `call` names the spec whose canonical text is `canonical`.
bool names_spec(const Call& call, const std::string& canonical) {
  try {
    return Spec::parse(format_call(call)).canonical() == canonical;
  } catch (const SpecError&) {
    return false;
  }
}

template <class Enum, class Named>
std::vector<Enum> allowed_values(const std::vector<Enum>& candidates, bool free, const std::vector<Argument>* choices,
                                 Enum default_value, Named named) {
  if (free) return candidates;
  std::vector<Enum> chosen;
  if (choices == nullptr) {
    chosen.push_back(default_value);
  } else {
    for (const Argument& choice : *choices) chosen.push_back(named(choice.atom, choice.key));
  }
  std::vector<Enum> out;
  for (const Enum value : candidates)
    if (std::find(chosen.begin(), chosen.end(), value) != chosen.end()) out.push_back(value);
  return out;
}

}  // namespace

SpecPattern SpecPattern::parse(std::string_view text) {
  SpecPattern pattern;
  pattern.text_ = std::string(trimmed(text));
  const std::string_view whole = pattern.text_;
  const std::size_t open = whole.find('(');
  if (open == std::string_view::npos || whole.back() != ')')
    throw SpecError(fmt::format("pattern '{}' is not of the form family(key=value,...)", whole));
  const std::string_view family = trimmed(whole.substr(0, open));
  try {
    pattern.family_ = family_named(family, "family");
  } catch (const SpecError&) {
    throw SpecError(fmt::format("pattern '{}' names an unknown family '{}'", whole, family));
  }
  const std::string_view inside = trimmed(whole.substr(open + 1, whole.size() - open - 2));
  if (inside == "*") {
    pattern.every_key_free_ = true;
    return pattern;
  }
  if (inside.empty()) return pattern;
  const std::vector<std::string_view> known = spec_keys(pattern.family_);
  for (const std::string_view part : split_outside_brackets(inside, ',', whole)) {
    const std::size_t equals = part.find('=');
    if (equals == std::string_view::npos)
      throw SpecError(fmt::format("pattern '{}': '{}' is not key=value", whole, trimmed(part)));
    Key key;
    key.name = std::string(trimmed(part.substr(0, equals)));
    if (std::find(known.begin(), known.end(), key.name) == known.end())
      throw SpecError(fmt::format("pattern '{}': unknown key '{}' for {}; expected one of {}", whole, key.name, family,
                                  fmt::join(known, ", ")));
    if (pattern.key(key.name) != nullptr) throw SpecError(fmt::format("pattern '{}' gives key '{}' twice", whole, key.name));
    const std::vector<std::string_view> values = split_outside_brackets(part.substr(equals + 1), '|', whole);
    for (const std::string_view raw : values) {
      const std::string_view value = trimmed(raw);
      if (value == "*") {
        if (values.size() != 1)
          throw SpecError(fmt::format("pattern '{}': key '{}' has '*' among choices; '*' stands alone", whole, key.name));
        key.free = true;
        continue;
      }
      try {
        key.choices.push_back(parse_call(fmt::format("{}({}={})", family, key.name, value)).arguments.at(0));
      } catch (const SpecError& error) {
        throw SpecError(fmt::format("pattern '{}': value '{}' of key '{}' is not a value: {}", whole, value, key.name, error.what()));
      }
    }
    pattern.keys_.push_back(std::move(key));
  }
  return pattern;
}

std::vector<SpecPattern> SpecPattern::parse_list(std::string_view text) {
  std::vector<SpecPattern> patterns;
  for (const std::string_view part : split_outside_brackets(text, ';', text))
    if (!trimmed(part).empty()) patterns.push_back(parse(part));
  if (patterns.empty()) throw SpecError(fmt::format("'{}' holds no spec pattern", text));
  return patterns;
}

const SpecPattern::Key* SpecPattern::key(std::string_view name) const {
  const auto found = std::find_if(keys_.begin(), keys_.end(), [&](const Key& k) { return k.name == name; });
  return found == keys_.end() ? nullptr : &*found;
}

bool SpecPattern::leaves_free(std::string_view name) const {
  const Key* named = key(name);
  return every_key_free_ || (named != nullptr && named->free);
}

std::vector<Dtype> SpecPattern::dtypes(const std::vector<Dtype>& candidates) const {
  const Key* named = key("dtype");
  try {
    return allowed_values(candidates, every_key_free_ || (named && named->free), named ? &named->choices : nullptr, Dtype::fp32,
                          dtype_named);
  } catch (const SpecError& error) {
    throw SpecError(fmt::format("pattern '{}': {}", text_, error.what()));
  }
}

std::vector<PrecisionClass> SpecPattern::precisions(const std::vector<PrecisionClass>& candidates) const {
  const Key* named = key("precision");
  try {
    return allowed_values(candidates, every_key_free_ || (named && named->free), named ? &named->choices : nullptr,
                          PrecisionClass::exact_angle, precision_named);
  } catch (const SpecError& error) {
    throw SpecError(fmt::format("pattern '{}': {}", text_, error.what()));
  }
}

Spec SpecPattern::narrow(const Spec& drawn, const std::function<std::uint64_t(std::uint64_t)>& below) const {
  if (drawn.family != family_)
    throw SpecError(fmt::format("pattern '{}' serves {}, not {}", text_, family_name(family_), family_name(drawn.family)));
  if (every_key_free_) return drawn;
  const Call held = parse_call(drawn.canonical());
  Call made{held.name, {}};
  for (const Key& k : keys_) {
    // The cell took the dtype and class from the pattern's choices already.
    if (k.free || k.name == "dtype" || k.name == "precision") {
      if (const Argument* kept = argument_named(held, k.name)) made.arguments.push_back(*kept);
      continue;
    }
    made.arguments.push_back(k.choices[k.choices.size() == 1 ? 0 : below(k.choices.size())]);
  }
  return Spec::parse(format_call(made));
}

bool SpecPattern::admits(const Spec& spec) const {
  if (spec.family != family_) return false;
  if (every_key_free_) return true;
  const std::string canonical = spec.canonical();
  const Call call = parse_call(canonical);
  // A key the pattern does not name must hold its default: dropping it changes nothing.
  for (const Argument& argument : call.arguments) {
    if (key(argument.key) != nullptr) continue;
    Call without = call;
    std::erase_if(without.arguments, [&](const Argument& a) { return a.key == argument.key; });
    if (!names_spec(without, canonical)) return false;
  }
  // A named key with choices must hold one of them.
  for (const Key& k : keys_) {
    if (k.free) continue;
    const bool one_of = std::any_of(k.choices.begin(), k.choices.end(),
                                    [&](const Argument& choice) { return names_spec(with_argument(call, choice), canonical); });
    if (!one_of) return false;
  }
  return true;
}

}  // namespace peconform
