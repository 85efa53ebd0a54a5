#pragma once
// Comma-separated option values (--positions 0,1,2 --input 1,0.5): split without losing the
// offending element, so that errors can name it.
#include <string>
#include <string_view>
#include <vector>

#include "reference/point.hpp"
#include "spec/decimal.hpp"

namespace peconform {

std::vector<std::string> split_commas(std::string_view text);
// Throws SpecError naming the element that is not a point of the family / not a decimal.
std::vector<Point> parse_points(Family family, std::string_view text);
std::vector<Decimal> parse_decimals(std::string_view text, std::string_view option);

}  // namespace peconform
