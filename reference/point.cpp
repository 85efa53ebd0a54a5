#include "reference/point.hpp"

#include <charconv>
#include <fmt/format.h>

#include "spec/spec_error.hpp"

namespace peconform {

int point_arity(Family family) {
  if (family == Family::mrope) return 3;
  if (family == Family::rope2d || is_relative(family)) return 2;
  return 1;
}

Point parse_point(Family family, std::string_view text) {
  const int arity = point_arity(family);
  const char* shape = arity == 3 ? "t:h:w" : family == Family::rope2d ? "x:y" : arity == 2 ? "i:j" : "an integer";
  const auto refuse = [&] {
    return SpecError(fmt::format("{} expects positions of the form {}, found '{}'", family_name(family), shape, text));
  };
  Point point;
  std::size_t at = 0;
  for (int k = 0; k < arity; ++k) {
    if (at > text.size()) throw refuse();  // fewer parts than coordinates: "5" for i:j
    std::size_t end = k + 1 < arity ? text.find(':', at) : text.size();
    if (end == std::string_view::npos) end = text.size();
    std::string_view part = text.substr(at, end - at);
    auto [stop, ec] = std::from_chars(part.data(), part.data() + part.size(), point.c[static_cast<std::size_t>(k)]);
    if (part.empty() || ec != std::errc() || stop != part.data() + part.size()) throw refuse();
    at = end + 1;
  }
  return point;
}

std::string format_point(Family family, const Point& point) {
  switch (point_arity(family)) {
    case 3: return fmt::format("{}:{}:{}", point.c[0], point.c[1], point.c[2]);
    case 2: return fmt::format("{}:{}", point.c[0], point.c[1]);
    default: return fmt::format("{}", point.c[0]);
  }
}

}  // namespace peconform
