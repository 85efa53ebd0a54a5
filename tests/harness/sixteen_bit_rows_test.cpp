// The vectorised 16-bit rows (harness/sixteen_bit_rows.hpp) give, on every Highway target this
// CPU runs, the bits of the per-element conversions: binary16 rounding (half_bits.hpp) at every
// tie between neighbouring binary16 values and one double step either side, at the overflow and
// underflow edges, on NaNs with payloads in any bits, on a million doubles over every reachable
// binade, and in rows of every length up to 70 (every partial last vector); binary16 and bfloat16
// widening on all 65,536 bit patterns of each.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include "backends/cpu/storage.hpp"
#include "harness/counter_random.hpp"
#include "harness/half_bits.hpp"
#include "harness/sixteen_bit_rows.hpp"
#include "support/highway_targets.hpp"

namespace peconform::harness {
namespace {

std::vector<double> doubles_where_rounding_decides() {
  std::vector<double> out;
  for (std::uint32_t bits = 0; bits < 0x7c00u; ++bits) {
    const double low = widen_half_bits(static_cast<std::uint16_t>(bits));
    const double high = bits + 1 == 0x7c00u ? 65536.0 : widen_half_bits(static_cast<std::uint16_t>(bits + 1));
    const double tie = (low + high) / 2;
    for (const double value : {low, tie, std::nextafter(tie, 0.0), std::nextafter(tie, INFINITY)}) {
      out.push_back(value);
      out.push_back(-value);
    }
  }
  for (const double value : {0x1p-25, std::nextafter(0x1p-25, 0.0), 0x1p-14, std::nextafter(0x1p-14, 0.0), 65519.99, 65520.0,
                             1e300, 0x1p-130, 0x1.fffffep-127, std::numeric_limits<double>::infinity(),
                             std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::quiet_NaN(),
                             std::bit_cast<double>(0x7ff0000000000001ull), std::bit_cast<double>(0x7ff0000020000000ull),
                             std::bit_cast<double>(0x7ff8abcdef012345ull), std::bit_cast<double>(0x7ff4000000000000ull),
                             std::bit_cast<double>(0x7ff0040000000000ull)}) {
    out.push_back(value);
    out.push_back(-value);
  }
  const CounterKey key(20261125, 2);
  for (std::uint64_t i = 0; i < 1'000'000; ++i) {
    // Exponents 2^-30 to 2^17: below binary16's subnormals to past its overflow, every fraction.
    const std::uint64_t h = key(i);
    const std::uint64_t exponent = 1023 - 30 + below(h >> 52, 48);
    out.push_back(std::bit_cast<double>((h & 0x8000000000000000ull) | (exponent << 52) | (h & ((std::uint64_t{1} << 52) - 1))));
  }
  return out;
}

void expect_rounded_as_element_by_element(const std::vector<double>& values) {
  std::vector<std::uint16_t> bits(values.size(), 0xdead);
  round_row_to_half_bits(values.data(), values.size(), bits.data());
  for (std::size_t e = 0; e < values.size(); ++e)
    ASSERT_EQ(bits[e], round_to_half_bits(values[e])) << std::hexfloat << values[e] << " at " << e;
  // Short rows, from every offset of a vector: the last, partial vector converts alike.
  for (std::size_t count = 0; count <= 70; ++count) {
    for (std::size_t first = 0; first < 8; ++first) {
      std::vector<std::uint16_t> row(count + 1, 0xdead);
      round_row_to_half_bits(values.data() + 31744 * first, count, row.data());
      for (std::size_t e = 0; e < count; ++e) ASSERT_EQ(row[e], round_to_half_bits(values[31744 * first + e])) << count << " " << e;
      ASSERT_EQ(row[count], 0xdead) << "a row of " << count << " wrote past its end";
    }
  }
}

using Widen = void (*)(const std::uint16_t*, std::size_t, double*);

std::uint64_t half_widened(std::uint16_t bits) { return std::bit_cast<std::uint64_t>(static_cast<double>(widen_half_bits(bits))); }
std::uint64_t bfloat16_widened(std::uint16_t bits) {
  return std::bit_cast<std::uint64_t>(static_cast<double>(cpu::widen_bfloat16(cpu::BFloat16{bits})));
}

void expect_widened_as_element_by_element(Widen widen, std::uint64_t (*element)(std::uint16_t)) {
  std::vector<std::uint16_t> bits(0x10000);
  std::iota(bits.begin(), bits.end(), std::uint16_t{0});
  std::vector<double> values(bits.size() + 1, -7.0);
  widen(bits.data(), bits.size(), values.data());
  for (std::size_t e = 0; e < bits.size(); ++e) ASSERT_EQ(std::bit_cast<std::uint64_t>(values[e]), element(bits[e])) << std::hex << bits[e];
  ASSERT_EQ(values.back(), -7.0);
  // Rows that run from large finite values into the infinities and NaNs of either format.
  for (const std::size_t first : {std::size_t{0x7bc0}, std::size_t{0x7f60}}) {
    for (std::size_t count = 0; count <= 70; ++count) {
      std::vector<double> row(count + 1, -7.0);
      widen(bits.data() + first, count, row.data());
      for (std::size_t e = 0; e < count; ++e) ASSERT_EQ(std::bit_cast<std::uint64_t>(row[e]), element(bits[first + e])) << count;
      ASSERT_EQ(row[count], -7.0) << "a row of " << count << " wrote past its end";
    }
  }
}

TEST(SixteenBitRows, EveryTargetRoundsToBinary16AsTheElementByElementConversion) {
  const std::vector<double> values = doubles_where_rounding_decides();
  on_every_highway_target("16-bit rows", sixteen_bit_rows_target, [&] { expect_rounded_as_element_by_element(values); });
}

TEST(SixteenBitRows, EveryTargetWidensBinary16AsTheElementByElementConversion) {
  on_every_highway_target("16-bit rows", sixteen_bit_rows_target, [] { expect_widened_as_element_by_element(widen_half_row, half_widened); });
}

TEST(SixteenBitRows, EveryTargetWidensBfloat16AsTheElementByElementConversion) {
  on_every_highway_target("16-bit rows", sixteen_bit_rows_target,
                          [] { expect_widened_as_element_by_element(widen_bfloat16_row, bfloat16_widened); });
}

}  // namespace
}  // namespace peconform::harness
