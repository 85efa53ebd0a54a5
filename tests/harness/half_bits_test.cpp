// The drawing's binary16 rounding (harness/half_bits.hpp) gives the compiler's conversion from
// double bit for bit where rounding decides: at every tie between two neighbouring binary16
// values and one double step either side of it, at the overflow and underflow edges, on NaNs and
// infinities, and on a million doubles spread over every binade binary16 can reach.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "backends/cpu/storage.hpp"
#include "harness/counter_random.hpp"
#include "harness/half_bits.hpp"

namespace peconform::harness {
namespace {

std::uint16_t compiler_rounding(double value) {
  const cpu::Half half = value;
  std::uint16_t bits = 0;
  std::memcpy(&bits, &half, sizeof bits);
  return bits;
}

void expect_as_the_compiler(double value) {
  ASSERT_EQ(round_to_half_bits(value), compiler_rounding(value)) << std::hexfloat << value;
}

TEST(HalfBits, RoundsAsTheCompilerAtEveryTieAndBesideIt) {
  int ties = 0;
  for (std::uint32_t bits = 0; bits < 0x7c00u; ++bits) {
    // The midpoint between binary16 `bits` and the next one up (0x7bff's is 65520, the overflow edge).
    const double low = widen_half_bits(static_cast<std::uint16_t>(bits));
    const double high = bits + 1 == 0x7c00u ? 65536.0 : widen_half_bits(static_cast<std::uint16_t>(bits + 1));
    const double tie = (low + high) / 2;
    for (const double value : {low, tie, std::nextafter(tie, 0.0), std::nextafter(tie, INFINITY)}) {
      expect_as_the_compiler(value);
      expect_as_the_compiler(-value);
    }
    ++ties;
  }
  EXPECT_EQ(ties, 0x7c00);
}

TEST(HalfBits, RoundsAsTheCompilerAtTheEdgesAndOnSpecials) {
  const double quiet_nan = std::numeric_limits<double>::quiet_NaN();
  for (const double value : {0.0, 0x1p-25, std::nextafter(0x1p-25, 0.0), std::nextafter(0x1p-25, 1.0), 0x1p-24, 0x1.8p-25,
                             0x1p-14, std::nextafter(0x1p-14, 0.0), 65504.0, 65519.99, 65520.0, 1e300, std::numeric_limits<double>::infinity(),
                             std::numeric_limits<double>::denorm_min(), quiet_nan, std::bit_cast<double>(0x7ff0000000000001ull),
                             std::bit_cast<double>(0x7ff8abcdef012345ull), std::bit_cast<double>(0x7ff4000000000000ull)}) {
    expect_as_the_compiler(value);
    expect_as_the_compiler(-value);
  }
}

TEST(HalfBits, RoundsAsTheCompilerOnDoublesOfEveryReachableBinade) {
  const CounterKey key(20261125, 1);
  for (std::uint64_t i = 0; i < 1'000'000; ++i) {
    // Exponents 2^-30 to 2^17: below binary16's subnormals to past its overflow, every fraction.
    const std::uint64_t h = key(i);
    const std::uint64_t exponent = 1023 - 30 + below(h >> 52, 48);
    expect_as_the_compiler(std::bit_cast<double>((h & 0x8000000000000000ull) | (exponent << 52) | (h & ((std::uint64_t{1} << 52) - 1))));
  }
}

}  // namespace
}  // namespace peconform::harness
