#include <gtest/gtest.h>

#include "spec/decimal.hpp"
#include "spec/spec_error.hpp"

namespace peconform {
namespace {

// A decimal is often a view into longer text (a spec's atom); the parse must stop at the view's
// end even where the text beyond it goes on as an exponent.
TEST(Decimal, ParsesAViewAndNothingPastItsEnd) {
  const std::string_view text = "2.5e9";
  EXPECT_EQ(Decimal::parse(text.substr(0, 3)).text(), "2.5");
  EXPECT_EQ(Decimal::parse(text).text(), "2500000000");
}

TEST(Decimal, NormalisesEqualValuesToOneText) {
  EXPECT_EQ(Decimal::parse("1e4").text(), "10000");
  EXPECT_EQ(Decimal::parse("10000.000").text(), "10000");
  EXPECT_EQ(Decimal::parse("+0.50").text(), "0.5");
  EXPECT_EQ(Decimal::parse("-0").text(), "0");
  EXPECT_EQ(Decimal::parse("0.000001").text(), "0.000001");
  EXPECT_EQ(Decimal::parse("1.5e-30").text(), "1.5e-30");
  EXPECT_EQ(Decimal::parse("12e30").text(), "1.2e31");
  EXPECT_EQ(Decimal::parse("5e5").text(), "500000");
}

TEST(Decimal, CanonicalTextIsAFixedPoint) {
  for (const char* text : {"0", "1", "-2.5", "0.1", "123456789012345678901234567890", "1e-300", "3.14159265358979323846264338327950288",
                           "1e100000", "-9.99e-100000", "0.0001e100000", "12345e-100000"}) {
    const std::string canonical = Decimal::parse(text).text();
    EXPECT_EQ(Decimal::parse(canonical).text(), canonical) << text;
  }
}

TEST(Decimal, KeepsDigitsBeyondDouble) {
  EXPECT_EQ(Decimal::parse("0.10000000000000000000001").text(), "0.10000000000000000000001");
  EXPECT_DOUBLE_EQ(Decimal::parse("0.10000000000000000000001").to_double(), 0.1);
}

TEST(Decimal, RejectsWhatIsNotAFiniteDecimal) {
  // "1e+-5": one sign in the exponent at most (found by fuzz/spec_text_fuzz.cpp's corpus).
  // Past the exponent bound as written, or once normalised: 77571e100000 would print as
  // 7.7571e100004, which did not parse back (found by fuzz/spec_text_fuzz.cpp).
  for (const char* text : {"", "inf", "nan", "-inf", "1e", "1.2.3", "0x10", "1,5", "e5", ".", "1e+-5", "1e-+5", "1e100001",
                           "77571e100000", "0.001e-99998"}) {
    try {
      Decimal::parse(text);
      ADD_FAILURE() << "accepted '" << text << "'";
    } catch (const SpecError& error) {
      EXPECT_NE(std::string(error.what()).find(std::string("'") + text + "'"), std::string::npos) << error.what();
    }
  }
}

// Issue 51. The exponent bound holds for the exponent as written, not only for the first
// digit's: 0.001e100002 is 1e99999 once normalised, inside the bound, yet written past it.
TEST(Decimal, AnExponentWrittenPastTheBoundIsRefusedWhateverItsDigits) {
  for (const char* text : {"0.001e100002", "100e-100001", "1e-100001"}) {
    try {
      Decimal::parse(text);
      ADD_FAILURE() << "accepted '" << text << "'";
    } catch (const SpecError& error) {
      EXPECT_NE(std::string(error.what()).find(std::string("'") + text + "' is not a finite decimal number"), std::string::npos)
          << error.what();
    }
  }
}

TEST(Decimal, ExponentMarkerMayBeUpperCase) {
  EXPECT_EQ(Decimal::parse("1E4").text(), "10000");
  EXPECT_EQ(Decimal::parse("2.5E-3").text(), "0.0025");
}

// Plain digits for an integer part of up to 21 digits, scientific beyond (as ECMAScript's
// Number::toString, whose threshold format_canonical follows).
TEST(Decimal, IntegersOfUpTo21DigitsArePlain) {
  EXPECT_EQ(Decimal::parse("1e20").text(), "100000000000000000000");
  EXPECT_EQ(Decimal::parse("123456789012345678901").text(), "123456789012345678901");
  EXPECT_EQ(Decimal::parse("1e21").text(), "1e21");
  EXPECT_EQ(Decimal::parse("1234567890123456789012").text(), "1.234567890123456789012e21");
}

}  // namespace
}  // namespace peconform
