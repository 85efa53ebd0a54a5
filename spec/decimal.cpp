#include "spec/decimal.hpp"

#include <cctype>
#include <charconv>
#include <fmt/format.h>

#include "spec/spec_error.hpp"

namespace peconform {
namespace {

// Value = (negative ? -1 : 1) * digits * 10^exponent, digits without leading or trailing zeros.
struct Scientific {
  bool negative = false;
  std::string digits;
  long long exponent = 0;
};

// The largest exponent written, and the largest the canonical text may write (it writes the
// first digit's, d.ddde<N>, which parse must read back).
constexpr long long kLargestExponent = 100000;

Scientific split(std::string_view text) {
  auto fail = [&] { throw SpecError(fmt::format("'{}' is not a finite decimal number", text)); };
  Scientific out;
  std::size_t at = 0;
  if (at < text.size() && (text[at] == '+' || text[at] == '-')) out.negative = text[at++] == '-';
  std::string mantissa;
  long long fraction_digits = 0;
  bool seen_point = false;
  for (; at < text.size() && (std::isdigit(static_cast<unsigned char>(text[at])) || text[at] == '.'); ++at) {
    if (text[at] == '.') {
      if (seen_point) fail();
      seen_point = true;
    } else {
      mantissa += text[at];
      if (seen_point) ++fraction_digits;
    }
  }
  if (mantissa.empty()) fail();
  long long exponent = 0;
  if (at < text.size() && (text[at] == 'e' || text[at] == 'E')) {
    ++at;
    std::string_view rest = text.substr(at);
    // One sign at most: from_chars would read the "-5" of "1e+-5".
    if (!rest.empty() && rest.front() == '+') {
      rest.remove_prefix(1);
      if (!rest.empty() && rest.front() == '-') fail();
    }
    auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), exponent);
    if (ec != std::errc() || end != rest.data() + rest.size() || rest.empty()) fail();
    if (exponent > kLargestExponent || exponent < -kLargestExponent) fail();
    at = text.size();
  }
  if (at != text.size()) fail();
  std::size_t first = mantissa.find_first_not_of('0');
  if (first == std::string::npos) return Scientific{};  // zero, sign dropped: -0 is 0 here
  std::size_t last = mantissa.find_last_not_of('0');
  out.digits = mantissa.substr(first, last - first + 1);
  out.exponent = exponent - fraction_digits + static_cast<long long>(mantissa.size() - 1 - last);
  // 77571e100000 is 7.7571e100004: within the bound as written, past it in canonical form.
  const long long leading = out.exponent + static_cast<long long>(out.digits.size()) - 1;
  if (leading > kLargestExponent || leading < -kLargestExponent) fail();
  return out;
}

std::string format_canonical(const Scientific& s) {
  if (s.digits.empty()) return "0";
  const auto n = static_cast<long long>(s.digits.size());
  const long long point = n + s.exponent;  // digits before the decimal point
  std::string body;
  if (s.exponent >= 0 && point <= 21) {
    body = s.digits + std::string(static_cast<std::size_t>(s.exponent), '0');
  } else if (s.exponent < 0 && point > 0) {
    body = s.digits.substr(0, static_cast<std::size_t>(point)) + "." + s.digits.substr(static_cast<std::size_t>(point));
  } else if (s.exponent < 0 && point > -6) {
    body = "0." + std::string(static_cast<std::size_t>(-point), '0') + s.digits;
  } else {
    body = s.digits.substr(0, 1);
    if (n > 1) body += fmt::format(".{}", s.digits.substr(1));
    body += fmt::format("e{}", point - 1);
  }
  // Appended piece by piece rather than "-" + body: GCC 12 warns falsely (-Wrestrict) on
  // const char* + std::string at -O3.
  if (s.negative) body.insert(body.begin(), '-');
  return body;
}

}  // namespace

Decimal::Decimal(long long integer) : text_(fmt::format("{}", integer)), value_(static_cast<double>(integer)) {}

Decimal Decimal::parse(std::string_view text) {
  Decimal out;
  out.text_ = format_canonical(split(text));
  out.value_ = std::strtod(out.text_.c_str(), nullptr);
  return out;
}

}  // namespace peconform
