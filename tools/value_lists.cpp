#include "tools/value_lists.hpp"

#include <fmt/format.h>

#include "spec/spec_error.hpp"

namespace peconform {

std::vector<std::string> split_commas(std::string_view text) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (true) {
    const std::size_t comma = text.find(',', at);
    out.emplace_back(text.substr(at, comma == std::string_view::npos ? std::string_view::npos : comma - at));
    if (comma == std::string_view::npos) return out;
    at = comma + 1;
  }
}

std::vector<Point> parse_points(Family family, std::string_view text) {
  std::vector<Point> out;
  for (const std::string& element : split_commas(text)) out.push_back(parse_point(family, element));
  return out;
}

std::vector<Decimal> parse_decimals(std::string_view text, std::string_view option) {
  std::vector<Decimal> out;
  for (const std::string& element : split_commas(text)) {
    try {
      out.push_back(Decimal::parse(element));
    } catch (const SpecError& error) {
      throw SpecError(fmt::format("{}: {}", option, error.what()));
    }
  }
  return out;
}

}  // namespace peconform
