#pragma once
// The angle p*theta of an integer position and a frequency, in the two forms the precision
// classes promise, and its sine and cosine. Everything here is branch-free arithmetic on
// doubles (no fma, no libm call), inlined, so that a loop over pairs is a SIMD loop on any
// x86-64.
#include <bit>
#include <cstdint>

namespace peconform::cpu {

// A frequency as an unevaluated sum hi + lo of two doubles (about 106 bits).
struct SplitFrequency {
  double hi = 0, lo = 0;
};

// An angle as an unevaluated sum head + tail, |tail| <= ulp(head).
struct Angle {
  double head = 0, tail = 0;
};

// a*b = product + error exactly (Dekker's product, with Veltkamp's split into 26-bit halves).
struct ExactProduct {
  double product, error;
};
[[gnu::always_inline]] inline ExactProduct exact_product(double a, double b) {
  constexpr double kSplitter = 0x1p27 + 1;
  const double product = a * b;
  const double a_scaled = kSplitter * a, b_scaled = kSplitter * b;
  const double a_high = a_scaled - (a_scaled - a), a_low = a - a_high;
  const double b_high = b_scaled - (b_scaled - b), b_low = b - b_high;
  const double error = ((a_high * b_high - product) + a_high * b_low + a_low * b_high) + a_low * b_low;
  return {product, error};
}

// exact-angle: p*(hi + lo) to about 106 bits; p is an integer below 2^53 in magnitude.
inline Angle exact_angle(double position, const SplitFrequency& frequency) {
  const ExactProduct head = exact_product(position, frequency.hi);
  return {head.product, head.error + position * frequency.lo};
}

// fp32-angle: Hugging Face, Meta and ggml form float(p) * float(theta) in float32; the angle
// carries their roundings, and only its sine and cosine are then evaluated accurately.
// Both arguments are float32 values held in doubles: their product is exact in double, so
// rounding it to float32 once is exactly float32's own multiplication.
inline Angle float32_angle(double position, double frequency) {
  return {static_cast<double>(static_cast<float>(position * frequency)), 0.0};
}

// The largest |position| a kernel accepts for frequencies up to `largest_frequency`: where
// |p theta| stays below 2^50, inside sin_cos()'s range, and never past 2^40.
inline std::int64_t largest_position_for(double largest_frequency) {
  constexpr double kAngleLimit = 0x1p50, kPositionLimit = 0x1p40;
  return static_cast<std::int64_t>(largest_frequency * kPositionLimit < kAngleLimit ? kPositionLimit
                                                                                     : kAngleLimit / largest_frequency);
}

struct SinCos {
  double sin, cos;
};

// sin and cos of head + tail for |head| < 2^50, each within 2^-52 (about 1 ulp;
// precision/measured_constants.md). The quadrant k is the nearest integer to
// (head + tail) 2/pi, decided from the exact product head x (2/pi)_hi plus the next part of
// 2/pi: rounding head 2/pi alone is off by up to 0.2 near 2^50, which left the reduced argument
// outside the polynomials' interval (8 x 2^-52 measured there before). The angle is then
// reduced by pi/2 given as three doubles (Cody and Waite) with k*(pi/2)_1 taken exactly, so
// that the subtraction cancels exactly what it should; then minimax polynomials on
// [-pi/4, pi/4] (coefficients of fdlibm's __kernel_sin and __kernel_cos, Sun Microsystems,
// 1993), and the quadrant k mod 4 picks signs and swaps them.
[[gnu::always_inline]] inline SinCos sin_cos(const Angle& angle) {
  constexpr double kTwoOverPi = 0x1.45f306dc9c883p-1, kTwoOverPiLo = -0x1.6b01ec5417056p-55;
  constexpr double kHalfPi1 = 0x1.921fb54442d18p+0, kHalfPi2 = 0x1.1a62633145c07p-54, kHalfPi3 = -0x1.f1976b7ed8fbcp-110;
  constexpr double kRoundingShift = 0x1.8p52;  // adding it rounds to an integer, kept in the low bits
  const ExactProduct scaled = exact_product(angle.head, kTwoOverPi);
  const double shifted = scaled.product + kRoundingShift;
  const double nearest = shifted - kRoundingShift;
  // What the rounded product left out, to about 2^-50: it moves k by -1, 0 or 1.
  const double fraction = (scaled.product - nearest) + (scaled.error + angle.head * kTwoOverPiLo + angle.tail * kTwoOverPi);
  const double stepped = fraction + kRoundingShift;
  const double k = nearest + (stepped - kRoundingShift);
  // The low two bits of shifted are nearest mod 4; the step adds itself to them (its bits differ
  // from the shift's by exactly the step, in the same binade).
  const std::uint64_t quadrant = std::bit_cast<std::uint64_t>(shifted) + std::bit_cast<std::uint64_t>(stepped) -
                                 std::bit_cast<std::uint64_t>(kRoundingShift);
  const ExactProduct first = exact_product(k, kHalfPi1);
  const double x = (((angle.head - first.product) - first.error) - k * kHalfPi2) - k * kHalfPi3 + angle.tail;

  const double z = x * x;
  constexpr double S1 = -1.66666666666666324348e-01, S2 = 8.33333333332248946124e-03, S3 = -1.98412698298579493134e-04,
                   S4 = 2.75573137070700676789e-06, S5 = -2.50507602534068634195e-08, S6 = 1.58969099521155010221e-10;
  constexpr double C1 = 4.16666666666666019037e-02, C2 = -1.38888888888741095749e-03, C3 = 2.48015872894767294178e-05,
                   C4 = -2.75573143513906633035e-07, C5 = 2.08757232129817482790e-09, C6 = -1.13596475577881948265e-11;
  const double sine = x + (z * x) * (S1 + z * (S2 + z * (S3 + z * (S4 + z * (S5 + z * S6)))));
  const double cosine_tail = z * (z * (C1 + z * (C2 + z * (C3 + z * (C4 + z * (C5 + z * C6))))));
  const double half_z = 0.5 * z, w = 1.0 - half_z;
  const double cosine = w + (((1.0 - w) - half_z) + cosine_tail);

  // Odd quadrants swap sine and cosine; quadrants 2, 3 negate the sine, 1, 2 the cosine. Done
  // on the bits (and, or, xor, shift), which SSE2 has for 64-bit lanes, unlike compares.
  const std::uint64_t swap = 0 - (quadrant & 1u);
  const std::uint64_t sine_bits = std::bit_cast<std::uint64_t>(sine), cosine_bits = std::bit_cast<std::uint64_t>(cosine);
  const std::uint64_t s = (cosine_bits & swap) | (sine_bits & ~swap);
  const std::uint64_t c = (sine_bits & swap) | (cosine_bits & ~swap);
  return {std::bit_cast<double>(s ^ ((quadrant & 2u) << 62)), std::bit_cast<double>(c ^ (((quadrant + 1) & 2u) << 62))};
}

}  // namespace peconform::cpu
