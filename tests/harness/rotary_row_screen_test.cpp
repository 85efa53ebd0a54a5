// The vectorised row screen (harness/rotary_row_screen.hpp) gives bit for bit what its scalar
// definition gives: every ratio, the undecided pairs, the worst ratio, the ULPs and the count,
// on rows mixing ordinary pairs, pairs at and past their bound, NaN, Inf, zeros, subnormals,
// huge values and pairs the fast path must not decide, at every row length up to 70 (so that
// every partial last vector is met), with pairs in the padding past each row.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "harness/counter_random.hpp"
#include "harness/rotary_row_screen.hpp"
#include "support/highway_targets.hpp"

namespace peconform::harness {
namespace {

struct Arrays {
  explicit Arrays(std::size_t pairs) : size(padded_pairs(pairs)) {
    for (std::vector<double>* v : {&cos, &sin, &amplitude, &relative, &reference_relative, &claim_scale, &xa, &xb, &ya, &yb,
                                   &ratio_a, &ratio_b})
      v->assign(size, 0.0);
  }
  std::size_t size;
  std::vector<double> cos, sin, amplitude, relative, reference_relative, claim_scale, xa, xb, ya, yb, ratio_a, ratio_b;
  RowScreenPairs pairs() const {
    return {cos.data(), sin.data(), amplitude.data(), relative.data(), reference_relative.data(), claim_scale.data()};
  }
  RowScreenValues values() const { return {xa.data(), xb.data(), ya.data(), yb.data()}; }
  RowScreenOut out() { return {ratio_a.data(), ratio_b.data()}; }
};

// An input value: mostly ordinary, sometimes one of the edges the screen must leave alone.
double draw_input(CounterStream& random) {
  switch (random.below(24)) {
    case 0: return std::numeric_limits<double>::quiet_NaN();
    case 1: return std::numeric_limits<double>::infinity();
    case 2: return 0.0;
    case 3: return -0.0;
    case 4: return 0x1p-1070;  // subnormal
    case 5: return 0x1p-460;   // squares near 2^-920
    case 6: return 0x1p+600;   // squares past double's range
    case 7: return 0x1.fffffep+127;
    default: return (random.uniform() - 0.5) * 8;
  }
}

void fill_row(Arrays& a, std::size_t pairs, const RowScreenConstants& c, CounterStream& random) {
  for (std::size_t j = 0; j < pairs; ++j) {
    const double angle = random.uniform() * 6.283185307179586;
    const double amplitude = random.below(16) == 0 ? 0x1p-950 : 0.5 + random.uniform();
    a.amplitude[j] = amplitude;
    a.cos[j] = std::cos(angle) * amplitude;
    a.sin[j] = std::sin(angle) * amplitude;
    a.relative[j] = 0x1p-50 * (1 + random.below(1000));
    a.reference_relative[j] = 1.4143 * 0x1p-52 + 6 * 0x1p-53;
    a.claim_scale[j] = random.below(16) == 0 ? std::numeric_limits<double>::infinity() : amplitude;
    a.xa[j] = draw_input(random);
    a.xb[j] = draw_input(random);
    // Outputs around the double reference, from far inside the bound to past it.
    const double ra = a.xa[j] * a.cos[j] - a.xb[j] * a.sin[j], rb = a.xa[j] * a.sin[j] + a.xb[j] * a.cos[j];
    const double r = std::sqrt(a.xa[j] * a.xa[j] + a.xb[j] * a.xb[j]);
    const double spread = (amplitude * r * a.relative[j] + c.final * (std::abs(ra) + std::abs(rb))) * 2;
    a.ya[j] = ra + spread * (random.uniform() - 0.5) * (random.below(2) == 0 ? 1 : 0x1p-20);
    a.yb[j] = random.below(32) == 0 ? std::numeric_limits<double>::quiet_NaN() : rb + spread * (random.uniform() - 0.5);
  }
}

void expect_same_screen(const RowScreenConstants& constants, std::uint64_t seed) {
  CounterStream random(seed, 0);
  std::uint64_t decided = 0, undecided = 0;
  for (int round = 0; round < 40; ++round)
    for (std::size_t pairs = 1; pairs <= 70; ++pairs) {
      Arrays vector(pairs), scalar(pairs);
      // The padding past the row holds pairs too, as decidable as the row's: it is read, and
      // must never be decided.
      fill_row(vector, vector.size, constants, random);
      scalar = vector;
      const RowScreenSummary v = screen_rotary_row(vector.pairs(), vector.values(), pairs, constants, vector.out());
      const RowScreenSummary s = screen_rotary_row_scalar(scalar.pairs(), scalar.values(), pairs, constants, scalar.out());
      ASSERT_EQ(std::bit_cast<std::uint64_t>(v.worst_ratio), std::bit_cast<std::uint64_t>(s.worst_ratio)) << pairs;
      ASSERT_EQ(std::bit_cast<std::uint64_t>(v.most_ulps), std::bit_cast<std::uint64_t>(s.most_ulps)) << pairs;
      ASSERT_EQ(v.decided_pairs, s.decided_pairs) << pairs;
      for (std::size_t j = 0; j < pairs; ++j) {
        ASSERT_EQ(std::bit_cast<std::uint64_t>(vector.ratio_a[j]), std::bit_cast<std::uint64_t>(scalar.ratio_a[j])) << j;
        ASSERT_EQ(std::bit_cast<std::uint64_t>(vector.ratio_b[j]), std::bit_cast<std::uint64_t>(scalar.ratio_b[j])) << j;
      }
      decided += s.decided_pairs;
      undecided += pairs - s.decided_pairs;
    }
  // Both outcomes are met often, or the comparison says little.
  EXPECT_GT(decided, 1000u);
  EXPECT_GT(undecided, 1000u);
}

TEST(RotaryRowScreen, VectorsGiveTheScalarScreenBitForBit) {
  on_every_highway_target("row screen", row_screen_target, [] {
    // fp32 storage (computing in float) and fp64 storage, whose ULPs reach the subnormal route.
    expect_same_screen({0x1p-149 + 3 * 0x1p-1074, 0x1p-149, 0x1p-24, 0x1p-149, 0x1.fffffep+127 / (1 + 0x1p-6), 23, -126}, 1);
    expect_same_screen({0x1p-1074 * 4, 0x1p-1074, 0x1p-53, 0x1p-1074, std::numeric_limits<double>::max() / (1 + 0x1p-6), 52, -1022},
                       2);
  });
}

}  // namespace
}  // namespace peconform::harness
