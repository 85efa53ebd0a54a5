#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <locale>

#include "reports/number_text.hpp"

namespace peconform {
namespace {

TEST(NumberText, GroupsThousandsWithCommas) {
  EXPECT_EQ(grouped(0), "0");
  EXPECT_EQ(grouped(999), "999");
  EXPECT_EQ(grouped(1000), "1,000");
  EXPECT_EQ(grouped(485632469), "485,632,469");
  EXPECT_EQ(grouped(std::numeric_limits<std::uint64_t>::max()), "18,446,744,073,709,551,615");
}

// A process whose global locale groups otherwise (de_DE writes 1.000) still writes 1,000.
TEST(NumberText, GroupingIgnoresTheGlobalLocale) {
  struct Dots : std::numpunct<char> {
    char do_thousands_sep() const override { return '.'; }
    std::string do_grouping() const override { return "\2"; }
  };
  const std::locale before = std::locale::global(std::locale(std::locale::classic(), new Dots));
  const std::string text = grouped(1234567);
  std::locale::global(before);
  EXPECT_EQ(text, "1,234,567");
}

TEST(NumberText, RatiosHaveAtMostThreeSignificantDigits) {
  EXPECT_EQ(significant(0.99609375), "0.996");
  EXPECT_EQ(significant(0.5), "0.5");
  EXPECT_EQ(significant(1), "1");
  EXPECT_EQ(significant(3.5), "3.5");
  EXPECT_EQ(significant(12.5), "12.5");
  EXPECT_EQ(significant(123.4), "123");
  EXPECT_EQ(significant(0.0952381), "0.0952");
  EXPECT_EQ(significant(0.00123449), "0.00123");
  EXPECT_EQ(significant(-0.5), "-0.5");
  EXPECT_EQ(significant(0), "0");
}

TEST(NumberText, RatiosOutsideAThousandfoldUseAPowerOfTen) {
  EXPECT_EQ(significant(797000), "7.97e5");
  EXPECT_EQ(significant(2.9e14), "2.9e14");
  EXPECT_EQ(significant(4.48e9), "4.48e9");
  EXPECT_EQ(significant(0.000123), "1.23e-4");
  EXPECT_EQ(significant(1e-300), "1e-300");
}

// Rounding to three digits can carry into the next power of ten: the form follows the rounded value.
TEST(NumberText, RoundingThatCarriesChangesTheForm) {
  EXPECT_EQ(significant(999.6), "1e3");
  EXPECT_EQ(significant(999.4), "999");
  EXPECT_EQ(significant(0.00099951), "0.001");
  EXPECT_EQ(significant(0.00099949), "9.99e-4");
}

TEST(NumberText, NonFiniteRatiosAreWords) {
  EXPECT_EQ(significant(INFINITY), "inf");
  EXPECT_EQ(significant(-INFINITY), "-inf");
  EXPECT_EQ(significant(NAN), "nan");
}

TEST(NumberText, ShortCountsKeepTwoDigitsFromTenThousand) {
  EXPECT_EQ(short_count(0), "0");
  EXPECT_EQ(short_count(9999), "9,999");
  EXPECT_EQ(short_count(10000), "1.0e4");
  EXPECT_EQ(short_count(99999), "1.0e5");
  EXPECT_EQ(short_count(5317024), "5.3e6");
  EXPECT_EQ(short_count(485632469), "4.9e8");
}

}  // namespace
}  // namespace peconform
