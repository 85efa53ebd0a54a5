// Behaviours of the error model (precision/error_model.hpp, error_model.cpp) that no other test
// pinned (tools/mutation/checklists/precision.md, issue 51). Each test holds a charge to the value
// its derivation states, worked out here from the comment above the code (cited in each test), in
// binary128 where it matters: a constant nudged or a term dropped moves it by at least a unit
// roundoff of some format, far past the few binary128 roundings (2^-112 each) that separate the
// order of operations here from the code's.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "precision/claimed_bounds.hpp"
#include "precision/error_model.hpp"

namespace peconform {
namespace {

Wide two_to(int exponent) { return ldexp(Wide(1), exponent); }

const Wide u = two_to(-24);  // float32's unit roundoff, the recipes' one rounding

// How far a binary128 value may sit from the same formula evaluated in another order: a few
// roundings of 2^-112 relative, well under 2^-100, and far under any charge's smallest term.
void expect_binary128_equal(const Wide& charged, const Wide& hand, const std::string& what) {
  EXPECT_LE(abs(charged - hand), two_to(-100) * abs(hand)) << what << ": charged " << charged.str(36) << ", by hand " << hand.str(36);
}

// A decimal the spec parser reads back to within binary128's precision (30 digits past the point).
std::string decimal_text(const Wide& value) { return value.str(30, std::ios_base::fixed); }

// ---------------------------------------------------------------------------------------------
// Issue 51's surviving mutants.

// RotaryBoundTerms::bound, the comment above it: B = P (1 + final) + final |y_e| + store_absolute,
// P = A r relative + r per_norm + absolute. A pair of norm 0 keeps the products' underflow: for a
// bf16 rope absolute = eta_c = 2^-149, final = 2^-8 + 2^-24 (u_s, and u_c since bf16 widens to
// float32), store_absolute = eta_s = 2^-133. (Issue 51's survivor: `- absolute`.)
TEST(ErrorModelRows, AZeroPairKeepsItsProductsUnderflowInTheBound) {
  const Spec spec = Spec::parse("rope(d=8,base=10000,dtype=bf16)");
  const RotaryBoundTerms<Wide> terms = rotary_bound_terms<Wide>(spec, Wide(0), Wide(0), angle_growth<Wide>(spec, 0));
  EXPECT_EQ(terms.bound(Wide(0), Wide(0), Wide(0)), two_to(-149) * (1 + two_to(-8) + two_to(-24)) + two_to(-133));
}

// The rotated pairs' bounds, assembled pair by pair (claimed_error_bounds: each pair at its own
// exact angle p theta_k, its own norm, the final rounding on its element's own exact value).
// rope(d=8) at p = 3, half layout: pair k writes elements k and k + 4, theta_k = 10000^(-k/4).
// Pair 0's input (sin 3, cos 3) rotates to y_0 = sin 3 cos 3 - cos 3 sin 3 = 0: its bound has no
// final rounding of a unit-sized element, though its pair's scale A r is 1 (ErrorModel's first
// test, through the whole path). (Issue 51's survivor: a stray `break` in the pair loop, which
// left every pair after the first, or every pair, a bound of 0.)
TEST(ErrorModelRows, EveryRotatedPairIsChargedAtItsOwnAngleNormAndElement) {
  const Spec spec = Spec::parse("rope(d=8,base=10000,dtype=bf16)");
  const std::int64_t p = 3;
  const std::vector<Wide> x{sin(Wide(3)), Wide(0.5), Wide(0.75), Wide(-2), cos(Wide(3)), Wide(-0.25), Wide(1), Wide(0.125)};
  const Reference<FastReal> reference(spec, p + 1);
  const std::vector<Wide> bounds = claimed_error_bounds(reference, Point{{p}}, x);
  ASSERT_EQ(bounds.size(), 8u);
  for (int k = 0; k < 4; ++k) {
    const auto a = static_cast<std::size_t>(k), b = a + 4;
    const Wide angle = Wide(p) * pow(Wide(10000), -Wide(k) / 4);
    const Wide r = sqrt(x[a] * x[a] + x[b] * x[b]);
    const Wide y_a = x[a] * cos(angle) - x[b] * sin(angle), y_b = x[a] * sin(angle) + x[b] * cos(angle);
    const RotaryBoundTerms<Wide> terms = rotary_bound_terms<Wide>(spec, angle, Wide(0), two_to(-100));
    expect_binary128_equal(bounds[a], terms.bound(r, r, y_a), fmt::format("pair {} element a", k));
    expect_binary128_equal(bounds[b], terms.bound(r, r, y_b), fmt::format("pair {} element b", k));
  }
  // The zero element's bound is the bf16 cache's test (below 2^-20); its partner, of size 1,
  // is charged a bf16 rounding.
  EXPECT_LT(bounds[0], Wide(0x1p-20));
  EXPECT_GT(bounds[4], two_to(-8));
}

// amplitude_error under fp32-angle xPos (its comment): zeta's 5u raised to |n/s| costs
// exp(|n/s| 5u (1 + 5u)) - 1 of the amplitude A = zeta^(n/s). A query at n = 2^20 (n/s = 2048)
// on pair 63 of d = 128 (zeta = (126 + 51.2)/179.2; half layout: elements 63 and 127) is charged at least A r that: about 10^4 u,
// where everything else the bound charges there (sin/cos, products, the angle's 3u times
// |phi| = 2^20 theta_63, about 120) is a few hundred u. (Issue 51's survivors: the xPos exponent
// handed over as 0, through `family < xpos`.)
TEST(ErrorModelRows, AFloat32XposQueryIsChargedItsZetaRaisedToItsOwnPosition) {
  const Spec spec = Spec::parse("xpos(d=128,base=10000,layout=half,role=query,precision=fp32-angle)");
  const std::int64_t n = std::int64_t{1} << 20;
  const Reference<FastReal> reference(spec, n + 1);
  const std::vector<Wide> x(128, Wide(1));
  const std::vector<Wide> bounds = claimed_error_bounds(reference, Point{{n}}, x);
  const Wide power = Wide(n) / 512;
  const Wide amplitude = pow((Wide(126) + Wide(512) / 10) / (Wide(1792) / 10), power);
  const Wide r = sqrt(Wide(2));
  const Wide zeta_charge = amplitude * r * (exp(power * 5 * u * (1 + 5 * u)) - 1);
  for (const std::size_t e : {std::size_t{63}, std::size_t{127}}) {
    EXPECT_TRUE(isfinite(bounds[e])) << e;
    EXPECT_GT(bounds[e], zeta_charge) << e;
  }
}

// claimed_error_bounds' claim scale for xPos is max(A, zeta^(n/s)): the kernel forms the factor
// zeta^(-n/s) of a key before multiplying in amp, so a factor past fp16's range overflows however
// small amp makes the product. A key at n = 16000 (n/s = 31.25), pair 1 of d = 4:
// zeta = 3.6/5.6, factor zeta^-31.25, about 10^6; amp = 2^-10 brings A to about 10^3.
TEST(ErrorModelRows, AnXposKeyWhoseFactorOverflowsIsUnclaimedWhateverItsAmplitude) {
  const Spec spec = Spec::parse("xpos(d=4,base=10000,layout=half,role=key,dtype=fp16,amp=0.0009765625)");
  const std::int64_t n = 16000;
  const Wide factor = pow(Wide(36) / 56, -Wide(n) / 512);
  ASSERT_FALSE(within_claim<Wide>(factor, Wide(65504)));
  ASSERT_TRUE(within_claim<Wide>(factor * two_to(-10), Wide(65504)));
  const Reference<FastReal> reference(spec, n + 1);
  const std::vector<Wide> bounds = claimed_error_bounds(reference, Point{{n}}, std::vector<Wide>(4, Wide(0.5)));
  EXPECT_TRUE(isinf(bounds[1]) && isinf(bounds[3])) << "pair 1 (elements 1 and 3)";
}

// ggml's YaRN ends (the comment above ggml_yarn_angle_error): c = n ln x / (2 ln b) in float32,
// x = L0 / (beta 2 pi) rounding m = 3 times, +1 for a beta float32 cannot hold, +1 for L0 >= 2^24;
// ln x_f off by m u/(1 - u), each logf 2u relative, ln b exact (10000 is a float32):
//   spread = q + u (|c| + q),  q = (n e_num (1 + u) + u n |ln x| + |c| 2 e_den) / (2 ln b - 2 e_den)
// with e_num = m u/(1 - u) + 2u (|ln x| + m u/(1 - u)), e_den = 2u ln b. An end within its spread
// of an integer may floor either way, and every end the recipe may take is bounded
// (yarn_blend_error). beta_fast is chosen to put the low end c at 10 + delta.
Spec yarn_with_low_end(const char* theta, std::int64_t orig, const Wide& low_end) {
  const Wide n(64), log_base = log(Wide(10000));
  const Wide beta = Wide(orig) / (2 * boost::math::constants::pi<Wide>() * exp(low_end * 2 * log_base / n));
  return Spec::parse(fmt::format("rope(d=64,base=10000,precision=fp32-angle,theta={},scaling=yarn(factor=4,orig={},beta_fast={}))", theta, orig,
                                 decimal_text(beta)));
}

Wide ggml_end_spread(std::int64_t orig, const Wide& c) {
  const Wide n(64), log_base = log(Wide(10000));
  const int m = 3 + 1 + (orig >= (std::int64_t{1} << 24) ? 1 : 0);  // the chosen beta is no float32
  const Wide x_log_error = m * u / (1 - u), log_x = c * 2 * log_base / n;
  const Wide e_numerator = x_log_error + 2 * u * (abs(log_x) + x_log_error);
  const Wide e_denominator = 2 * u * log_base;
  const Wide q = (n * e_numerator * (1 + u) + u * n * abs(log_x) + abs(c) * 2 * e_denominator) / (2 * log_base - 2 * e_denominator);
  return q + u * (abs(c) + q);
}

// Pair 10's charge where the low end lies `share` of `spread` above 10. Floored to 9, the ramp
// at pair 10 is 1/(high - 9) (high = ceil(22.5) = 23 at L0 = 4096, ceil(51.4) = 52 at 2^24), not
// 0: the value moves by (3/4) theta / (high - 9), at least 1.7 10^-2 of it. The roundings alone
// are charged under 64u: under ggml the running product's (1 + u)^11 (1 + 2u)^10 - 1, about 31u,
// the extrapolated value's and the sum's u, and a ramp of 0 off by the low end's cast, 10 u / 13
// (under hf inv_freq's 3u and the angle's two in place of the running product). So the charge
// says which floors were taken.
Wide pair_10_charge(const char* theta, std::int64_t orig, const Wide& spread, double share) {
  return theta_recipe_error<Wide>(yarn_with_low_end(theta, orig, 10 + Wide(share) * spread), 10);
}

// 1/64 of the spread either side: one rounding of x more or fewer moves it 4.7%. (Issue 51's
// survivors: ln x recovered as c 2 / ln b / n; L0's rounding counted from 2^23, or from 2^25.)
TEST(ErrorModelRows, AGgmlYarnEndWithinItsSpreadOfAnIntegerIsChargedBothFloors) {
  const Wide both_floors = Wide(0.75) / 43;  // the smaller move, at high = 52
  for (const std::int64_t orig : {std::int64_t{4096}, (std::int64_t{1} << 24) - 1, std::int64_t{1} << 24}) {
    const Wide spread = ggml_end_spread(orig, Wide(10));
    EXPECT_GT(pair_10_charge("ggml", orig, spread, 1 - 1.0 / 64), both_floors) << "orig " << orig << ": an end just inside its spread";
    EXPECT_LT(pair_10_charge("ggml", orig, spread, 1 + 1.0 / 64), Wide(64) * u) << "orig " << orig << ": an end just outside its spread";
  }
}

// Row 62: under hf the ends are Python floats, within 2^-40 of their value (yarn_theta_error's
// comment): the low end c = 10 is charged both floors within 2^-40 10 of 10, one past it.
TEST(ErrorModelRows, AnHfYarnEndWithinTwoToTheMinusFortyOfAnIntegerIsChargedBothFloors) {
  const Wide spread = two_to(-40) * 10, both_floors = Wide(0.75) / 14;  // high = ceil(22.5) = 23
  EXPECT_GT(pair_10_charge("hf", 4096, spread, 1 - 1.0 / 64), both_floors);
  EXPECT_LT(pair_10_charge("hf", 4096, spread, 1 + 1.0 / 64), Wide(64) * u);
}

// llama3_theta_error's kept band (its comment): a wavelength far below L/high is kept, charged
// e_inv theta and nothing else, so hf llama3's theta_1 (wavelength 2 pi 500000^(1/64), about 7.7,
// against L/high = 2048) is charged exactly as without the plan: fl(p), inv_freq, the product.
// (Issue 51's survivor, row 40: the decimal cast charged (1 + u)(1 + 2^-53) - 0, which took every
// band; row 45: the plan's band misread; row 96: the angle's product rounding dropped.)
TEST(ErrorModelRows, ALlama3PairFarBelowTheHighEdgeIsChargedAsWithoutThePlan) {
  const Spec llama3 = Spec::parse("rope(d=128,base=500000,precision=fp32-angle,theta=hf,scaling=llama3(factor=8,orig=8192))");
  const Spec plain = Spec::parse("rope(d=128,base=500000,precision=fp32-angle,theta=hf)");
  expect_binary128_equal(theta_recipe_error<Wide>(llama3, 1), theta_recipe_error<Wide>(plain, 1), "theta_1");
}

// dynamic_base_error (its comment), dynamic(factor=7.3,orig=3000) at d = 96: e = 96/94; the
// largest |ln b'| at L = 2^63 is ln 10000 + e ln(1 + 7.3 2^63 / 3000); factor L rounds m = 4 times
// (7.3 is no float32; 3000 < 2^24), r = (1 + u)^4 - 1, y within
// eta = (7.3 r + u 6.3 + 2^-52 7.3)(1 + u) + u; past orig e(-ln(1 - eta)) + 2u/(1 - u) + 2^-51
// (10000 is a float32: no base cast), which exceeds at orig's u/(1 - u) + e 7.3 2^-50. The factor
// is the double nearest 7.3, as the kernel's Python float. (Issue 51's survivor: u / |f - 1|.)
TEST(ErrorModelRows, ADynamicBasesLogarithmAndItsErrorByHand) {
  const Spec spec = Spec::parse("rope(d=96,base=10000,precision=fp32-angle,theta=hf,scaling=dynamic(factor=7.3,orig=3000))");
  const Wide e = Wide(96) / 94, f(7.3);
  const Wide r = pow(1 + u, 4) - 1;
  const Wide eta = (r * f + u * (f - 1) + two_to(-52) * f) * (1 + u) + u;
  const Wide past_orig = e * -log(1 - eta) + 2 * u / (1 - u) + two_to(-51);
  const Wide at_orig = u / (1 - u) + e * f * two_to(-50);
  ASSERT_GT(past_orig, at_orig);
  const auto [largest_log_base, log_base_error] = dynamic_base_error<Wide>(spec);
  expect_binary128_equal(largest_log_base, log(Wide(10000)) + e * log(1 + f * two_to(63) / 3000), "largest |ln b'|");
  expect_binary128_equal(log_base_error, past_orig, "|ln(b'_f / b')|");
}

// The same count of roundings at orig = 2^24 - 1 and 2^24 (factor 8, a float32): 3 below, 4 from
// 2^24, where float32 no longer holds every integer.
TEST(ErrorModelRows, ADynamicOrigIsChargedItsCastFromTwoToTheTwentyFour) {
  for (const std::int64_t orig : {(std::int64_t{1} << 24) - 1, std::int64_t{1} << 24}) {
    const Spec spec = Spec::parse(fmt::format("rope(d=96,base=10000,precision=fp32-angle,theta=hf,scaling=dynamic(factor=8,orig={}))", orig));
    const int roundings = orig >= (std::int64_t{1} << 24) ? 4 : 3;
    const Wide e = Wide(96) / 94, f(8);
    const Wide eta = ((pow(1 + u, roundings) - 1) * f + u * (f - 1) + two_to(-52) * f) * (1 + u) + u;
    expect_binary128_equal(dynamic_base_error<Wide>(spec).second, e * -log(1 - eta) + 2 * u / (1 - u) + two_to(-51),
                           fmt::format("orig {}", orig));
  }
}

// ---------------------------------------------------------------------------------------------
// The checklist's rows, in its order.

// Row 8: xl takes the table horizon; its exponents are the power rule's (table_exponent), so its
// horizon is a half-layout sinusoid's of the same width.
TEST(ErrorModelRows, XlTakesTheTableHorizon) {
  const double xl = angle_horizon(Spec::parse("xl(d=8,base=10000,precision=fp32-angle)"));
  EXPECT_TRUE(std::isfinite(xl));
  EXPECT_EQ(xl, angle_horizon(Spec::parse("sinusoidal(d=8,base=10000,layout=half,precision=fp32-angle)")));
}

// Rows 12, 13, 14 (compute): ggml at d = 4 has two frequencies; the running product's growth is
// largest at the last, k = 1: (1 + u)(1 + u)(1 + 2u) - 1 (fl(p), the product, powf of the exact
// exponent 2/4 and the float32 base 10000). At phi = 0 the relative term of fp32 math=compute is
// 2^-50 + 4 2^-52 (the amplitude) + 2^-51 + 2u (cos/sin) + 2u (the products); the horizon is
// (1 - that) / growth. A third frequency would grow it further and pull the horizon in.
TEST(ErrorModelRows, AGgmlHorizonIsSetByItsLastFrequency) {
  const Spec spec = Spec::parse("rope(d=4,base=10000,precision=fp32-angle,theta=ggml)");
  const Wide at_zero = two_to(-50) + 4 * two_to(-52) + two_to(-51) + 4 * u;
  const Wide horizon = (1 - at_zero) / ((1 + u) * (1 + u) * (1 + 2 * u) - 1);
  EXPECT_NEAR(angle_horizon(spec), static_cast<double>(horizon), static_cast<double>(horizon) * 0x1p-60);
}

// Row 14 (storage): under math=storage the relative term is held (1 + p) + p, p = u_s + u_c (1 + u_s)
// (rotary_bound_terms), so it grows by growth (1 + p) per radian. rope(d=2) in bf16: theta_0 = 1
// under the exact recipe, growth u; held at 0 is 2^-50 + 4 2^-52 + 2^-51 + 2u.
TEST(ErrorModelRows, AStorageMathHorizonGrowsByTheProductsRounding) {
  const Spec spec = Spec::parse("rope(d=2,base=10000,dtype=bf16,precision=fp32-angle,math=storage)");
  const Wide p = two_to(-8) + u * (1 + two_to(-8));
  const Wide held = two_to(-50) + 4 * two_to(-52) + two_to(-51) + 2 * u;
  const Wide horizon = (1 - (held * (1 + p) + p)) / (u * (1 + p));
  EXPECT_NEAR(angle_horizon(spec), static_cast<double>(horizon), static_cast<double>(horizon) * 0x1p-60);
}

// Rows 15, 27, 29: T5 and Shaw indices and a learned table at amp 1 are moved, not computed: B = 0
// (the comment atop error_model.hpp).
TEST(ErrorModelRows, IndicesAndAnUnscaledGatherAreBoundExactly) {
  for (const char* text : {"t5(buckets=32,max_distance=128)", "shaw(k=4)"}) {
    const std::vector<Wide> bounds = ClaimedBounds(Spec::parse(text), 64)(Point{{3, 40}}, {});
    ASSERT_FALSE(bounds.empty()) << text;
    for (const Wide& bound : bounds) EXPECT_EQ(bound, Wide(0)) << text;
  }
  const std::vector<Wide> table{Wide(0.1), Wide(-3), Wide(7), Wide(1e30)};
  const std::vector<Wide> gathered = ClaimedBounds(Spec::parse("learned(d=2,rows=2,dtype=fp16)"), 2)(Point{{1}}, table);
  ASSERT_EQ(gathered.size(), 2u);
  for (const Wide& bound : gathered) EXPECT_EQ(bound, Wide(0));
}

// Row 23: each sinusoid entry is charged sinusoid_bound at its own frequency's growth, the lone
// column of an odd interleaved table (d = 5) at the frequency after the pairs' (theta = 10000^(-4/5)).
// Under the exact recipe theta_0 = 1 grows by u and the others by 3 roundings: an entry charged
// another's growth moves by |phi| 2u.
TEST(ErrorModelRows, EachSinusoidEntryIsChargedItsOwnFrequencysGrowth) {
  const Spec spec = Spec::parse("sinusoidal(d=5,base=10000,layout=interleaved,precision=fp32-angle)");
  const std::int64_t p = 1000;
  const Reference<FastReal> reference(spec, p + 1);
  const std::vector<Wide> bounds = claimed_error_bounds(reference, Point{{p}}, {});
  ASSERT_EQ(bounds.size(), 5u);
  for (int k = 0; k < 3; ++k) {
    const Wide angle = Wide(p) * pow(Wide(10000), Wide(-2 * k) / 5);
    const Wide growth = angle_growth<Wide>(spec, k);
    const auto sine = static_cast<std::size_t>(2 * k);
    expect_binary128_equal(bounds[sine], sinusoid_bound<Wide>(spec, angle, sin(angle), growth), fmt::format("sin of frequency {}", k));
    if (k < 2)
      expect_binary128_equal(bounds[sine + 1], sinusoid_bound<Wide>(spec, angle, cos(angle), growth), fmt::format("cos of frequency {}", k));
  }
}

// Row 25: a masked causal bias (key j = 10 after query i = 3) is -inf in every kernel: B = 0.
TEST(ErrorModelRows, AMaskedAlibiBiasMustBeIdentical) {
  const std::vector<Wide> bounds = ClaimedBounds(Spec::parse("alibi(heads=4,mode=causal)"), 16)(Point{{3, 10}}, {});
  ASSERT_EQ(bounds.size(), 4u);
  for (const Wide& bound : bounds) EXPECT_EQ(bound, Wide(0));
}

// Rows 24, 26: heads = 8 has slopes 2^-(h+1). At distance 130000 head 0's bias is 65000, within
// 2^-6 of fp16's largest (65504 / (1 + 2^-6) = 64496): unclaimed. Head 1's 32500 is charged
// |b| (2^-51 + u_c + u_s) + eta_c + eta_s (exact-angle, fp16 computing in float32).
TEST(ErrorModelRows, AnAlibiBiasNearTheStorageLimitIsUnclaimed) {
  const std::vector<Wide> bounds = ClaimedBounds(Spec::parse("alibi(heads=8,dtype=fp16)"), 130001)(Point{{130000, 0}}, {});
  ASSERT_EQ(bounds.size(), 8u);
  EXPECT_TRUE(isinf(bounds[0]));
  expect_binary128_equal(bounds[1], Wide(32500) * (two_to(-51) + u + two_to(-11)) + two_to(-149) + two_to(-24), "head 1");
}

// Row 28: learned(amp=0.5, fp16): an entry of exact value 65500 lies within 2^-6 of fp16's
// largest: unclaimed. The entry 0.5 2 = 1 is amplified_entry_bound's (its comment): A = 0.5 is a
// float32 (e_A = 0), held error 0, product 1: u_c 1 + eta_c, then the store u_s (1 (1 + u_c) +
// eta_c) + eta_s.
TEST(ErrorModelRows, AScaledLearnedEntryPastTheStorageLimitIsUnclaimed) {
  const std::vector<Wide> table{Wide(131000), Wide(2), Wide(1), Wide(3)};
  const std::vector<Wide> bounds = ClaimedBounds(Spec::parse("learned(d=2,rows=2,amp=0.5,dtype=fp16)"), 2)(Point{{0}}, table);
  ASSERT_EQ(bounds.size(), 2u);
  EXPECT_TRUE(isinf(bounds[0]));
  expect_binary128_equal(bounds[1], u + two_to(-149) + two_to(-11) * (1 + u + two_to(-149)) + two_to(-24), "the entry 1");
}

// Rows 39, 42: a pair far past L/low (theta_63: wavelength about 2.6 10^6 against 8192) is
// divided, charged ((1 + e_inv)(1 + u) f_in - 1) theta/f, f_in = 1/(1 - u) for a factor float32
// cannot hold: exactly hf's linear(factor=4.1) at the same pair, which divides the same inv_freq
// by the same float32 factor.
TEST(ErrorModelRows, ALlama3PairFarPastTheLowEdgeIsChargedAsLinearDivision) {
  const Spec llama3 = Spec::parse("rope(d=128,base=500000,precision=fp32-angle,theta=hf,scaling=llama3(factor=4.1,orig=8192))");
  const Spec linear = Spec::parse("rope(d=128,base=500000,precision=fp32-angle,theta=hf,scaling=linear(factor=4.1))");
  expect_binary128_equal(theta_recipe_error<Wide>(llama3, 63), theta_recipe_error<Wide>(linear, 63), "theta_63");
}

// Row 43: a wavelength within its own error e_wl (a few u) of L/low may be smoothed as well as
// divided. theta_33's wavelength wl = 2 pi 500000^(33/64), about 5454; low = L (1 + 2u) / wl puts
// L/low 2u below it. Smoothing there takes s = (L/wl - low)/(high - low), about -1.2u, which moves
// the frequency from theta/f by |s| theta (1 - 1/f): |s| (f - 1) of the plan's theta/f, about
// 8.4u, more than dividing costs (e_inv + u, 4u). The charge, position and product aside, is at
// least that distance.
TEST(ErrorModelRows, ALlama3WavelengthAtTheLowEdgeIsChargedTheSmoothedBandToo) {
  const Wide theta = pow(Wide(500000), Wide(-66) / 128), wl = 2 * boost::math::constants::pi<Wide>() / theta;
  const Wide low = Wide(8192) * (1 + 2 * u) / wl;
  const Spec spec = Spec::parse(fmt::format(
      "rope(d=128,base=500000,precision=fp32-angle,theta=hf,scaling=llama3(factor=8,orig=8192,low={}))", decimal_text(low)));
  const Wide s = (Wide(8192) / wl - low) / (4 - low);
  const Wide distance = abs(s) * 7;
  ASSERT_GT(distance, 6 * u);
  const Wide blended = (1 + theta_recipe_error<Wide>(spec, 33)) / ((1 + u) * (1 + u)) - 1;
  EXPECT_GT(blended, distance);
}

// Row 61: yarn under hf at a pair past the high end (k = 31 of d = 64: the ramp
// (31 - 10)/(23 - 10) clamps to 1 whatever its rounding) is fully interpolated: value X/f exactly
// the plan's, share and extrapolation errors 0, the blend charged X/f (e_i (1 + u)) plus the sum's
// u, relative (1 + e_i)(1 + u) - 1 then (1 + u) + u, + 2^-60 for 0.001 (yarn_blend_error). e_i is
// inv (1 + u) f_in - 1 (yarn_theta_error), f_in = 1/(1 - u) for 4.1; inv = (1 + u)/(1 - 2u) at
// k = 31 (62/64 and 10000 are float32: powf's operands exact). The angle: fl(p) and the product.
TEST(ErrorModelRows, AnInterpolatedYarnPairIsChargedItsFactorsCast) {
  for (const char* factor : {"4", "4.1"}) {
    const Spec spec = Spec::parse(fmt::format("rope(d=64,base=10000,precision=fp32-angle,theta=hf,scaling=yarn(factor={},orig=4096))", factor));
    const Wide factor_in = std::string(factor) == "4" ? Wide(1) : 1 / (1 - u);
    const Wide inv = (1 + u) / (1 - 2 * u);
    const Wide blend = ((inv * (1 + u) * factor_in) * (1 + u) - 1) * (1 + u) + u + two_to(-60);
    expect_binary128_equal(theta_recipe_error<Wide>(spec, 31), (1 + u) * (1 + blend) * (1 + u) - 1, fmt::format("factor {}", factor));
  }
}

// Rows 63, 103: ggml's YaRN at the same interpolated pair: the extrapolated angle is the running
// product, running = fl(p)'s (1 + u) times ((1 + u)(1 + 2u))^31 (powf of the exact 2/64 and
// base), and the interpolated one fl(freq_scale x) two roundings past it and the factor's cast:
// e_i = running f_in (1 + u)^2 - 1; then the blend and sum as above, no rounding after.
TEST(ErrorModelRows, AnInterpolatedGgmlYarnPairIsChargedFreqScalesRoundings) {
  for (const char* factor : {"4", "4.1"}) {
    const Spec spec = Spec::parse(fmt::format("rope(d=64,base=10000,precision=fp32-angle,theta=ggml,scaling=yarn(factor={},orig=4096))", factor));
    const Wide factor_in = std::string(factor) == "4" ? Wide(1) : 1 / (1 - u);
    const Wide running = (1 + u) * pow((1 + u) * (1 + 2 * u), 31);
    const Wide e_interpolated = running * factor_in * (1 + u) * (1 + u) - 1;
    expect_binary128_equal(theta_recipe_error<Wide>(spec, 31), ((1 + e_interpolated) * (1 + u) - 1) * (1 + u) + u + two_to(-60),
                           fmt::format("factor {}", factor));
  }
}

// Row 77: pow_table_theta_error at d = 8, base 16, k = 1 (its comment): the exponent 2/8 is a
// float32, the base's cast (u + 2^-52)/(1 - u) moves b^(-1/4) by exp(that / 4), powf 1/(1 - 2u),
// then fl(p), the reciprocal and the product.
TEST(ErrorModelRows, AHfTablesBaseCastByHand) {
  const Spec spec = Spec::parse("sinusoidal(d=8,base=16,layout=half,precision=fp32-angle,theta=hf)");
  const Wide power = exp((u + two_to(-52)) / (1 - u) / 4) / (1 - 2 * u);
  expect_binary128_equal(theta_recipe_error<Wide>(spec, 1), (1 + u) * power * (1 + u) * (1 + u) - 1, "theta_1");
}

// Rows 79, 80: NumPy's float64 table (float64_table_theta_error's comment): theta_0 = 1 and p exact:
// 0. theta_1 at d = 8 (e = 1/4, x = ln(10000)/4, u = 2^-53): exp(4 x u + e u)(1 + 2u)(1 + u)^2 - 1.
TEST(ErrorModelRows, AFloat64TablesFrequenciesByHand) {
  const Spec spec = Spec::parse("sinusoidal(d=8,base=10000,layout=half,precision=fp64-angle)");
  EXPECT_EQ(float64_table_theta_error<Wide>(spec, 0), Wide(0));
  const Wide u64 = two_to(-53), x = log(Wide(10000)) / 4;
  expect_binary128_equal(float64_table_theta_error<Wide>(spec, 1),
                         exp(4 * x * u64 + u64 / 4) * (1 + 2 * u64) * (1 + u64) * (1 + u64) - 1, "theta_1");
}

// Rows 83, 84: mlx's table at d = 64 (h = 32 pairs), base 10000, k = 31: t = 31/31 = 1,
// Lambda = ln 10000, dC = Lambda (u + 2^-52)(1 + u) + 2^-53 (1 + u), C_f at most Lambda + dC,
// one_zero at most u (1 + u); A = one_zero C_f u + u (1 + u) C_f + t dC, the exponent missed by
// (1 + u) A + u t Lambda; exp 2u, fl(p) and the product u each (mlx_table_theta_error's comment).
TEST(ErrorModelRows, AnMlxTablesLastFrequencyByHand) {
  const Spec spec = Spec::parse("sinusoidal(d=64,base=10000,layout=half,freq=geometric,precision=fp32-angle,theta=mlx)");
  const Wide lambda = log(Wide(10000));
  const Wide d_c = lambda * (u + two_to(-52)) * (1 + u) + two_to(-53) * (1 + u), c_f = lambda + d_c;
  const Wide one_zero = u * (1 + u);
  const Wide before_sum = one_zero * c_f * u + u * (1 + u) * c_f + d_c;
  const Wide exponent_error = (1 + u) * before_sum + u * lambda;
  expect_binary128_equal(theta_recipe_error<Wide>(spec, 31), (1 + u) * exp(exponent_error) * (1 + 2 * u) * (1 + u) - 1, "theta_31");
}

// Row 87: proportional divides theta_i by its factor as linear does (docs/specs.md): the same
// charge at a rotating pair, theta_0's included (the factor 3 rounds 1/3).
TEST(ErrorModelRows, ProportionalIsChargedAsLinear) {
  for (const int k : {0, 1}) {
    const Wide proportional = theta_recipe_error<Wide>(
        Spec::parse("rope(d=8,base=10000,precision=fp32-angle,theta=hf,scaling=proportional(factor=3,pairs=2))"), k);
    const Wide linear = theta_recipe_error<Wide>(Spec::parse("rope(d=8,base=10000,precision=fp32-angle,theta=hf,scaling=linear(factor=3))"), k);
    expect_binary128_equal(proportional, linear, fmt::format("theta_{}", k));
  }
}

// Row 88: a base float32 cannot hold (12345.678) has ln off by u/(1 - u), which moves b^(-e) by
// exp(e u/(1 - u)); 12345.5 is a float32. At d = 8, k = 1 (e = 1/4, exact in float32) that is the
// whole difference between the two error factors.
TEST(ErrorModelRows, ABaseFloat32CannotHoldMovesThetaByItsLogarithmsRounding) {
  const auto factor = [](const char* base, int k) {
    return 1 + theta_recipe_error<Wide>(Spec::parse(fmt::format("rope(d=8,base={},precision=fp32-angle,theta=hf)", base)), k);
  };
  expect_binary128_equal(factor("12345.678", 1) / factor("12345.5", 1), exp(u / (1 - u) / 4), "theta_1");
}

// Row 90: each axis of rope2d(d=80) is a rope of n = d/2 = 40 dims.
TEST(ErrorModelRows, EachAxisOfRope2dIsChargedAsARopeOfHalfItsWidth) {
  const Spec rope2d = Spec::parse("rope2d(d=80,base=10000,precision=fp32-angle,theta=hf)");
  const Spec rope = Spec::parse("rope(d=40,base=10000,precision=fp32-angle,theta=hf)");
  for (int k = 0; k < 20; ++k) EXPECT_EQ(theta_recipe_error<Wide>(rope2d, k), theta_recipe_error<Wide>(rope, k)) << k;
}

// Row 94 (xl): xl's table under hf is pow_table_theta_error's: at d = 16, k = 1 the exponent
// 2/16 is a float32, the base's cast (u + 2^-52)/(1 - u) is charged though 10000 is a float32
// (the rotary recipe charges none), powf 1/(1 - 2u), fl(p), the reciprocal and the product.
TEST(ErrorModelRows, AnXlTableUnderHfIsChargedItsBasesCast) {
  const Spec spec = Spec::parse("xl(d=16,base=10000,precision=fp32-angle,theta=hf)");
  const Wide power = exp((u + two_to(-52)) / (1 - u) / 8) / (1 - 2 * u);
  expect_binary128_equal(theta_recipe_error<Wide>(spec, 1), (1 + u) * power * (1 + u) * (1 + u) - 1, "theta_1");
}

// Row 104: ggml's custom(factors=...) divides by the float32 factor: 1.1 rounds, 1.5 does not,
// so pair 0's error factors differ by exactly 1/(1 - u).
TEST(ErrorModelRows, AGgmlFreqFactorFloat32CannotHoldIsChargedItsCast) {
  const auto factor = [](const char* first) {
    return 1 + theta_recipe_error<Wide>(
                   Spec::parse(fmt::format("rope(d=4,base=10000,precision=fp32-angle,theta=ggml,scaling=custom(factors=[{},1]))", first)), 0);
  };
  expect_binary128_equal(factor("1.1") / factor("1.5"), 1 / (1 - u), "pair 0");
}

// Rows 108, 109: exp-log's theta_0 = exp(0) = 1: fl(p) alone. theta_1 at d = 8 (m = 2, a power of
// two: the product exact; D = 8): c's error (1 + u)(1 + 2^-52)(1 + 2^-53)(1 + 2^-52 / ln b), x = 2 ln b / 8,
// expf 2u, fl(p) and the angle's product.
TEST(ErrorModelRows, AnExpLogTablesFrequenciesByHand) {
  const Spec spec = Spec::parse("sinusoidal(d=8,base=10000,layout=half,precision=fp32-angle,theta=exp-log)");
  EXPECT_EQ(theta_recipe_error<Wide>(spec, 0), u);
  const Wide log_base = log(Wide(10000)), x = 2 * log_base / 8;
  const Wide step_error = (1 + u) * (1 + two_to(-52)) * (1 + two_to(-53)) * (1 + two_to(-52) / log_base);
  expect_binary128_equal(theta_recipe_error<Wide>(spec, 1), (1 + u) * exp(x * (step_error - 1)) * (1 + 2 * u) * (1 + u) - 1, "theta_1");
}

// Rows 115, 116: exact-angle and lowp-cache form p theta to 106 bits: growth 2^-100 exactly. A
// table's sin/cos is 2^-52, NumPy's 2^-50 under fp64-angle.
TEST(ErrorModelRows, TheClassConstantsOfAngleAndTable) {
  for (const char* text : {"rope(d=8,base=10000)", "rope(d=8,base=10000,precision=lowp-cache,dtype=bf16)"})
    EXPECT_EQ(angle_growth<Wide>(Spec::parse(text), 3), two_to(-100)) << text;
  EXPECT_EQ(table_sin_cos_error<Wide>(Spec::parse("sinusoidal(d=8,base=10000,layout=half,precision=fp32-angle)")), two_to(-52));
  EXPECT_EQ(table_sin_cos_error<Wide>(Spec::parse("sinusoidal(d=8,base=10000,layout=half,precision=fp64-angle)")), two_to(-50));
}

// Rows 117-119, 121, 123: transformers rounds the attention factor in float32 only under
// fp32-angle and a LongRoPE or YaRN plan; a given factor rounds unless it is 1; YaRN's mscale
// ratio is exactly 1 where mscale == mscale_all_dim. Where it rounds: 2u; elsewhere 0.
TEST(ErrorModelRows, TheAttentionFactorRoundsOnlyUnderTransformersPlans) {
  const auto spec = [](const char* precision, const char* scaling) {
    return Spec::parse(fmt::format("rope(d=8,base=10000,precision={},scaling={})", precision, scaling));
  };
  EXPECT_FALSE(attention_in_float32(spec("exact-angle", "yarn(factor=4,orig=64)")));
  EXPECT_FALSE(attention_in_float32(spec("fp32-angle,theta=hf", "linear(factor=4)")));
  EXPECT_TRUE(attention_in_float32(spec("fp32-angle,theta=hf", "yarn(factor=4,orig=64,attention=1.25)")));
  EXPECT_FALSE(attention_in_float32(spec("fp32-angle,theta=hf", "yarn(factor=4,orig=64,attention=1)")));
  EXPECT_FALSE(attention_in_float32(spec("fp32-angle,theta=hf", "yarn(factor=4,orig=64,mscale=0.707,mscale_all_dim=0.707)")));
  EXPECT_TRUE(attention_in_float32(spec("fp32-angle,theta=hf", "yarn(factor=4,orig=64,mscale=0.707,mscale_all_dim=1)")));
  EXPECT_EQ(attention_error<Wide>(spec("fp32-angle,theta=hf", "yarn(factor=4,orig=64)")), 2 * u);
  EXPECT_EQ(attention_error<Wide>(spec("fp32-angle,theta=hf", "linear(factor=4)")), Wide(0));
}

// Rows 122, 123: ggml's mscale = fl(1 + fl(0.1f logf(fl(1/freq_scale)))) and the product by cos
// (attention_error's comment), factor 4 (a float32: j = 2 roundings of 1/freq_scale):
// e_r = 2u/(1 - u), e_log = e_r + 2u (ln 4 + e_r), 0.1 (e_log + (ln 4 + e_log)((1 + u)^2 - 1)) for
// 0.1f and its product, then the sum's u relative to mscale = 1 + 0.1 ln 4, and the product's u.
// Factor 1 leaves nothing to round.
TEST(ErrorModelRows, GgmlsYarnAttentionFactorByHand) {
  const auto spec = [](const char* factor) {
    return Spec::parse(fmt::format("rope(d=8,base=10000,precision=fp32-angle,theta=ggml,scaling=yarn(factor={},orig=64))", factor));
  };
  EXPECT_EQ(attention_error<Wide>(spec("1")), Wide(0));
  const Wide log_factor = log(Wide(4)), tenth(0.1);  // 0.1 as the double the code writes
  const Wide e_reciprocal = 2 * u / (1 - u);
  const Wide e_log = e_reciprocal + 2 * u * (log_factor + e_reciprocal);
  const Wide e_tenth = tenth * (e_log + (log_factor + e_log) * ((1 + u) * (1 + u) - 1));
  const Wide mscale = 1 + tenth * log_factor;
  expect_binary128_equal(attention_error<Wide>(spec("4")), (e_tenth + u * (mscale + e_tenth)) / mscale * (1 + u) + u, "factor 4");
}

// Rows 124-126: the amplitude in double is charged (|ln a| + 4) 2^-52: 7 2^-52 at ln a = 3. An
// fp32-angle xPos adds exp(|n/s| 5u (1 + 5u)) - 1 for zeta's 5u and pow's ulp, 2u, keys a second
// pow's 2u (amplitude_error's comment): at n = 1, s = 512.
TEST(ErrorModelRows, AnAmplitudesChargeByHand) {
  EXPECT_EQ(amplitude_error<Wide>(Spec::parse("rope(d=8,base=10000)"), Wide(3), Wide(0)), 7 * two_to(-52));
  const Wide power = Wide(1) / 512, raised = exp(power * 5 * u * (1 + 5 * u)) - 1;
  for (const char* role : {"query", "key"}) {
    const Spec spec = Spec::parse(fmt::format("xpos(d=8,base=10000,role={},precision=fp32-angle)", role));
    const Wide pows = std::string(role) == "key" ? 4 * u : 2 * u;
    expect_binary128_equal(amplitude_error<Wide>(spec, Wide(0), power), 4 * two_to(-52) + raised + pows, role);
  }
}

// Rows 128-131, 134, 136, 137, 140: rotary_bound_terms' fields at phi = 0 (its comment). fp16
// computes in float32: u_c = 2^-24, eta_c = 2^-149; u_s = 2^-11, eta_s = 2^-24. held = 2^-50
// (the angle) + 4 2^-52 (the amplitude) + 2^-51 (sin, cos) + 2 u_c (their rounding);
// math=compute: relative held + 2 u_c, per_norm 3 2^-1074 + eta_c, absolute eta_c, final u_s + u_c,
// store_absolute eta_s, largest 65504. math=storage: p = u_s + u_c (1 + u_s), relative held (1 + p)
// + p, per_norm and absolute times (1 + p), absolute + eta_s.
TEST(ErrorModelRows, RotaryBoundTermsFieldsByHand) {
  const Wide u_s = two_to(-11), eta_c = two_to(-149), eta_s = two_to(-24);
  const Wide held = two_to(-50) + 4 * two_to(-52) + two_to(-51) + 2 * u;
  const Wide per_norm = 3 * two_to(-1074) + eta_c;
  const RotaryBoundTerms<Wide> compute = rotary_bound_terms<Wide>(Spec::parse("rope(d=8,base=10000,dtype=fp16)"), Wide(0), Wide(0), Wide(0));
  EXPECT_EQ(compute.relative, held + 2 * u);
  EXPECT_EQ(compute.per_norm, per_norm);
  EXPECT_EQ(compute.absolute, eta_c);
  EXPECT_EQ(compute.final, u_s + u);
  EXPECT_EQ(compute.store_absolute, eta_s);
  EXPECT_EQ(compute.largest, Wide(65504));
  const RotaryBoundTerms<Wide> storage =
      rotary_bound_terms<Wide>(Spec::parse("rope(d=8,base=10000,dtype=fp16,math=storage)"), Wide(0), Wide(0), Wide(0));
  const Wide p = u_s + u * (1 + u_s);
  expect_binary128_equal(storage.relative, held * (1 + p) + p, "relative");
  expect_binary128_equal(storage.per_norm, per_norm * (1 + p), "per_norm");
  expect_binary128_equal(storage.absolute, eta_c * (1 + p) + eta_s, "absolute");
  EXPECT_EQ(storage.final, u_s + u);
  // Next to a float32 eta_c the 3 2^-1074 of the amplitude chain vanish in binary128; in fp64,
  // where eta_c = 2^-1074, per_norm is 4 2^-1074 exactly.
  EXPECT_EQ(rotary_bound_terms<Wide>(Spec::parse("rope(d=8,base=10000,dtype=fp64)"), Wide(0), Wide(0), Wide(0)).per_norm, 4 * two_to(-1074));
}

// Row 112: the double screens take each binary128 term rounded to the nearest double, field by
// field (fp16's terms at phi = 1: every field differs from the others).
TEST(ErrorModelRows, EachTermRoundsToItsOwnDouble) {
  const RotaryBoundTerms<Wide> wide = rotary_bound_terms<Wide>(Spec::parse("rope(d=8,base=10000,dtype=fp16,math=storage)"), Wide(1), Wide(0), u);
  const RotaryBoundTerms<double> rounded = rounded_to_double(wide);
  EXPECT_EQ(rounded.relative, static_cast<double>(wide.relative));
  EXPECT_EQ(rounded.per_norm, static_cast<double>(wide.per_norm));
  EXPECT_EQ(rounded.absolute, static_cast<double>(wide.absolute));
  EXPECT_EQ(rounded.final, static_cast<double>(wide.final));
  EXPECT_EQ(rounded.store_absolute, static_cast<double>(wide.store_absolute));
  EXPECT_EQ(rounded.largest, static_cast<double>(wide.largest));
}

// Rows 146, 147: amp's rounding (amplitude_rounding's comment) is the double nearest A, rounded to
// the compute format: in fp64 the double itself, |double(0.1) - 0.1| / 0.1 against the exact
// decimal in binary128; and a double Real, whose amplitude_of is that double, adds its 2^-52:
// 2^-52 alone for A = 0.5, which every format holds.
TEST(ErrorModelRows, AnAmplitudesRoundingByHand) {
  const Wide tenth("0.1");
  EXPECT_EQ(amplitude_rounding<Wide>(Spec::parse("learned(d=2,rows=1,amp=0.1,dtype=fp64)")), abs(Wide(0.1) - tenth) / tenth);
  EXPECT_EQ(amplitude_rounding<double>(Spec::parse("learned(d=2,rows=1,amp=0.5)")), 0x1p-52);
}

// Row 133: transformers' float32 attention factor adds its 2u (attention_error) to held, and
// nothing else changes between hf YaRN of factor 4 and a plain rope at phi = 0, growth 0.
TEST(ErrorModelRows, ARoundedAttentionFactorIsChargedInTheRelativeTerm) {
  const auto relative = [](const char* scaling) {
    return rotary_bound_terms<Wide>(Spec::parse(fmt::format("rope(d=8,base=10000,precision=fp32-angle,theta=hf{})", scaling)), Wide(0), Wide(0),
                                    Wide(0))
        .relative;
  };
  EXPECT_EQ(relative(",scaling=yarn(factor=4,orig=64)") - relative(""), 2 * u);
}

// Row 151: within_claim keeps 2^-6 of the storage range: 65504 (1 - 2^-7) is past it
// ((1 - 2^-7)(1 + 2^-6) > 1), 65504 (1 - 2^-5) inside.
TEST(ErrorModelRows, TheClaimStopsTwoToTheMinusSixShortOfTheLargestValue) {
  EXPECT_FALSE(within_claim<Wide>(Wide(65504) * (1 - two_to(-7)), Wide(65504)));
  EXPECT_TRUE(within_claim<Wide>(Wide(65504) * (1 - two_to(-5)), Wide(65504)));
}

// Rows 153-157: sinusoid_bound (its comment). Under the exact recipe theta_0 grows by u: at
// |phi| = 2^24 the angle term alone is 1, unconstrained. amp = 65000 is past fp16's claim. An
// fp16 table at amp 1, phi = 0: before = 2^-50 + 2^-52, final = u_s + u_c, B = before (1 + final)
// + final |y| + eta_c + eta_s. amp = 0.5 in float32: cos held in float32, error
// before (1 + u) + u |cos| + eta_c, then amplified_entry_bound with A = 0.5 exact:
// A held + u A (|y|/A + held) + eta_c.
TEST(ErrorModelRows, SinusoidBoundsByHand) {
  const Spec plain = Spec::parse("sinusoidal(d=8,base=10000,layout=half,precision=fp32-angle)");
  EXPECT_TRUE(isinf(sinusoid_bound<Wide>(plain, two_to(24), Wide(0.5), u)));
  EXPECT_TRUE(isinf(sinusoid_bound<Wide>(Spec::parse("sinusoidal(d=8,base=10000,layout=half,amp=65000,dtype=fp16)"), Wide(0), Wide(1), u)));
  const Wide before = two_to(-50) + two_to(-52);
  const Wide final = two_to(-11) + u;
  expect_binary128_equal(sinusoid_bound<Wide>(Spec::parse("sinusoidal(d=8,base=10000,layout=half,dtype=fp16)"), Wide(0), Wide(1), u),
                         before * (1 + final) + final + two_to(-149) + two_to(-24), "fp16, amp 1");
  // Next to fp16's eta_s = 2^-24 the float32 eta_c vanishes in binary128; a bf16 entry of 0 keeps
  // every term exactly (they span 2^-50 to 2^-149, within binary128's 113 bits).
  const Wide bf16_final = two_to(-8) + u;
  EXPECT_EQ(sinusoid_bound<Wide>(Spec::parse("sinusoidal(d=8,base=10000,layout=half,dtype=bf16)"), Wide(0), Wide(0), u),
            before * (1 + bf16_final) + two_to(-149) + two_to(-133));
  const Wide held = before * (1 + u) + u + two_to(-149);
  expect_binary128_equal(sinusoid_bound<Wide>(Spec::parse("sinusoidal(d=8,base=10000,layout=half,amp=0.5)"), Wide(0), Wide(0.5), u),
                         Wide(0.5) * held + u * Wide(0.5) * (1 + held) + two_to(-149), "amp 0.5");
}

// Rows 161, 163-165: ALiBi under exact-angle in float32: |b| (2^-51 + u_c + u_s), absolute eta_c +
// eta_s. In bf16 under math=storage: the slope's 2^-51, then (1 + u_m) for it, the distance's u
// (float32) and u_m, the product's u_m. Under math=bf16 the absolute adds bf16's spacing 2^-133.
// An fp32-angle exact slope that is a power of two (heads = 8, head 0: 2^-1) is exact: in bf16
// math=storage (1 + u_m)^3 (1 + u) - 1.
TEST(ErrorModelRows, AlibiStorageTermsByHand) {
  const Wide u_m = two_to(-8);
  EXPECT_EQ(alibi_bound_terms<Wide>(Spec::parse("alibi(heads=8)"), 0).relative, two_to(-51) + 2 * u);
  expect_binary128_equal(alibi_bound_terms<Wide>(Spec::parse("alibi(heads=8,dtype=bf16,math=storage)"), 0).relative,
                         (1 + two_to(-51)) * (1 + u_m) * (1 + u) * (1 + u_m) * (1 + u_m) - 1, "exact-angle bf16");
  EXPECT_EQ(alibi_bound_terms<Wide>(Spec::parse("alibi(heads=8,math=bf16)"), 0).absolute, two_to(-149) + two_to(-149) + two_to(-133));
  expect_binary128_equal(alibi_bound_terms<Wide>(Spec::parse("alibi(heads=8,dtype=bf16,precision=fp32-angle,math=storage)"), 0).relative,
                         pow(1 + u_m, 3) * (1 + u) - 1, "power-of-two slope in bf16");
}

// Rows 166-169, 171, 172: fp32-angle slopes for heads = 12 (c = 8): head 0 takes 2^(-8/8), a power
// of two; head 8 the 2c series' k = 1, 2^(-1/2). The store adds (1 + u) + u (float32).
//   exact  head 0 exact, distance u, product exact: u; head 8: slope u, distance u, product u.
//   mpt    head 8: slope (1 + 2u)(1 + u) - 1, distance and product u.
//   bloom  head 0: base 2^-1 exact (8/8 whole), slope 2u; head 8: base 2^(-1/2) charged
//          (1 + u)(1 + 2^-52) - 1, raised to k = 1, pow's 2u; distance and product u.
TEST(ErrorModelRows, Float32AlibiSlopesByHand) {
  const auto relative = [](const char* slopes, int head) {
    return alibi_bound_terms<Wide>(Spec::parse(fmt::format("alibi(heads=12,precision=fp32-angle,slopes={})", slopes)), head).relative;
  };
  const auto stored = [](const Wide& before) { return before * (1 + u) + u; };
  const Wide base_cast = (1 + u) * (1 + two_to(-52)) - 1;
  expect_binary128_equal(relative("exact", 0), stored(u), "exact, head 0");
  expect_binary128_equal(relative("exact", 8), stored(pow(1 + u, 3) - 1), "exact, head 8");
  expect_binary128_equal(relative("mpt", 8), stored((1 + 2 * u) * (1 + u) * (1 + u) * (1 + u) - 1), "mpt, head 8");
  expect_binary128_equal(relative("bloom", 0), stored((1 + 2 * u) * (1 + u) * (1 + u) - 1), "bloom, head 0");
  expect_binary128_equal(relative("bloom", 8), stored((1 + base_cast) * (1 + 2 * u) * (1 + u) * (1 + u) - 1), "bloom, head 8");
}

// Row 99: LongRoPE under hf at k = 2 of d = 8 (its comment in theta_recipe_error): the power
// 10000^(4/8) (both float32's: inv_freq (1 + u)/(1 - 2u)), the factors 1.5 and 8 float32's (no
// cast), the product by the factor and the reciprocal's rounding, then fl(p) and the angle's.
TEST(ErrorModelRows, ALongRopePairIsChargedItsProductAndTheAngles) {
  const Spec spec = Spec::parse("rope(d=8,base=10000,scaling=longrope(factor=32,orig=4096,short=[1,1,1.5,2],long=[2,4,8,16]),"
                                "precision=fp32-angle,theta=hf)");
  const Wide inv = (1 + u) / (1 - 2 * u);
  expect_binary128_equal(theta_recipe_error<Wide>(spec, 2), (1 + u) * inv * (1 + u) * (1 + u) - 1, "theta_2");
}

// Row 107: mlx's rotary recipe (theta_recipe_error's comment) at d = 8, h = 4: theta_0 = exp(0)
// is fl(p) alone; at k = 1 and k = 3 x = (k/4) ln 10000, logf's 2u, the division by h = 4 exact,
// the product by k exact for k = 1 and rounded for k = 3; y = x 1.442695f, that constant
// log2(e)(1 + lambda) off by lambda and the product's u; exp 2u; fl(p) and the angle's product.
TEST(ErrorModelRows, AnMlxRotaryFrequencyByHand) {
  const Spec spec = Spec::parse("rope(d=8,base=10000,precision=fp32-angle,theta=mlx)");
  EXPECT_EQ(theta_recipe_error<Wide>(spec, 0), u);
  const Wide lambda = abs(Wide(1.442695f) * log(Wide(2)) - 1);
  for (const int k : {1, 3}) {
    const Wide x = Wide(k) / 4 * log(Wide(10000));
    const Wide formed = (1 + 2 * u) * (k == 3 ? 1 + u : Wide(1));
    const Wide scaled = (1 + lambda) * (1 + u);
    const Wide theta = exp(x * (formed - 1) * scaled + x * (scaled - 1)) * (1 + 2 * u);
    expect_binary128_equal(theta_recipe_error<Wide>(spec, k), (1 + u) * theta * (1 + u) - 1, fmt::format("theta_{}", k));
  }
}

// Row 53: an end spread of 1 or more (or NaN) says nothing of which integers the ends floor to:
// +inf (yarn_blend_error's comment: "+inf where the spread is not finite").
TEST(ErrorModelRows, AYarnEndSpreadOfOneOrMoreIsUnconstrained) {
  const Spec spec = Spec::parse("rope(d=64,base=10000,precision=fp32-angle,theta=hf,scaling=yarn(factor=4,orig=4096))");
  const auto charge = [&](const Wide& spread) {
    return yarn_blend_error<Wide>(spec, 16, u, u, [&](const Wide&) { return spread; });
  };
  EXPECT_TRUE(isinf(charge(Wide(1))));
  EXPECT_TRUE(isinf(charge(std::numeric_limits<Wide>::quiet_NaN())));
  EXPECT_TRUE(isfinite(charge(Wide(0.5))));
}

// Rows 55-57: hf YaRN at a pair inside the ramp (yarn_blend_error's comment). d = 64, L0 = 4096:
// the ends floor(10.47) = 10 and ceil(22.51) = 23 are integers, cast exactly, so pair 16's ramp
// r = 6/13 is off only by the numerator's rounding u |16 - 10| and the quotient's, relative:
//   e_r = (6u / 13)(1 + u) + r u;  1 - r adds u (1 - r + e_r), r = 1 - (1 - r) u (r + that).
// The blend X/f r + X (1 - r), X = theta_16 within inv = (1 + u)/(1 - 2u) (16/32 and 10000 are
// float32's) and X/f one rounding more, each product one rounding:
//   e_X X/f (share's error (1 + e_i)(1 + u) + r ((1 + e_i)(1 + u) - 1)) + X (ext's error (1 + e_X)
//   (1 + u) + (1 - r)((1 + e_X)(1 + u) - 1)),  then the sum's u, all relative to the plan's value
// (the same blend, exact), + 2^-60; the angle adds fl(p) and the product.
TEST(ErrorModelRows, AnHfYarnPairInsideTheRampByHand) {
  const Spec spec = Spec::parse("rope(d=64,base=10000,precision=fp32-angle,theta=hf,scaling=yarn(factor=4,orig=4096))");
  const Wide theta = pow(Wide(10000), Wide(-32) / 64), interpolated = theta / 4;
  const Wide r = Wide(6) / 13, inv = (1 + u) / (1 - 2 * u);
  const Wide e_extrapolated = inv - 1, e_interpolated = inv * (1 + u) - 1;
  const Wide ramp_error = 6 * u / 13 * (1 + u) + r * u;
  const Wide extrapolation_error = ramp_error + u * (1 - r + ramp_error);
  const Wide share_error = extrapolation_error + u * (r + extrapolation_error);
  const Wide interpolated_rounding = (1 + e_interpolated) * (1 + u), extrapolated_rounding = (1 + e_extrapolated) * (1 + u);
  const Wide blend_error = interpolated * (share_error * interpolated_rounding + r * (interpolated_rounding - 1)) +
                           theta * (extrapolation_error * extrapolated_rounding + (1 - r) * (extrapolated_rounding - 1));
  const Wide value = interpolated * r + theta * (1 - r);
  const Wide blended = (blend_error + u * (value + blend_error)) / value + two_to(-60);
  expect_binary128_equal(theta_recipe_error<Wide>(spec, 16), (1 + u) * (1 + blended) * (1 + u) - 1, "theta_16");
}

// Rows 41, 46, 48 (sizes), 40 (cast_of): llama3's smoothed band (llama3_theta_error's comment) at
// theta_31 of d = 128, base 500000: wavelength wl = 2 pi 500000^(62/128), about 3619, between L/high
// and L/low (about 2000 and 7450 for L = 8192 and either pair of ends) by far more than its error,
// so only the smoothed band can be taken, exactly the plan's. With inv = (1 + u)/(1 - 2u) (62/128
// and 500000 are float32's) and the cast c = (1 + u)(1 + 2^-53) - 1 of each Python number that
// float32 cannot hold (2 pi; low, and high - low, for 1.1 and 4.1):
//   e_wl = (1 + u)^2 (1 + c) / (1 - e_inv) - 1, q = L/wl within e_q = (1 + u)^2 / (1 - e_wl) - 1,
//   t's error (q e_q + low c_low)(1 + u) + u |q - low|, s's t_err/(high - low) (1 + u)/(1 - c_d)
//   + |s| ((1 + u)/(1 - c_d) - 1), 1 - s adds u (|1 - s| + s_err); the two products by theta
//   within (1 + e_inv)(1 + u)^2 (divided by the float32 8) and (1 + e_inv)(1 + u); the sum's u.
// The blend error over the smoothed frequency, then fl(p) and the angle's product.
Wide llama3_smoothed_charge(const Wide& low, const Wide& high, bool ends_are_float32) {
  const Wide theta = pow(Wide(500000), Wide(-62) / 128), inv = (1 + u) / (1 - 2 * u), e_inv = inv - 1, f(8), orig(8192);
  const Wide cast = (1 + u) * (1 + two_to(-53)) - 1, cast_low = ends_are_float32 ? Wide(0) : cast;
  const Wide cast_difference = ends_are_float32 ? Wide(0) : cast;
  const Wide wl = 2 * boost::math::constants::pi<Wide>() / theta;
  const Wide e_wl = (1 + u) * (1 + u) * (1 + cast) / (1 - e_inv) - 1;
  const Wide q = orig / wl, s = (q - low) / (high - low);
  const Wide smoothed = theta * ((1 - s) / f + s);
  const Wide e_q = (1 + u) * (1 + u) / (1 - e_wl) - 1;
  const Wide t_error = (q * e_q + low * cast_low) * (1 + u) + u * abs(q - low);
  const Wide s_error = t_error / (high - low) * (1 + u) / (1 - cast_difference) + abs(s) * ((1 + u) / (1 - cast_difference) - 1);
  const Wide a = 1 - s, a_error = s_error + u * (abs(a) + s_error);
  const Wide scaled = (1 + e_inv) * (1 + u) * (1 + u), product = (1 + e_inv) * (1 + u);
  const Wide blend_error =
      (theta / f * (a_error * scaled + abs(a) * (scaled - 1)) + theta * (s_error * product + abs(s) * (product - 1))) * (1 + u) + u * abs(smoothed);
  return (1 + u) * (1 + blend_error / smoothed) * (1 + u) - 1;
}

TEST(ErrorModelRows, ALlama3SmoothedPairByHand) {
  const auto charged = [](const char* ends) {
    return theta_recipe_error<Wide>(
        Spec::parse(fmt::format("rope(d=128,base=500000,precision=fp32-angle,theta=hf,scaling=llama3(factor=8,orig=8192,{}))", ends)), 31);
  };
  expect_binary128_equal(charged("low=1,high=4"), llama3_smoothed_charge(Wide(1), Wide(4), true), "low 1, high 4");
  expect_binary128_equal(charged("low=1.1,high=4.1"), llama3_smoothed_charge(Wide(1.1), Wide(4.1), false), "low 1.1, high 4.1");
}

}  // namespace
}  // namespace peconform
