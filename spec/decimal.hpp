#pragma once
// A finite decimal number kept as its exact text, so that "0.1" in a spec means one tenth to
// the reference (which parses the text at its own precision), not the nearest double.
#include <string>
#include <string_view>

namespace peconform {

class Decimal {
 public:
  Decimal() : Decimal(0) {}
  explicit Decimal(long long integer);
  // Throws SpecError naming `text` when it is not a finite decimal (no inf, nan or hex).
  static Decimal parse(std::string_view text);

  // The canonical text: no redundant zeros, plain notation for moderate exponents and
  // scientific otherwise; parse(text()).text() == text().
  const std::string& text() const { return text_; }
  double to_double() const { return value_; }

  friend bool operator==(const Decimal& a, const Decimal& b) { return a.text_ == b.text_; }

 private:
  std::string text_;
  double value_ = 0.0;
};

}  // namespace peconform
