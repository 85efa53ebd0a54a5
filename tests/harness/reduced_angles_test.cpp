// The vectorised angle reduction (harness/reduced_angles.hpp) gives bit for bit what
// reduce_angle gives, on every Highway target this CPU runs: every row length up to 70 (every
// partial last vector), frequencies from 2^-800 to 2^4 and 0, positions of either sign to just
// below 2^53, and angles past 2^50, which neither forms. reduce_angle's own accuracy is
// screened_cos_sin_test's.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "harness/counter_random.hpp"
#include "harness/reduced_angles.hpp"
#include "harness/rotary_row_screen.hpp"
#include "harness/screened_cos_sin.hpp"
#include "support/highway_targets.hpp"

namespace peconform::harness {
namespace {

Wide draw_frequency(CounterStream& random) {
  switch (random.below(8)) {
    case 0: return Wide(0);
    case 1: return ldexp(Wide(1 + random.uniform()), -800 + static_cast<int>(random.below(40)));
    default: return exp(Wide(random.uniform()) * -40 + 3) * (1 + Wide(random.uniform()) * Wide(0x1p-60));
  }
}

std::int64_t draw_position(CounterStream& random) {
  std::int64_t p = 0;
  switch (random.below(4)) {
    case 0: p = (std::int64_t{1} << 53) - 1 - static_cast<std::int64_t>(random.below(1000)); break;
    case 1: p = static_cast<std::int64_t>(random.below(64)); break;
    default: p = static_cast<std::int64_t>(random.next() >> (11 + random.below(40)));
  }
  return random.below(4) == 0 ? -p : p;
}

void expect_same_reductions(CounterStream& random, int& formed, int& unformed) {
  for (std::size_t count = 0; count <= 70; ++count)
    for (int trial = 0; trial < 6; ++trial) {
      const std::size_t padded = padded_pairs(count);
      std::vector<double> position(padded), hi(padded), mid(padded), lo(padded), out_hi(padded), out_lo(padded), magnitude(padded);
      std::vector<SplitFrequency> frequencies;
      std::vector<std::int64_t> positions;
      for (std::size_t j = 0; j < count; ++j) {
        frequencies.push_back(split_frequency(draw_frequency(random)));
        positions.push_back(trial == 0 && j > 0 ? positions[0] : draw_position(random));
        position[j] = static_cast<double>(positions[j]);
        hi[j] = frequencies[j].hi, mid[j] = frequencies[j].mid, lo[j] = frequencies[j].lo;
      }
      reduce_angles({position.data(), hi.data(), mid.data(), lo.data()}, count, {out_hi.data(), out_lo.data(), magnitude.data()});
      for (std::size_t j = 0; j < count; ++j) {
        const ReducedAngle scalar = reduce_angle(positions[j], frequencies[j]);
        ASSERT_EQ(scalar.in_range, !std::isnan(out_hi[j])) << "count " << count << ", pair " << j << ", p " << positions[j];
        if (!scalar.in_range) {
          ++unformed;
          continue;
        }
        ++formed;
        ASSERT_EQ(std::bit_cast<std::uint64_t>(scalar.hi), std::bit_cast<std::uint64_t>(out_hi[j])) << "pair " << j << ", p " << positions[j];
        ASSERT_EQ(std::bit_cast<std::uint64_t>(scalar.lo), std::bit_cast<std::uint64_t>(out_lo[j])) << "pair " << j << ", p " << positions[j];
        ASSERT_EQ(std::bit_cast<std::uint64_t>(scalar.magnitude), std::bit_cast<std::uint64_t>(magnitude[j])) << "pair " << j;
      }
    }
}

TEST(ReducedAngles, EveryTargetReducesAsReduceAngleBitForBit) {
  CounterStream random(20261125, 3);
  int formed = 0, unformed = 0;
  on_every_highway_target("angle reduction", reduced_angles_target, [&] { expect_same_reductions(random, formed, unformed); });
  std::printf("formed %d, left unformed %d\n", formed, unformed);
  EXPECT_GT(formed, 10000);
  EXPECT_GT(unformed, 500);
}

// PairAngles leaves unformed what reduce_angle leaves unformed: positions past 2^53, frequencies
// below 2^-800 or not finite, angles past 2^50; the rest it forms as reduce_angle does.
TEST(ReducedAngles, PairAnglesAreReduceAnglesPairByPair) {
  CounterStream random(20261125, 4);
  std::vector<SplitFrequency> frequencies;
  for (int j = 0; j < 37; ++j) frequencies.push_back(split_frequency(draw_frequency(random)));
  frequencies.push_back(split_frequency(Wide(0x1p-900)));
  frequencies.push_back(split_frequency(std::numeric_limits<Wide>::quiet_NaN()));
  frequencies.push_back(split_frequency(Wide(0x1p-20)));  // p theta below 2^50 even for p = 2^60
  PairAngles angles(frequencies);
  int formed = 0, unformed = 0;
  for (int token = 0; token < 200; ++token) {
    std::vector<std::int64_t> positions;
    for (std::size_t j = 0; j < frequencies.size(); ++j) positions.push_back(draw_position(random));
    if (token % 10 == 0) positions.back() = (std::int64_t{1} << 53) + token;
    if (token % 10 == 1) positions.back() = -(std::int64_t{1} << 60);
    if (token % 10 == 2) positions.back() = -(std::int64_t{1} << 53);  // the first negative one not exact in double
    angles.reduce(positions);
    for (std::size_t j = 0; j < frequencies.size(); ++j) {
      const ReducedAngle scalar = reduce_angle(positions[j], frequencies[j]), pair = angles.of(j);
      ASSERT_EQ(scalar.in_range, pair.in_range) << "pair " << j << ", p " << positions[j];
      (scalar.in_range ? formed : unformed) += 1;
      if (!scalar.in_range) continue;
      ASSERT_EQ(std::bit_cast<std::uint64_t>(scalar.hi), std::bit_cast<std::uint64_t>(pair.hi)) << "pair " << j;
      ASSERT_EQ(std::bit_cast<std::uint64_t>(scalar.lo), std::bit_cast<std::uint64_t>(pair.lo)) << "pair " << j;
      ASSERT_EQ(std::bit_cast<std::uint64_t>(scalar.magnitude), std::bit_cast<std::uint64_t>(pair.magnitude)) << "pair " << j;
    }
  }
  EXPECT_GT(formed, 5000);
  EXPECT_GT(unformed, 400);
}

}  // namespace
}  // namespace peconform::harness
