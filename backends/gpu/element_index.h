#ifndef PECONFORM_GPU_ELEMENT_INDEX_H
#define PECONFORM_GPU_ELEMENT_INDEX_H
/* What one GPU thread computes of each family, given the host's plan (frequencies, slopes,
 * bucket starts from the CPU backend's plan code): which elements a rotary pair reads and
 * writes and their rotation, which sinusoid term an element of a table row holds, an ALiBi
 * bias, a T5 bucket and a Shaw index. The definitions are those of the CPU kernels
 * (backends/cpu/rotary_kernels.cpp, table_kernels.cpp, index_kernels.cpp) and DESIGN.md. */
#include "backends/gpu/angle_math.h"

/* The layout codes of the ABI (include/peconform/kernel_abi.h, PEC_LAYOUT_*). */
#define PEC_GPU_LAYOUT_INTERLEAVED 0
#define PEC_GPU_LAYOUT_HALF 1
#define PEC_GPU_LAYOUT_INTERLEAVED_TO_HALF 2

/* Pair i of a rotary slice starting at element `start` with `pairs` pairs. */
typedef struct {
  int read_a, read_b, write_a, write_b;
} pec_pair_elements;

PEC_FN pec_pair_elements pec_rotary_pair(int layout, int start, int pairs, int i) {
  pec_pair_elements elements;
  if (layout == PEC_GPU_LAYOUT_HALF) {
    elements.read_a = start + i;
    elements.read_b = start + i + pairs;
  } else {
    elements.read_a = start + 2 * i;
    elements.read_b = start + 2 * i + 1;
  }
  if (layout == PEC_GPU_LAYOUT_INTERLEAVED_TO_HALF) {
    elements.write_a = start + i;
    elements.write_b = start + i + pairs;
  } else {
    elements.write_a = elements.read_a;
    elements.write_b = elements.read_b;
  }
  return elements;
}

/* A pair's cosine and sine with the amplitude and the rotation sign folded in, in double; the
 * kernel rounds them to its compute type (and under lowp-cache to its storage type). xPos's
 * amplitude is attention * exp(p * ln(zeta_i) / scale_base), the log signed by role; other
 * families pass log_zeta = 0, which makes it the attention factor alone. */
PEC_FN pec_sin_cos_pair pec_rotary_cos_sin(pec_angle angle, double attention, double xpos_position, double log_zeta,
                                           double sign) {
  const pec_sin_cos_pair value = pec_sin_cos(angle);
  const double amplitude = log_zeta != 0.0 ? attention * pec_exp(xpos_position * log_zeta) : attention;
  pec_sin_cos_pair result;
  result.cos = amplitude * value.cos;
  result.sin = sign * amplitude * value.sin;
  return result;
}

typedef struct {
  float a, b;
} pec_rotated_f32;
typedef struct {
  double a, b;
} pec_rotated_f64;

/* y_a = x_a cos - x_b sin, y_b = x_a sin + x_b cos in the compute type. */
PEC_FN pec_rotated_f32 pec_rotate_f32(float a, float b, float c, float s) {
  pec_rotated_f32 y;
  y.a = a * c - b * s;
  y.b = a * s + b * c;
  return y;
}
PEC_FN pec_rotated_f64 pec_rotate_f64(double a, double b, double c, double s) {
  pec_rotated_f64 y;
  y.a = a * c - b * s;
  y.b = a * s + b * c;
  return y;
}

/* Element e of a sinusoid row of d values: pair i's two values sit at (2i, 2i+1) interleaved or
 * (i, i + d/2) half, the first of them the sine unless cos_first; an odd d ends in a lone column
 * (interleaved: the first member of pair d/2, whose frequency the plan holds) or a zero
 * (half). */
typedef struct {
  int pair;
  int is_cos;
  int is_zero;
} pec_sinusoid_term;

PEC_FN pec_sinusoid_term pec_sinusoid_element(int d, int interleaved, int cos_first, int e) {
  const int n = d / 2;
  pec_sinusoid_term term;
  int second;
  term.is_zero = 0;
  if (interleaved) {
    term.pair = e / 2;
    second = e % 2;
  } else if (e < 2 * n) {
    term.pair = e < n ? e : e - n;
    second = e >= n;
  } else {
    term.pair = n;
    second = 0;
    term.is_zero = 1;
  }
  term.is_cos = cos_first ? !second : second;
  return term;
}

/* The position of row r of a sinusoid table from `first`: sinusoidal adds the spec's offset,
 * Transformer-XL caps the distance at clamp_len when it is positive. */
PEC_FN pec_i64 pec_sinusoid_row_position(int absolute, pec_i64 first, pec_i64 r, pec_i64 offset, pec_i64 clamp_len) {
  const pec_i64 position = first + r;
  if (absolute) return position + offset;
  return clamp_len > 0 && position > clamp_len ? clamp_len : position;
}

/* ALiBi's bias of (query, key) for one head, `mode` a pec_alibi_mode (kernel_abi.h): -slope
 * |query - key| (0 symmetric; 1 causal, -infinity for a key after the query), slope key (2, key)
 * or -slope (last_key - key) (3, last-key; last_key the call's last key). Exact-angle: in double;
 * fp32-angle: float32 slope times float32 distance, rounded once to float32. Positions are below
 * 2^40, so the distance is exact. */
PEC_FN double pec_alibi_bias(pec_i64 query, pec_i64 key, pec_i64 last_key, double slope, float slope_f32, int float_angle,
                             int mode) {
  if (mode == 1 && key > query) return -PEC_INFINITY;
  const pec_i64 anchor = mode == 2 ? 0 : mode == 3 ? last_key : query;
  const double sign = mode == 2 ? 1.0 : -1.0;
  const double distance = fabs((double)(anchor - key));
  if (float_angle) return sign * (double)(float)((double)slope_f32 * (double)(float)distance);
  return sign * (slope * distance);
}

/* T5's bucket of relative = key - query (transformers' _relative_position_bucket): distances
 * below `exact` are their own bucket, larger ones the count of bucket starts at or below them
 * past `exact`; bidirectional puts positive distances in the upper half. */
PEC_FN pec_i32 pec_t5_bucket(pec_i64 relative, int bidirectional, pec_i32 upper_half, pec_i64 exact,
                             PEC_GLOBAL const pec_i64* bucket_start, int starts) {
  pec_i32 bucket = 0;
  pec_i64 distance = relative < 0 ? -relative : relative;
  if (bidirectional && relative > 0) bucket = upper_half;
  if (!bidirectional) distance = relative < 0 ? -relative : 0;
  if (distance < exact) return bucket + (pec_i32)distance;
  int low = 0, high = starts; /* the first start above distance, by bisection */
  while (low < high) {
    const int middle = low + (high - low) / 2;
    if (bucket_start[middle] <= distance) low = middle + 1;
    else high = middle;
  }
  return bucket + (pec_i32)(exact + low);
}

/* Shaw's index of relative = key - query: clip(relative, -left, right) + left (left = right = k
 * but for an asymmetric window, spec key `right`). */
PEC_FN pec_i32 pec_shaw_index(pec_i64 relative, pec_i64 left, pec_i64 right) {
  const pec_i64 clipped = relative < -left ? -left : relative > right ? right : relative;
  return (pec_i32)(clipped + left);
}

#endif
