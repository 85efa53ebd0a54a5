// The screening reference's cos and sin (harness/screened_cos_sin.hpp) against MPFR: the
// double-double reduction of p theta stays within its proven bound of the exact reduction, and
// cos and sin within the error each form reports, for positions up to 2^53, angles up to 2^50
// rad, turn counts at their rounding boundaries, and the inputs that take the binary128 form.
#include <gtest/gtest.h>

#include <boost/math/constants/constants.hpp>
#include <cmath>
#include <cstdint>
#include <fmt/format.h>
#include <limits>
#include <string>
#include <vector>

#include "harness/counter_random.hpp"
#include "harness/screened_cos_sin.hpp"
#include "reference/real_types.hpp"
#include "support/exact_wide.hpp"

namespace peconform::harness {
namespace {

// x less the nearest whole number of turns.
ExactReal within_a_turn(const ExactReal& x) {
  static const ExactReal two_pi = boost::math::constants::two_pi<ExactReal>();
  return x - two_pi * round(x / two_pi);
}

struct Input {
  std::int64_t position;
  Wide frequency;
};

// Frequencies as the plans make them, products of two doubles (all 113 bits used), and
// positions over every range the campaign draws and past it.
std::vector<Input> inputs() {
  std::vector<Input> out;
  CounterStream random(20261124, 0);
  const std::int64_t limits[] = {4, 1 << 12, std::int64_t{1} << 20, std::int64_t{1} << 31, std::int64_t{1} << 40,
                                 (std::int64_t{1} << 53) - 1};
  for (int i = 0; i < 6000; ++i) {
    Wide frequency;
    switch (random.below(3)) {
      case 0: frequency = pow(Wide(10000), -Wide(static_cast<double>(random.below(128))) / 128); break;
      case 1: frequency = Wide(random.uniform() * 8) * Wide(1 + random.uniform()); break;
      default: frequency = Wide(std::ldexp(1 + random.uniform(), -static_cast<int>(random.below(40)))) * Wide(1 + random.uniform());
    }
    const std::int64_t limit = limits[random.below(6)];
    std::int64_t position = static_cast<std::int64_t>(random.uniform() * static_cast<double>(limit));
    if (random.below(4) == 0) position = -position;
    out.push_back({position, frequency});
  }
  // p theta at, just below and just above an odd multiple of pi, where the turn count's
  // rounding decides between two k.
  const Wide pi = boost::math::constants::pi<Wide>();
  for (const std::int64_t turns : {std::int64_t{0}, std::int64_t{1}, std::int64_t{7}, std::int64_t{1} << 20,
                                   std::int64_t{1} << 40, (std::int64_t{1} << 47) - 3})
    for (const std::int64_t position : {std::int64_t{1}, std::int64_t{3}, std::int64_t{1} << 24, std::int64_t{5} << 30})
      for (const double nudge : {0.0, 0x1p-60, -0x1p-60, 0x1p-40, -0x1p-40}) {
        const Wide frequency = (pi * Wide(2 * turns + 1) + Wide(nudge)) / Wide(position);
        out.push_back({position, frequency});
        out.push_back({-position, frequency});
      }
  return out;
}

TEST(ScreenedCosSin, DoubleDoubleReductionStaysWithinItsProvenBound) {
  int formed = 0;
  for (const Input& in : inputs()) {
    const ReducedAngle r = reduce_angle(in.position, split_frequency(in.frequency));
    if (!r.in_range) continue;
    ++formed;
    const ExactReal phi = ExactReal(static_cast<double>(in.position)) * exactly(in.frequency);
    const ExactReal off = abs(within_a_turn(ExactReal(r.hi) + ExactReal(r.lo) - phi));
    const double magnitude = static_cast<double>(abs(phi));
    // 2^-100.09 + 2^-158.8 |phi| (screened_cos_sin.hpp), rounded up.
    const ExactReal bound = ExactReal(0x1.e2p-101) + ExactReal(magnitude) * ExactReal(0x1p-158);
    ASSERT_LE(off, bound) << fmt::format("p={} theta={} |phi|={}: off by {}", in.position, in.frequency.str(36),
                                         magnitude, static_cast<double>(off));
    ASSERT_LE(std::abs(r.lo), 0x1p-50);
    EXPECT_EQ(r.magnitude, static_cast<double>(abs(phi))) << in.position;
  }
  EXPECT_GT(formed, 5000);
}

void expect_within_error(const ScreenedCosSin& cs, const ExactReal& phi, const std::string& what) {
  const double cos_off = static_cast<double>(abs(ExactReal(cs.cos) - cos(phi)));
  const double sin_off = static_cast<double>(abs(ExactReal(cs.sin) - sin(phi)));
  ASSERT_LE(cos_off, cs.error) << what;
  ASSERT_LE(sin_off, cs.error) << what;
}

TEST(ScreenedCosSin, CosAndSinStayWithinTheReportedError) {
  for (const Input& in : inputs()) {
    const ExactReal phi = ExactReal(static_cast<double>(in.position)) * exactly(in.frequency);
    const std::string what = fmt::format("p={} theta={}", in.position, in.frequency.str(36));
    const ScreenedCosSin split = screened_cos_sin(in.position, split_frequency(in.frequency));
    expect_within_error(split, phi, what);
    // The frequency here is exact, so the part charged to its error (|phi| 2^-100) is spare:
    // the form's own error must fit in the rest.
    const ScreenedCosSin tight{split.cos, split.sin, 0x1p-52 + 0x1p-99, split.magnitude};
    if (reduce_angle(in.position, split_frequency(in.frequency)).in_range) expect_within_error(tight, phi, what + " (own error)");
    expect_within_error(screened_cos_sin(Wide(in.position) * in.frequency), phi, what + " (binary128)");
  }
}

// The verifier escalates where an element's error may exceed its bound, so a stated error too
// large passes every accuracy test and only slows the campaign: each form's error is held to the
// formula screened_cos_sin.hpp states, and its magnitude to |phi| rounded to double.
TEST(ScreenedCosSin, EachFormStatesTheErrorAndMagnitudeItsHeaderGives) {
  for (const Input& in : inputs()) {
    const std::string what = fmt::format("p={} theta={}", in.position, in.frequency.str(36));
    const Wide angle = Wide(in.position) * in.frequency;
    const double magnitude = std::abs(static_cast<double>(angle));
    const ScreenedCosSin wide = screened_cos_sin(angle);
    EXPECT_EQ(wide.magnitude, magnitude) << what;
    EXPECT_EQ(wide.error, 0x1p-52 + magnitude * 0x1p-100) << what;
    const ReducedAngle reduced = reduce_angle(in.position, split_frequency(in.frequency));
    if (!reduced.in_range) continue;
    const ScreenedCosSin split = screened_cos_sin(in.position, split_frequency(in.frequency));
    EXPECT_EQ(split.magnitude, reduced.magnitude) << what;
    EXPECT_EQ(split.error, 0x1p-52 + 0x1p-99 + reduced.magnitude * 0x1p-100) << what;
  }
}

TEST(ScreenedCosSin, ANonFiniteFrequencyIsOutsideTheDoubleDoubleDomain) {
  for (const Wide& frequency : {std::numeric_limits<Wide>::quiet_NaN(), std::numeric_limits<Wide>::infinity(),
                                -std::numeric_limits<Wide>::infinity()})
    EXPECT_FALSE(split_frequency(frequency).in_range) << frequency;
}

TEST(ScreenedCosSin, OutsideItsDomainTheBinary128FormAnswers) {
  const Wide frequency = Wide(0.5) * Wide(1 + 0x1p-30);
  for (const std::int64_t position : {std::int64_t{1} << 53, -(std::int64_t{1} << 53), std::int64_t{3} << 55})
    EXPECT_FALSE(reduce_angle(position, split_frequency(frequency)).in_range) << position;
  EXPECT_FALSE(reduce_angle(std::int64_t{1} << 52, split_frequency(Wide(2))).in_range);  // |phi| = 2^53
  EXPECT_FALSE(reduce_angle(5, split_frequency(Wide(0x1p-850))).in_range);
  EXPECT_TRUE(reduce_angle(5, split_frequency(Wide(0))).in_range);
  for (const std::int64_t position : {std::int64_t{1} << 53, std::int64_t{3} << 55}) {
    const ExactReal phi = ExactReal(static_cast<double>(position)) * exactly(frequency);
    const ScreenedCosSin cs = screened_cos_sin(position, split_frequency(frequency));
    const ScreenedCosSin wide = screened_cos_sin(Wide(position) * frequency);
    EXPECT_EQ(cs.cos, wide.cos);
    EXPECT_EQ(cs.sin, wide.sin);
    expect_within_error(cs, phi, fmt::format("p={}", position));
  }
  const ScreenedCosSin zero = screened_cos_sin(12345, split_frequency(Wide(0)));
  EXPECT_EQ(zero.cos, 1.0);
  EXPECT_EQ(zero.sin, 0.0);
}

// Where cos or sin crosses zero (phi a multiple of pi/2, reduced to near 0, +-pi/2 or +-pi) the
// value is below 2^-51 and so are the roundings of evaluating it: libm's error under one ulp of
// it (2^-103), the correction's product and sum (2^-106, 2^-105), and the second-order term
// |lo|^2 / 2 the correction leaves out (2^-105); together under 2^-102. The reduction adds its own
// error (2^-99 stated for the double-double form, whose frequency is exact here; for the binary128
// form, the roundings of p theta, of 2 pi and of turns 2 pi, each at most 2^-113 |phi|, under
// 2^-111 |phi| together). The correction by lo is what keeps the value this close: hi alone
// misses the reduced angle by |lo|, up to 2^-52 at +-pi.
TEST(ScreenedCosSin, NearItsZerosCosOrSinIsAsCloseAsTheReductionAllows) {
  const Wide half_pi = boost::math::constants::half_pi<Wide>();
  for (const std::int64_t position : {std::int64_t{1}, std::int64_t{3}, std::int64_t{1} << 20})
    for (int quarter_turns = 1; quarter_turns <= 64; ++quarter_turns) {
      const Wide frequency = half_pi * Wide(quarter_turns) / Wide(position);
      const ExactReal phi = ExactReal(static_cast<double>(position)) * exactly(frequency);
      const double bound = 0x1p-99 + 0x1p-102 + 0x1p-111 * static_cast<double>(abs(phi));
      const std::string what = fmt::format("p={} phi={} pi/2", position, quarter_turns);
      const ExactReal exact_cos = cos(phi), exact_sin = sin(phi);
      const bool cos_near_zero = abs(exact_cos) < ExactReal(0.5);
      for (const ScreenedCosSin& cs : {screened_cos_sin(position, split_frequency(frequency)), screened_cos_sin(Wide(position) * frequency)}) {
        const double off = static_cast<double>(cos_near_zero ? abs(ExactReal(cs.cos) - exact_cos) : abs(ExactReal(cs.sin) - exact_sin));
        EXPECT_LE(off, bound) << what << (cos_near_zero ? ": cos" : ": sin");
      }
    }
}

}  // namespace
}  // namespace peconform::harness
