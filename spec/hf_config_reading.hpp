#pragma once
// Reading a config.json key by key while keeping account of it for --explain: which keys were
// read, which defaults filled a gap, and (from those) which keys were ignored. Numbers come back
// as Decimals with the digits the config wrote. Used by hf_config.cpp only.
#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "spec/decimal.hpp"
#include "spec/spec_error.hpp"

namespace peconform::hf_config_reading {

using nlohmann::json;

// A JSON object of the config and its dotted path ("" at the top, "rope_scaling." inside).
struct Scope {
  const json* object = nullptr;
  std::string prefix;
};

// The digits each floating-point number of the config was written with. nlohmann keeps only
// the double, and where two 17-digit forms round-trip to it (18.360000610351562 and ...563, a
// Phi-3 long_factor) its dump may pick the other one; a spec keeps the config's own digits.
class NumberTexts final : public nlohmann::json_sax<json> {
 public:
  explicit NumberTexts(std::string_view text) { json::sax_parse(text, this); }
  std::optional<std::string> text_of(double value) const {
    auto it = texts_.find(value);
    return it == texts_.end() ? std::nullopt : std::optional<std::string>(it->second);
  }

  bool number_float(double value, const std::string& text) override {
    texts_.emplace(value, text);
    return true;
  }
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(std::int64_t) override { return true; }
  bool number_unsigned(std::uint64_t) override { return true; }
  bool string(std::string&) override { return true; }
  bool binary(json::binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(std::string&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

 private:
  std::map<double, std::string> texts_;
};

// Reads keys and remembers which it read and which defaults it applied, for --explain.
class Reading {
 public:
  Reading(const json& root, std::string_view text) : root_(root), numbers_(text) {}

  Decimal decimal_of(const json& value) const {
    if (value.is_number_float())
      if (auto text = numbers_.text_of(value.get<double>())) return Decimal::parse(*text);
    return Decimal::parse(value.dump());
  }

  // The value at `key`, or nullptr when absent or null. A key that is present counts as read,
  // null included: transformers treats a null the same as an absent key.
  const json* find(const Scope& scope, std::string_view key) {
    if (scope.object == nullptr || !scope.object->is_object()) return nullptr;
    auto it = scope.object->find(std::string(key));
    if (it == scope.object->end()) return nullptr;
    used_.insert(scope.prefix + std::string(key));
    return it->is_null() ? nullptr : &*it;
  }
  bool has(const Scope& scope, std::string_view key) const {
    if (scope.object == nullptr || !scope.object->is_object()) return false;
    auto it = scope.object->find(std::string(key));
    return it != scope.object->end() && !it->is_null();
  }

  std::optional<Decimal> optional_number(const Scope& scope, std::string_view key) {
    const json* value = find(scope, key);
    if (value == nullptr) return std::nullopt;
    if (!value->is_number())
      throw SpecError(fmt::format("config.json: \"{}{}\" must be a number, found {}", scope.prefix, key, value->dump()));
    return decimal_of(*value);
  }
  Decimal number(const Scope& scope, std::string_view key) {
    if (auto value = optional_number(scope, key)) return *value;
    throw SpecError(fmt::format("config.json: \"{}{}\" must be a number, found nothing", scope.prefix, key));
  }
  std::optional<std::int64_t> optional_count(const Scope& scope, std::string_view key) {
    const json* value = find(scope, key);
    if (value == nullptr) return std::nullopt;
    if (!value->is_number_integer() || value->get<std::int64_t>() < 1)
      throw SpecError(fmt::format("config.json: \"{}{}\" must be a positive integer, found {}", scope.prefix, key, value->dump()));
    return value->get<std::int64_t>();
  }
  std::int64_t count(const Scope& scope, std::string_view key, std::string_view context = "") {
    if (auto value = optional_count(scope, key)) return *value;
    throw SpecError(fmt::format("config.json: {}\"{}{}\" must be a positive integer, found nothing", context, scope.prefix, key));
  }
  std::optional<bool> optional_bool(const Scope& scope, std::string_view key) {
    const json* value = find(scope, key);
    if (value == nullptr) return std::nullopt;
    if (!value->is_boolean())
      throw SpecError(fmt::format("config.json: \"{}{}\" must be true or false, found {}", scope.prefix, key, value->dump()));
    return value->get<bool>();
  }
  std::optional<std::string> optional_string(const Scope& scope, std::string_view key) {
    const json* value = find(scope, key);
    if (value == nullptr) return std::nullopt;
    if (!value->is_string())
      throw SpecError(fmt::format("config.json: \"{}{}\" must be a string, found {}", scope.prefix, key, value->dump()));
    return value->get<std::string>();
  }
  std::vector<Decimal> numbers(const Scope& scope, std::string_view key) {
    const json* value = find(scope, key);
    if (value == nullptr || !value->is_array())
      throw SpecError(fmt::format("config.json: \"{}{}\" must be a list of numbers", scope.prefix, key));
    std::vector<Decimal> out;
    for (const json& element : *value) {
      if (!element.is_number())
        throw SpecError(fmt::format("config.json: \"{}{}\" holds {}, not a number", scope.prefix, key, element.dump()));
      out.push_back(decimal_of(element));
    }
    return out;
  }

  void defaulted(std::string sentence) { defaults_.push_back(std::move(sentence)); }

  std::vector<std::string> used() const { return {used_.begin(), used_.end()}; }
  const std::vector<std::string>& defaults() const { return defaults_; }
  // Every key of the config that was not read; an object that was read into is listed by the
  // keys inside it that were not.
  std::vector<std::string> ignored() const {
    std::vector<std::string> out;
    collect_ignored(root_, "", out);
    return out;
  }

 private:
  void collect_ignored(const json& object, const std::string& prefix, std::vector<std::string>& out) const {
    for (const auto& [key, value] : object.items()) {
      const std::string path = prefix + key;
      const std::string inside = path + ".";
      const bool read_into = std::any_of(used_.begin(), used_.end(), [&](const std::string& used) {
        return used.compare(0, inside.size(), inside) == 0;
      });
      if (value.is_object() && read_into) {
        collect_ignored(value, inside, out);
      } else if (!used_.count(path)) {
        out.push_back(path);
      }
    }
  }

  const json& root_;
  NumberTexts numbers_;
  std::set<std::string> used_;
  std::vector<std::string> defaults_;
};

}  // namespace peconform::hf_config_reading
