// Which decimals float32 holds exactly (precision/float32_representable.cpp), each end of its
// normal range included, the decimals written out by Python's exact Decimal arithmetic: the
// recipes charge a base's or factor's cast only where the cast rounds (issue 38: a mutant that
// refused float32's largest value itself survived, as no test came near either end).
#include <gtest/gtest.h>

#include "precision/float32_representable.hpp"
#include "spec/decimal.hpp"

namespace peconform {
namespace {

bool holds(const char* text) { return representable_in_float32(Decimal::parse(text)); }

TEST(Float32Representable, ExactlyTheDecimalsOfFloat32sNormalRangeAndZero) {
  EXPECT_TRUE(holds("0"));
  EXPECT_TRUE(holds("1.5"));
  EXPECT_TRUE(holds("10000"));
  EXPECT_FALSE(holds("1.1"));
  EXPECT_FALSE(holds("16777217"));  // 2^24 + 1: one bit past float32's 24
  // (2 - 2^-23) 2^127, float32's largest, is held; 2^128, exact in 24 bits, lies past it.
  EXPECT_TRUE(holds("340282346638528859811704183484516925440"));
  EXPECT_FALSE(holds("340282366920938463463374607431768211456"));
  // 2^-126, the smallest normal, is held; 2^-149, a subnormal, is not in the normal range.
  EXPECT_TRUE(holds("1.1754943508222875079687365372222456778186655567720875215087517062784172594547271728515625e-38"));
  EXPECT_FALSE(holds("1.40129846432481707092372958328991613128026194187651577175706828388979108268586060148663818836212158203125e-45"));
}

}  // namespace
}  // namespace peconform
