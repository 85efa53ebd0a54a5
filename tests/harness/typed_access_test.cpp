// The verifier's own binary16 widening (harness/typed_access.hpp) gives, for every one of the
// 65,536 bit patterns, the float the compiler's conversion gives, bit for bit (NaNs quieted alike).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "harness/typed_access.hpp"

namespace peconform::harness {
namespace {

TEST(TypedAccess, HalfWidensAsTheCompilerWidensEveryPattern) {
  int nans = 0;
  for (std::uint32_t bits = 0; bits <= 0xffffu; ++bits) {
    const auto half_bits = static_cast<std::uint16_t>(bits);
    cpu::Half half;
    std::memcpy(&half, &half_bits, sizeof half);
    const float expected = cpu::load(half);
    const float widened = widen_half_bits(half_bits);
    nans += std::isnan(expected) ? 1 : 0;
    ASSERT_EQ(std::bit_cast<std::uint32_t>(widened), std::bit_cast<std::uint32_t>(expected)) << std::hex << bits;
    ASSERT_EQ(std::bit_cast<std::uint64_t>(Typed<cpu::Half>::load(&half, 0)), std::bit_cast<std::uint64_t>(static_cast<double>(expected)))
        << std::hex << bits;
  }
  EXPECT_EQ(nans, 2 * 1023);
}

}  // namespace
}  // namespace peconform::harness
