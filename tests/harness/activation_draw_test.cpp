// The vectorised activation draw (harness/activation_draw.hpp) gives bit for bit what its scalar
// definition gives, on every Highway target this CPU runs, for every row length up to 70 (so
// that every partial last vector is met), counters that wrap past 2^64, and scales of every
// kind; and the definition is the formula the campaign has always drawn with.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "harness/activation_draw.hpp"
#include "harness/counter_random.hpp"
#include "support/highway_targets.hpp"

namespace peconform::harness {
namespace {

double draw_scale(CounterStream& random) {
  switch (random.below(8)) {
    case 0: return 0.0;
    case 1: return -3.5;
    case 2: return 0x1p-1000;
    case 3: return 0x1p+1000;
    case 4: return std::numeric_limits<double>::quiet_NaN();
    default: return random.uniform() * 40;
  }
}

void expect_same_rows(CounterStream& random) {
  for (std::size_t count = 0; count <= 70; ++count) {
    for (int trial = 0; trial < 8; ++trial) {
      const CounterKey key(random.next(), 100 + random.below(3));
      const std::uint64_t first = trial == 0 ? std::numeric_limits<std::uint64_t>::max() - count / 2 : random.next() >> random.below(64);
      std::vector<double> scales(count), vector_values(count, -1), scalar_values(count, -2);
      for (double& scale : scales) scale = draw_scale(random);
      draw_activation_row(key, first, scales.data(), count, vector_values.data());
      draw_activation_row_scalar(key, first, scales.data(), count, scalar_values.data());
      for (std::size_t e = 0; e < count; ++e)
        ASSERT_EQ(std::bit_cast<std::uint64_t>(vector_values[e]), std::bit_cast<std::uint64_t>(scalar_values[e]))
            << "count " << count << ", element " << e << ", first " << first;
    }
  }
}

TEST(ActivationDraw, EveryTargetDrawsTheScalarDefinitionsBits) {
  CounterStream random(20261124, 7);
  on_every_highway_target("activation draw", activation_draw_target, [&] { expect_same_rows(random); });
}

// The definition against the Irwin-Hall formula written out: four 16-bit fields of the counter
// hash summed, centred on 2 65535 and divided by 65536 sqrt(1/3).
TEST(ActivationDraw, TheDefinitionIsTheIrwinHallFormula) {
  const CounterKey key(42, 100);
  std::vector<double> scales(64, 1.5), values(64);
  draw_activation_row_scalar(key, 1000, scales.data(), scales.size(), values.data());
  for (std::size_t e = 0; e < values.size(); ++e) {
    const std::uint64_t h = counter_hash(42, 100, 1000 + e);
    const double sum = static_cast<double>(h & 0xffff) + static_cast<double>((h >> 16) & 0xffff) +
                       static_cast<double>((h >> 32) & 0xffff) + static_cast<double>(h >> 48);
    const double expected = (sum - 131070.0) / (65536.0 * std::sqrt(1.0 / 3.0)) * 1.5;
    EXPECT_NEAR(values[e], expected, 1e-15 * std::abs(expected) + 1e-300) << e;
    EXPECT_LT(std::abs(values[e]), 1.5 * std::sqrt(3.0) * 2 + 1e-9);
  }
}

}  // namespace
}  // namespace peconform::harness
