// The fp16 storage type (backends/cpu/storage.hpp: _Float16, or __fp16 under clang 14) against
// MPFR's correctly rounded binary16. Kernels store float into it and the harness stores double
// into it (backends/kernel_call.cpp), so both conversions must round once: a conversion that went
// double -> float -> binary16 would round twice and miss values a hair off a binary16 midpoint.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <mpfr.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "backends/cpu/storage.hpp"

namespace peconform::cpu {
namespace {

// `value` rounded to nearest even in binary16, by MPFR. In MPFR's convention (value = m 2^e with
// m in [1/2, 1)) binary16's least subnormal 2^-24 has e = -23 and its overflow threshold 2^16
// has e = 17, so e runs from -23 to 16; mpfr_subnormalize then rounds to the subnormal grid.
double binary16_rounding(double value) {
  const mpfr_exp_t saved_emin = mpfr_get_emin(), saved_emax = mpfr_get_emax();
  mpfr_set_emin(-23);
  mpfr_set_emax(16);
  mpfr_t x;
  mpfr_init2(x, 11);
  int ternary = mpfr_set_d(x, value, MPFR_RNDN);
  ternary = mpfr_check_range(x, ternary, MPFR_RNDN);
  mpfr_subnormalize(x, ternary, MPFR_RNDN);
  const double rounded = mpfr_get_d(x, MPFR_RNDN);
  mpfr_clear(x);
  mpfr_set_emin(saved_emin);
  mpfr_set_emax(saved_emax);
  return rounded;
}

double stored_from_double(double value) { return static_cast<double>(static_cast<Half>(value)); }
double stored_from_float(float value) { return static_cast<double>(static_cast<Half>(value)); }

// The value of a binary16 bit pattern, decoded from its fields (no NaN patterns here).
double binary16_value(std::uint32_t bits) {
  const int exponent_field = static_cast<int>((bits >> 10) & 0x1f);
  const double significand = static_cast<double>(bits & 0x3ff);
  const double magnitude = exponent_field == 0    ? std::ldexp(significand, -24)
                           : exponent_field == 31 ? std::numeric_limits<double>::infinity()
                                                  : std::ldexp(1024 + significand, exponent_field - 25);
  return (bits & 0x8000) ? -magnitude : magnitude;
}

// Equal as bits, so that -0 differs from +0; any NaN equals any NaN.
testing::AssertionResult same_value(double actual, double expected, double input) {
  if (std::bit_cast<std::uint64_t>(actual) == std::bit_cast<std::uint64_t>(expected) ||
      (std::isnan(actual) && std::isnan(expected)))
    return testing::AssertionSuccess();
  return testing::AssertionFailure() << fmt::format("input {:a} ({:.17g}) stored as {:a} ({:.17g}); MPFR rounds it to {:a} ({:.17g})",
                                                     input, input, actual, actual, expected, expected);
}

// Each positive finite binary16 value's upper midpoint (to the next value, or to 2^16 past the
// largest), the midpoint itself a tie; plus the doubles and floats nearest it on either side,
// which round away from the tie; and points 2^-30 of the value off it, below float's precision.
struct Midpoints {
  std::vector<double> doubles;
  std::vector<float> floats;
};

Midpoints binary16_midpoints() {
  Midpoints points;
  for (std::uint32_t bits = 0; bits < 0x7c00; ++bits) {
    const double low = binary16_value(bits), high = bits == 0x7bff ? 65536.0 : binary16_value(bits + 1);
    const double middle = (low + high) / 2;  // exact: 12 significant bits
    const double off = std::ldexp(middle, -30);
    for (const double point : {middle, std::nextafter(middle, 0.0), std::nextafter(middle, 1e300), middle - off, middle + off}) {
      points.doubles.push_back(point);
      points.doubles.push_back(-point);
    }
    const float middle_f = static_cast<float>(middle);
    for (const float point : {middle_f, std::nextafter(middle_f, 0.0f), std::nextafter(middle_f, 1e30f)}) {
      points.floats.push_back(point);
      points.floats.push_back(-point);
    }
  }
  return points;
}

TEST(HalfStorage, TheMidpointsCatchARoundingThroughFloat) {
  // The test's own teeth: a conversion through float rounds 1 + 2^-11 + 2^-40 to the tie
  // 1 + 2^-11 and then to even, 1; rounded once it is 1 + 2^-10.
  const double trap = 1 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  EXPECT_EQ(binary16_rounding(trap), 1 + std::ldexp(1.0, -10));
  EXPECT_EQ(binary16_rounding(static_cast<float>(trap)), 1.0);
  int through_float_misses = 0;
  for (const double point : binary16_midpoints().doubles)
    through_float_misses += binary16_rounding(static_cast<float>(point)) != binary16_rounding(point);
  EXPECT_GT(through_float_misses, 10000);
}

TEST(HalfStorage, DoubleRoundsOnceToNearestEven) {
  int checked = 0;
  for (const double point : binary16_midpoints().doubles) {
    ASSERT_TRUE(same_value(stored_from_double(point), binary16_rounding(point), point));
    ++checked;
  }
  EXPECT_EQ(checked, 0x7c00 * 10);
}

TEST(HalfStorage, FloatRoundsOnceToNearestEven) {
  for (const float point : binary16_midpoints().floats)
    ASSERT_TRUE(same_value(stored_from_float(point), binary16_rounding(point), point));
}

TEST(HalfStorage, EdgesRoundLikeMpfr) {
  // Signed zeros, the extremes of both source formats, the binary16 overflow threshold and past
  // it (a causal ALiBi row stores -inf), and NaN.
  const double infinity = std::numeric_limits<double>::infinity();
  for (const double edge : {0.0, 0x1p-1074, 0x1p-149, 0x1p-30, 0x1p-25, 65504.0, 65519.99, 65520.0, 0x1p17, 1e6,
                            static_cast<double>(std::numeric_limits<float>::max()), std::numeric_limits<double>::max(),
                            infinity, std::numeric_limits<double>::quiet_NaN()}) {
    for (const double point : {edge, -edge}) {
      EXPECT_TRUE(same_value(stored_from_double(point), binary16_rounding(point), point));
      const float narrow = static_cast<float>(point);
      EXPECT_TRUE(same_value(stored_from_float(narrow), binary16_rounding(narrow), narrow));
    }
  }
}

TEST(HalfStorage, SpreadValuesRoundLikeMpfr) {
  // Log-uniform magnitudes over all of double's range, and again from below binary16's least
  // subnormal (2^-24) to past its overflow threshold, as doubles and as floats.
  std::mt19937_64 generator(20261123);
  std::uniform_real_distribution<double> any_exponent(-1074.0, 1024.0), near_exponent(-40.0, 20.0);
  std::uniform_int_distribution<int> sign(0, 1);
  for (int i = 0; i < 200000; ++i) {
    for (std::uniform_real_distribution<double>* exponent : {&any_exponent, &near_exponent}) {
      const double point = (sign(generator) ? -1 : 1) * std::exp2((*exponent)(generator));
      ASSERT_TRUE(same_value(stored_from_double(point), binary16_rounding(point), point));
      const float narrow = static_cast<float>(point);
      ASSERT_TRUE(same_value(stored_from_float(narrow), binary16_rounding(narrow), narrow));
    }
  }
}

TEST(HalfStorage, EveryBitPatternWidensToItsValue) {
  for (std::uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const double widened = static_cast<double>(std::bit_cast<Half>(static_cast<std::uint16_t>(bits)));
    const bool nan = (bits & 0x7c00) == 0x7c00 && (bits & 0x3ff) != 0;
    if (nan)
      EXPECT_TRUE(std::isnan(widened)) << std::hex << bits;
    else
      EXPECT_EQ(std::bit_cast<std::uint64_t>(widened), std::bit_cast<std::uint64_t>(binary16_value(bits))) << std::hex << bits;
  }
}

}  // namespace
}  // namespace peconform::cpu
