#include "reports/number_text.hpp"

#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <string_view>

namespace peconform {
namespace {

// "4.90e+08" as fmt's {:e} writes it, to mantissa and exponent.
struct Scientific {
  std::string mantissa;
  int exponent = 0;
};

Scientific scientific(double value, int decimals) {
  const std::string text = fmt::format("{:.{}e}", value, decimals);
  const std::size_t e = text.find('e');
  Scientific s{text.substr(0, e)};
  std::string_view digits = std::string_view(text).substr(e + 1);
  if (digits.front() == '+') digits.remove_prefix(1);
  std::from_chars(digits.data(), digits.data() + digits.size(), s.exponent);
  return s;
}

std::string without_trailing_zeros(std::string number) {
  if (number.find('.') == std::string::npos) return number;
  number.erase(number.find_last_not_of('0') + 1);
  if (number.back() == '.') number.pop_back();
  return number;
}

}  // namespace

// fmt::group_digits groups by three with commas and no locale: a report reads the same on every
// machine, and the Python module, which links libstdc++ statically, never looks up a facet whose
// id differs from the one libfmt's shared copy knows (std::bad_cast).
std::string grouped(std::uint64_t count) { return fmt::format("{}", fmt::group_digits(count)); }

std::string significant(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  if (value == 0) return "0";
  // The exponent after rounding to three digits: 999.6 rounds to 1.00e3, which leaves the decimals.
  const Scientific rounded = scientific(value, 2);
  if (rounded.exponent >= -3 && rounded.exponent < 3)
    return without_trailing_zeros(fmt::format("{:.{}f}", value, 2 - rounded.exponent));
  return fmt::format("{}e{}", without_trailing_zeros(rounded.mantissa), rounded.exponent);
}

std::string short_count(std::uint64_t count) {
  if (count < 10'000) return grouped(count);
  const Scientific rounded = scientific(static_cast<double>(count), 1);
  return fmt::format("{}e{}", rounded.mantissa, rounded.exponent);
}

}  // namespace peconform
