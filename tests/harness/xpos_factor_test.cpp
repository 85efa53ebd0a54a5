// xPos's factor in double-double (harness/xpos_factor.hpp): the exponential stays within its
// proven bound of MPFR's, and every value the function forms is the double the binary128 path
// gives (Wide(p) lambda, expq, A times it, each rounded to double), bit for bit, over the
// campaign's specs, roles, positions and attention factors; values halfway between two doubles
// are left to binary128.
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fmt/format.h>
#include <optional>
#include <string>
#include <vector>

#include "harness/counter_random.hpp"
#include "harness/xpos_factor.hpp"
#include "reference/real_types.hpp"
#include "reference/rotary.hpp"
#include "support/exact_wide.hpp"

namespace peconform::harness {
namespace {

// Whether v lies within 2^-80 |v| (and a little more) of a point halfway between two doubles.
bool near_a_midpoint(const ExactReal& v) {
  const double nearest = static_cast<double>(v);
  for (const double neighbour : {std::nextafter(nearest, INFINITY), std::nextafter(nearest, -INFINITY)}) {
    const ExactReal halfway = (ExactReal(nearest) + ExactReal(neighbour)) / 2;
    if (abs(v - halfway) <= abs(v) * ExactReal(0x1p-79)) return true;
  }
  return false;
}

TEST(XposFactor, ExponentialStaysWithinItsProvenBound) {
  CounterStream random(20261124, 1);
  std::vector<double> heads;
  for (int i = 0; i < 4000; ++i) {
    const double range = random.below(2) == 0 ? 600 : std::ldexp(1.0, -static_cast<int>(random.below(60)));
    heads.push_back((2 * random.uniform() - 1) * range);
  }
  // Near k ln 2 (r near 0) and near (k + 1/2) ln 2 (k's rounding boundary, |r| largest).
  for (const int k : {-866, -100, -1, 0, 1, 3, 200, 865})
    for (const double half : {0.0, 0.5, -0.5})
      for (const double nudge : {0.0, 0x1p-40, -0x1p-40, 0x1p-20}) {
        const double head = (k + half) * 0x1.62e42fefa39efp-1 + nudge;  // ln 2 rounded
        if (std::abs(head) <= 600) heads.push_back(head);
      }
  double worst = 0;
  for (const double hi : heads) {
    const double lo = hi == 0 ? 0 : std::ldexp(2 * random.uniform() - 1, std::ilogb(hi) - 54);
    const DoubleDouble x = two_sum(hi, lo);
    const std::optional<DoubleDouble> e = exponential(x);
    ASSERT_TRUE(e.has_value()) << hi;
    const ExactReal exact = exp(ExactReal(x.hi) + ExactReal(x.lo));
    const double off = static_cast<double>(abs((ExactReal(e->hi) + ExactReal(e->lo)) / exact - 1));
    worst = std::max(worst, off);
    ASSERT_LE(off, 0x1.9ap-98) << fmt::format("exp({:a} + {:a})", x.hi, x.lo);  // 2^-97.3, rounded up
    ASSERT_LE(std::abs(e->lo), 0x1p-53 * std::abs(e->hi));
  }
  std::printf("exponential: worst relative error 2^%.2f over %zu inputs\n", std::log2(worst), heads.size());
  EXPECT_FALSE(exponential({600.5, 0}).has_value());
  EXPECT_FALSE(exponential({-601, 0}).has_value());
  EXPECT_FALSE(exponential({NAN, 0}).has_value());
}

// The exponential's bound (xpos_factor.cpp) assumes its constants to these precisions; the
// bound itself is too loose to notice a constant's low part wrong in its last bits, since the
// polynomial multiplies 1/n!'s error by s^n, |s| < 2^-6.5.
TEST(XposFactor, TheExponentialsConstantsAreAsPreciseAsItsProofAssumes) {
  ExactReal factorial = 1;
  for (std::size_t n = 0; n < inverse_factorials().size(); ++n) {
    if (n > 0) factorial *= static_cast<int>(n);
    const DoubleDouble& c = inverse_factorials()[n];
    const double off = static_cast<double>(abs((ExactReal(c.hi) + ExactReal(c.lo)) * factorial - 1));
    EXPECT_LE(off, 0x1p-107) << fmt::format("1/{}! = {:a} + {:a}", n, c.hi, c.lo);
    EXPECT_LE(std::abs(c.lo), 0x1p-53 * c.hi) << n;  // normalised
  }
  const std::array<double, 3>& ln2 = ln2_parts();
  const ExactReal sum = ExactReal(ln2[0]) + ExactReal(ln2[1]) + ExactReal(ln2[2]);
  EXPECT_LE(static_cast<double>(abs(sum - log(ExactReal(2)))), 0x1.afp-165);  // 2^-164.25, rounded up
}

struct Binary128Factor {
  double log_factor, factor, amplitude;
};

// What the rotary verifier formed before xpos_factor, and still forms where it is not formed.
Binary128Factor binary128_factor(std::int64_t position, const Wide& lambda, const Wide& attention) {
  const Wide log_factor = Wide(position) * lambda;
  const Wide factor = exp(log_factor);
  return {static_cast<double>(log_factor), static_cast<double>(factor), static_cast<double>(attention * factor)};
}

TEST(XposFactor, FormedValuesAreTheBinary128PathsBitForBit) {
  CounterStream random(20261124, 2);
  // YaRN's mscale for factors 4 and 32, an arbitrary one, and none.
  const Wide attentions[] = {Wide(1), 1 + Wide("0.1") * log(Wide(4)), 1 + Wide("0.1") * log(Wide(32)),
                             Wide("1.2345678901234567890123")};
  int formed = 0, tried = 0, logs_formed = 0, beyond_exp = 0;
  for (const int d : {8, 32, 64, 128, 256})
    for (const char* scale_base : {"512", "8", "4096", "1.5"})
      for (const char* role : {"query", "key"}) {
        const Spec spec = Spec::parse(fmt::format("xpos(d={},scale_base={},role={})", d, scale_base, role));
        for (int pair = 0; pair < d / 2; ++pair) {
          const Wide log_zeta = log(xpos_zeta<Wide>(spec, pair)) / from_decimal<Wide>(spec.scale_base);
          const Wide lambda = spec.role == XposRole::query ? log_zeta : Wide(-log_zeta);
          for (int i = 0; i < 24; ++i) {
            const auto limit = static_cast<double>(std::int64_t{1} << (1 + random.below(24)));
            std::int64_t position = 1 + static_cast<std::int64_t>(random.uniform() * limit);
            if (random.below(8) == 0) position = -position;
            const Wide& attention = attentions[random.below(4)];
            const RoundedXposFactor f = rounded_xpos_factor(position, split_wide(lambda), split_wide(attention));
            // ln of the factor, also where |p lambda| > 600 leaves the factor itself unformed.
            if (f.log_formed) {
              ++logs_formed;
              ASSERT_EQ(std::bit_cast<std::uint64_t>(f.log_factor),
                        std::bit_cast<std::uint64_t>(static_cast<double>(Wide(position) * lambda)))
                  << "p=" << position << " lambda=" << lambda.str(40);
            }
            ASSERT_TRUE(f.log_formed || !f.formed);
            if (abs(Wide(position) * lambda) > 599) {
              ++beyond_exp;
              continue;
            }
            ++tried;
            const std::string what = fmt::format("d={} scale_base={} {} pair {} p={} A={}", d, scale_base, role, pair, position,
                                                 attention.str(30));
            if (!f.formed) {
              // Only a value that lies within 2^-80 of a rounding boundary may be left to binary128.
              const ExactReal exact_log = ExactReal(static_cast<double>(position)) * exactly(lambda);
              const ExactReal exact_factor = exp(exact_log);
              EXPECT_TRUE(near_a_midpoint(exact_log) || near_a_midpoint(exact_factor) ||
                          near_a_midpoint(exactly(attention) * exact_factor))
                  << what;
              continue;
            }
            ++formed;
            const Binary128Factor wide = binary128_factor(position, lambda, attention);
            ASSERT_EQ(std::bit_cast<std::uint64_t>(f.log_factor), std::bit_cast<std::uint64_t>(wide.log_factor)) << what;
            ASSERT_EQ(std::bit_cast<std::uint64_t>(f.factor), std::bit_cast<std::uint64_t>(wide.factor)) << what;
            ASSERT_EQ(std::bit_cast<std::uint64_t>(f.amplitude), std::bit_cast<std::uint64_t>(wide.amplitude)) << what;
          }
        }
      }
  // Values within 2^-80 of a rounding boundary are rarer than this suggests: zeta^(p / scale_base)
  // can be a dyadic rational, and two inputs here are exactly halfway between two doubles,
  // (3/8)^34 = 3^34 2^-102 (scale_base 1.5, p 51) and (63/128)^9 = 63^9 2^-63 (scale_base 8,
  // p 72), whose numerators have 54 bits.
  std::printf("formed %d of %d; ln formed %d of %d, %d of them past |p lambda| = 599\n", formed, tried, logs_formed,
              tried + beyond_exp, beyond_exp);
  EXPECT_GE(formed, tried - 8);
  EXPECT_GT(tried, 10000);
  EXPECT_GT(beyond_exp, 10000);
  EXPECT_GE(logs_formed, tried + beyond_exp - 8);
}

TEST(XposFactor, ValuesHalfwayBetweenDoublesAreLeftToBinary128) {
  const SplitWide none = split_wide(Wide(1));
  // p lambda exactly halfway between 1 and its successor, and 2^-90 either side of it: the
  // binary128 product rounds each to a different double, which double-double cannot tell apart.
  const Wide halfway = 1 + Wide(0x1p-53);
  // Not even the log is formed: it is the value at the boundary.
  for (const Wide& lambda : {halfway, Wide(halfway + Wide(0x1p-90)), Wide(halfway - Wide(0x1p-90)), Wide(-halfway)}) {
    const RoundedXposFactor f = rounded_xpos_factor(1, split_wide(lambda), none);
    EXPECT_FALSE(f.formed) << lambda.str(40);
    EXPECT_FALSE(f.log_formed) << lambda.str(40);
  }
  // (3/8)^34 = 3^34 2^-102, whose numerator has 54 bits: the factor itself halfway.
  EXPECT_FALSE(rounded_xpos_factor(34, split_wide(log(Wide(3) / 8)), none).formed);
  // 2^-70 away it is decided, and decided as binary128 does.
  for (const Wide& lambda : {Wide(halfway + Wide(0x1p-70)), Wide(halfway - Wide(0x1p-70))}) {
    const RoundedXposFactor f = rounded_xpos_factor(1, split_wide(lambda), none);
    ASSERT_TRUE(f.formed) << lambda.str(40);
    EXPECT_EQ(f.log_factor, binary128_factor(1, lambda, Wide(1)).log_factor);
  }
}

TEST(XposFactor, OutsideItsDomainNothingIsFormed) {
  const SplitWide lambda = split_wide(Wide("-0.001")), none = split_wide(Wide(1));
  EXPECT_FALSE(rounded_xpos_factor(0, lambda, none).formed);
  EXPECT_FALSE(rounded_xpos_factor(std::int64_t{1} << 53, lambda, none).formed);
  EXPECT_FALSE(rounded_xpos_factor(-(std::int64_t{1} << 53), lambda, none).log_formed);
  const RoundedXposFactor far = rounded_xpos_factor(700000, lambda, none);  // |p lambda| = 700
  EXPECT_FALSE(far.formed);
  EXPECT_TRUE(far.log_formed);
  EXPECT_EQ(far.log_factor, -700);
  EXPECT_FALSE(rounded_xpos_factor(0, lambda, none).log_formed);
  EXPECT_FALSE(rounded_xpos_factor(5, split_wide(Wide(0x1p-850)), none).log_formed);
  EXPECT_FALSE(rounded_xpos_factor(5, split_wide(Wide(0)), none).formed);
  EXPECT_FALSE(rounded_xpos_factor(5, split_wide(Wide(0x1p-850)), none).formed);
  EXPECT_FALSE(rounded_xpos_factor(5, lambda, split_wide(Wide(512))).formed);
  EXPECT_FALSE(rounded_xpos_factor(5, lambda, split_wide(Wide(0x1p-9))).formed);
  EXPECT_TRUE(rounded_xpos_factor(5, lambda, none).formed);
}

}  // namespace
}  // namespace peconform::harness
