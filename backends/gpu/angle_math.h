#ifndef PECONFORM_GPU_ANGLE_MATH_H
#define PECONFORM_GPU_ANGLE_MATH_H
/* The angle p*theta in the two forms the precision classes promise, and its sine and cosine:
 * the arithmetic of backends/cpu/angle.hpp (whose comments give the error analysis and the
 * sources) in the portable C of portable.h. One difference: the rounding error of a product is
 * taken with fma, which every GPU has in hardware, where the CPU kernels use Dekker's split to
 * stay SIMD on plain x86-64. Both are exact, so on the host the two agree bit for bit
 * (tests/backends/gpu_element_math_test.cpp). Each such product is pec_product(), which no
 * compiler may fuse into the addition that follows (portable.h). */
#include "backends/gpu/portable.h"

/* A frequency as an unevaluated sum hi + lo of two doubles (the host plan's split). */
typedef struct {
  double hi, lo;
} pec_frequency;

/* An angle as an unevaluated sum head + tail, |tail| <= ulp(head). */
typedef struct {
  double head, tail;
} pec_angle;

typedef struct {
  double sin, cos;
} pec_sin_cos_pair;

/* exact-angle: p*(hi + lo) to about 106 bits, for an integer |p| < 2^53. */
PEC_FN pec_angle pec_exact_angle(double position, pec_frequency frequency) {
  pec_angle angle;
  angle.head = pec_product(position, frequency.hi);
  angle.tail = pec_fma(position, frequency.hi, -angle.head) + position * frequency.lo;
  return angle;
}

/* fp32-angle: float32(p) * float32(theta) rounded once to float32, as Hugging Face, Meta and
 * ggml form it; both are float32 values, so their double product is exact and one conversion
 * is float32's own multiplication. */
PEC_FN pec_angle pec_float32_angle(float position, float frequency) {
  pec_angle angle;
  angle.head = (double)(float)((double)position * (double)frequency);
  angle.tail = 0.0;
  return angle;
}

/* ggml's angle for frequency index k: a float32 running product that starts at the position
 * and is multiplied by `scale` once per index, rounding each time; divided by the pair's
 * freq_factor (1 without one), multiplied by freq_scale (1 without linear or yarn), and under
 * YaRN (`yarn`) blended with the extrapolated angle by the pair's ramp_mix, each operation one
 * float32 rounding (backends/cpu/theta_recipe.cpp). */
PEC_FN pec_angle pec_ggml_angle(float position, float scale, int k, float divisor, float freq_scale, int yarn, float ramp) {
  float theta = position;
  for (int step = 0; step < k; ++step) theta *= scale;
  const float extrapolated = theta / divisor;
  const float interpolated = freq_scale * extrapolated;
  return pec_float32_angle(1.0f, yarn ? interpolated * (1.0f - ramp) + extrapolated * ramp : interpolated);
}

/* sin and cos of head + tail for |head| < 2^50, each within 2^-52: the quadrant from the exact
 * product head x (2/pi)_hi plus the next part of 2/pi, Cody and Waite's three-part pi/2, then
 * fdlibm's minimax polynomials (Sun Microsystems, 1993) on [-pi/4, pi/4]. */
PEC_FN pec_sin_cos_pair pec_sin_cos(pec_angle angle) {
  const double two_over_pi = 0x1.45f306dc9c883p-1, two_over_pi_lo = -0x1.6b01ec5417056p-55;
  const double half_pi_1 = 0x1.921fb54442d18p+0, half_pi_2 = 0x1.1a62633145c07p-54, half_pi_3 = -0x1.f1976b7ed8fbcp-110;
  const double rounding_shift = 0x1.8p52;
  const double scaled = pec_product(angle.head, two_over_pi);
  const double scaled_error = pec_fma(angle.head, two_over_pi, -scaled);
  const double shifted = scaled + rounding_shift;
  const double nearest = shifted - rounding_shift;
  const double fraction = (scaled - nearest) + (scaled_error + angle.head * two_over_pi_lo + angle.tail * two_over_pi);
  const double stepped = fraction + rounding_shift;
  const double k = nearest + (stepped - rounding_shift);
  const pec_u64 quadrant = pec_bits_of_double(shifted) + pec_bits_of_double(stepped) - pec_bits_of_double(rounding_shift);
  const double first = pec_product(k, half_pi_1);
  const double first_error = pec_fma(k, half_pi_1, -first);
  const double x = (((angle.head - first) - first_error) - k * half_pi_2) - k * half_pi_3 + angle.tail;

  const double z = x * x;
  const double S1 = -1.66666666666666324348e-01, S2 = 8.33333333332248946124e-03, S3 = -1.98412698298579493134e-04,
               S4 = 2.75573137070700676789e-06, S5 = -2.50507602534068634195e-08, S6 = 1.58969099521155010221e-10;
  const double C1 = 4.16666666666666019037e-02, C2 = -1.38888888888741095749e-03, C3 = 2.48015872894767294178e-05,
               C4 = -2.75573143513906633035e-07, C5 = 2.08757232129817482790e-09, C6 = -1.13596475577881948265e-11;
  const double sine = x + (z * x) * (S1 + z * (S2 + z * (S3 + z * (S4 + z * (S5 + z * S6)))));
  const double cosine_tail = z * (z * (C1 + z * (C2 + z * (C3 + z * (C4 + z * (C5 + z * C6))))));
  const double half_z = 0.5 * z, w = 1.0 - half_z;
  const double cosine = w + (((1.0 - w) - half_z) + cosine_tail);

  /* Odd quadrants swap sine and cosine; quadrants 2 and 3 negate the sine, 1 and 2 the cosine. */
  const int swap = (int)(quadrant & 1u);
  const pec_u64 sine_sign = (quadrant & 2u) << 62, cosine_sign = ((quadrant + 1u) & 2u) << 62;
  pec_sin_cos_pair result;
  result.sin = pec_double_of_bits(pec_bits_of_double(swap ? cosine : sine) ^ sine_sign);
  result.cos = pec_double_of_bits(pec_bits_of_double(swap ? sine : cosine) ^ cosine_sign);
  return result;
}

#endif
