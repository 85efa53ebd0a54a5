#pragma once
// Where a scheme is evaluated: a position (rope, xpos, sinusoidal, learned), a (t, h, w)
// position (mrope), an (x, y) position (rope2d), or a (query i, key j) pair (relative families).
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "spec/spec.hpp"

namespace peconform {

struct Point {
  std::array<std::int64_t, 3> c{};
  friend bool operator==(const Point&, const Point&) = default;
};

// How many coordinates a family's point has.
int point_arity(Family family);
// Parses "p", "t:h:w", "x:y" or "i:j" as the family needs; throws SpecError naming the text.
Point parse_point(Family family, std::string_view text);
std::string format_point(Family family, const Point& point);

}  // namespace peconform
