#include "harness/case_description.hpp"

#include <algorithm>
#include <charconv>
#include <fmt/format.h>
#include <map>
#include <vector>

#include "spec/spec_error.hpp"

namespace peconform::harness {
namespace {

constexpr std::string_view kSeparator = " | ";

std::string_view position_mode_name(PositionMode mode) {
  switch (mode) {
    case PositionMode::run: return "run";
    case PositionMode::cache: return "cache";
    case PositionMode::scattered: return "scattered";
  }
  return "run";
}

std::string selection_text(const Selection& s) {
  std::vector<std::string> parts;
  if (s.batch) parts.push_back(fmt::format("b{}", *s.batch));
  if (s.token) parts.push_back(fmt::format("s{}", *s.token));
  if (s.head) parts.push_back(fmt::format("h{}", *s.head));
  if (s.operand) parts.push_back(*s.operand == 0 ? "q" : "k");
  std::string out;
  for (const std::string& part : parts) out += (out.empty() ? "" : ",") + part;
  return out;
}

std::int64_t integer(std::string_view key, std::string_view text, std::int64_t lo, std::int64_t hi) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || value < lo || value > hi)
    throw SpecError(fmt::format("case key '{}' has value '{}'; expected an integer in [{}, {}]", key, text, lo, hi));
  return value;
}

std::uint64_t seed_value(std::string_view text) {
  std::uint64_t value = 0;
  const bool hex = text.starts_with("0x");
  const std::string_view digits = hex ? text.substr(2) : text;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value, hex ? 16 : 10);
  if (digits.empty() || error != std::errc{} || end != digits.data() + digits.size())
    throw SpecError(fmt::format("case key 'seed' has value '{}'; expected a 64-bit integer (decimal or 0x hex)", text));
  return value;
}

template <class Enum>
Enum choice(std::string_view key, std::string_view text, const std::vector<std::pair<std::string_view, Enum>>& options) {
  for (const auto& [name, value] : options)
    if (name == text) return value;
  std::string expected;
  for (const auto& [name, value] : options) expected += (expected.empty() ? "" : ", ") + std::string(name);
  throw SpecError(fmt::format("case key '{}' has value '{}'; expected one of {}", key, text, expected));
}

Selection parse_selection(std::string_view text) {
  Selection s;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view part = text.substr(start, comma - start);
    if (part == "q" || part == "k") {
      s.operand = part == "q" ? 0 : 1;
    } else if (part.size() > 1 && part[0] == 'b') {
      s.batch = integer("select", part.substr(1), 0, 1 << 30);
    } else if (part.size() > 1 && part[0] == 's') {
      s.token = integer("select", part.substr(1), 0, std::int64_t{1} << 40);
    } else if (part.size() > 1 && part[0] == 'h') {
      s.head = static_cast<int>(integer("select", part.substr(1), 0, 1 << 20));
    } else {
      throw SpecError(fmt::format("case key 'select' has part '{}'; expected bN, sN, hN, q or k", part));
    }
    start = comma + 1;
  }
  return s;
}

// ALiBi, T5 and Shaw take a key range (keys, key_offset); the other families have none to print.
bool has_key_range(Family family) { return is_relative(family) && family != Family::xl; }

}  // namespace

int row_dims(const CaseDescription& description) {
  switch (description.spec.family) {
    case Family::alibi:
    case Family::t5:
    case Family::shaw: return 1;
    default: return description.spec.d;
  }
}

std::string CaseDescription::text() const {
  std::string out = fmt::format("{}{}batch={} seq={} heads={} kv_heads={}", spec.canonical(), kSeparator, batch, seq, heads,
                                kv_heads);
  if (has_key_range(spec.family)) out += fmt::format(" keys={} key_offset={}", keys, key_offset);
  out += fmt::format(" order={} pad={} place={} ids={} positions={} offset={} inputs={} seed={:#018x}", order, pad,
                     in_place ? "in" : "out", ids64 ? "int64" : "int32", position_mode_name(positions), offset,
                     inputs == InputKind::activations ? "activations" : "bit-patterns", seed);
  if (select != Selection{}) out += " select=" + selection_text(select);
  return out;
}

CaseDescription CaseDescription::parse(std::string_view text) {
  const std::size_t split = text.find(kSeparator);
  if (split == std::string_view::npos)
    throw SpecError(fmt::format("case '{}' has no '{}' between the spec and the call; expected 'SPEC | key=value ...'",
                                text, kSeparator));
  CaseDescription c;
  c.spec = Spec::parse(text.substr(0, split));
  std::map<std::string, std::string, std::less<>> given;
  std::string_view rest = text.substr(split + kSeparator.size());
  while (!rest.empty()) {
    const std::size_t space = std::min(rest.find(' '), rest.size());
    const std::string_view token = rest.substr(0, space);
    rest = rest.substr(std::min(space + 1, rest.size()));
    if (token.empty()) continue;
    const std::size_t equals = token.find('=');
    if (equals == std::string_view::npos || equals == 0)
      throw SpecError(fmt::format("case token '{}' is not key=value", token));
    if (!given.emplace(std::string(token.substr(0, equals)), std::string(token.substr(equals + 1))).second)
      throw SpecError(fmt::format("case key '{}' is given twice", token.substr(0, equals)));
  }
  constexpr std::int64_t kLargest = std::int64_t{1} << 40;
  for (const auto& [key, value] : given) {
    if (key == "batch") c.batch = integer(key, value, 1, 1 << 16);
    else if (key == "seq") c.seq = integer(key, value, 1, kLargest);
    else if (key == "heads") c.heads = static_cast<int>(integer(key, value, 1, 1 << 16));
    else if (key == "kv_heads") c.kv_heads = static_cast<int>(integer(key, value, 0, 1 << 16));
    else if (key == "keys") c.keys = integer(key, value, 1, kLargest);
    else if (key == "key_offset") c.key_offset = integer(key, value, -kLargest, kLargest);
    else if (key == "order") c.order = value;
    else if (key == "pad") c.pad = static_cast<int>(integer(key, value, 0, 1 << 10));
    else if (key == "place") c.in_place = choice<bool>(key, value, {{"in", true}, {"out", false}});
    else if (key == "ids") c.ids64 = choice<bool>(key, value, {{"int64", true}, {"int32", false}});
    else if (key == "positions")
      c.positions = choice<PositionMode>(
          key, value, {{"run", PositionMode::run}, {"cache", PositionMode::cache}, {"scattered", PositionMode::scattered}});
    else if (key == "offset") c.offset = integer(key, value, -kLargest, kLargest);
    else if (key == "inputs")
      c.inputs = choice<InputKind>(key, value,
                                   {{"activations", InputKind::activations}, {"bit-patterns", InputKind::bit_patterns}});
    else if (key == "seed") c.seed = seed_value(value);
    else if (key == "select") c.select = parse_selection(value);
    else
      throw SpecError(fmt::format("unknown case key '{}'; expected batch, seq, heads, kv_heads, keys, key_offset, order, "
                                  "pad, place, ids, positions, offset, inputs, seed or select",
                                  key));
  }
  c.validate();
  return c;
}

void CaseDescription::validate() const {
  const CaseDescription& c = *this;
  std::string sorted = c.order;
  std::sort(sorted.begin(), sorted.end());
  if (sorted != "bdhs")
    throw SpecError(fmt::format("case key 'order' has value '{}'; expected a permutation of the letters b, s, h, d", c.order));
  if (c.kv_heads > 0 && !is_rotary(c.spec.family))
    throw SpecError(fmt::format("case key 'kv_heads' is {} but {} has one operand", c.kv_heads, family_name(c.spec.family)));
  if (!has_key_range(c.spec.family) && (c.keys != 1 || c.key_offset != 0))
    throw SpecError(fmt::format("case key '{}' is {} but {} has no key range (alibi, t5 and shaw have)",
                                c.keys != 1 ? "keys" : "key_offset", c.keys != 1 ? c.keys : c.key_offset,
                                family_name(c.spec.family)));
  if (c.in_place && !is_rotary(c.spec.family))
    throw SpecError(fmt::format("case key 'place' is 'in' but {} writes a table, not into its input", family_name(c.spec.family)));
  const Selection& s = c.select;
  if ((s.batch && *s.batch >= c.batch) || (s.token && *s.token >= c.seq) ||
      (s.head && *s.head >= (s.operand == 1 ? c.kv_heads : (s.operand == 0 || c.kv_heads == 0 ? c.heads : std::min(c.heads, c.kv_heads)))) || (s.operand == 1 && c.kv_heads == 0))
    throw SpecError(fmt::format("case key 'select' has '{}', outside batch={} seq={} heads={} kv_heads={}",
                                selection_text(s), c.batch, c.seq, c.heads, c.kv_heads));
}

}  // namespace peconform::harness
