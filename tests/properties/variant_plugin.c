/* Variant kernels through the variant ABI (include/peconform/variant_abi.h), for
 * `peconform properties --plugin`: true RoPE with two pass-through dims, a rotation whose angle
 * is p^2 theta (it keeps the norm and loses relative-position dependence), a sinusoid table,
 * and over two axes an axial 2-D RoPE and one whose y axis reuses x's pairs (relative in Z^2, but
 * (1, 0) and (0, 1) give one rotation). Built with DECLARE_BAD_ROT, it declares rot = 9 for
 * d = 8, and with DECLARE_BAD_AXES, axes = 17, which peconform must refuse naming the value.
 * Built with VARIANT_ABI_VERSION_1, it is a version-1 library: its one-axis kernels only, with 5
 * written where version 2 keeps `axes`, which peconform must not read. */
#include <math.h>
#include <stddef.h>

#include "peconform/variant_abi.h"

enum { kD = 8, kRot = 6 };

static double frequency(int pair, int dims) { return pow(10000.0, -2.0 * pair / dims); }

/* Rotates the first kRot elements of each row by angle(p) theta_i, half-split pairs, in double,
 * rounded once to float; copies the other elements. */
static pec_status rotate(const pec_variant_call* call, int squared) {
  for (int64_t r = 0; r < call->rows; ++r) {
    const double* x = call->inputs + r * kD;
    double* y = call->outputs + r * kD;
    const double p = (double)call->positions[r];
    for (int i = 0; i < kRot / 2; ++i) {
      const double phi = (squared ? p * p : p) * frequency(i, kRot);
      const double c = cos(phi), s = sin(phi), a = x[i], b = x[i + kRot / 2];
      y[i] = (float)(a * c - b * s);
      y[i + kRot / 2] = (float)(a * s + b * c);
    }
    for (int e = kRot; e < kD; ++e) y[e] = x[e];
  }
  return PEC_OK;
}

static pec_status rope(const pec_variant_call* call, char* error, size_t error_size) {
  (void)error, (void)error_size;
  return rotate(call, 0);
}

static pec_status squared_angle(const pec_variant_call* call, char* error, size_t error_size) {
  (void)error, (void)error_size;
  return rotate(call, 1);
}

/* Vaswani's table, pairs (sin, cos) interleaved. */
static pec_status sinusoid(const pec_variant_call* call, char* error, size_t error_size) {
  (void)error, (void)error_size;
  for (int64_t r = 0; r < call->rows; ++r)
    for (int i = 0; i < kD / 2; ++i) {
      const double phi = (double)call->positions[r] * frequency(i, kD);
      call->outputs[r * kD + 2 * i] = (float)sin(phi);
      call->outputs[r * kD + 2 * i + 1] = (float)cos(phi);
    }
  return PEC_OK;
}

/* Pairs (i, i + kD/2) of all kD elements turn by x theta_i for i < kD/4 and by y theta_(i - kD/4)
 * for the others (theta over the kD/2 elements an axis owns); with `shared`, all by (x + y)
 * theta_i, theta over kD. */
static pec_status rotate_2d(const pec_variant_call* call, int shared) {
  if (call->axes != 2) return PEC_REFUSED;
  for (int64_t r = 0; r < call->rows; ++r) {
    const double* x = call->inputs + r * kD;
    double* y = call->outputs + r * kD;
    const double px = (double)call->positions[2 * r], py = (double)call->positions[2 * r + 1];
    for (int i = 0; i < kD / 2; ++i) {
      const double phi = shared ? (px + py) * frequency(i, kD)
                                : (i < kD / 4 ? px * frequency(i, kD / 2) : py * frequency(i - kD / 4, kD / 2));
      const double c = cos(phi), s = sin(phi), a = x[i], b = x[i + kD / 2];
      y[i] = (float)(a * c - b * s);
      y[i + kD / 2] = (float)(a * s + b * c);
    }
  }
  return PEC_OK;
}

static pec_status axial_2d(const pec_variant_call* call, char* error, size_t error_size) {
  (void)error, (void)error_size;
  return rotate_2d(call, 0);
}

static pec_status shared_pairs_2d(const pec_variant_call* call, char* error, size_t error_size) {
  (void)error, (void)error_size;
  return rotate_2d(call, 1);
}

#ifdef DECLARE_BAD_ROT
#define ROT 9
#else
#define ROT kRot
#endif

#if defined(DECLARE_BAD_AXES)
#define AXES 17
#elif defined(VARIANT_ABI_VERSION_1)
#define AXES 5
#else
#define AXES 0 /* as a version-1 declaration rebuilt against version 2 leaves it: one axis */
#endif

/* Positions up to 2^20 keep the double angle's error (about |phi| 2^-52) far inside exact-angle's
 * bound for float32 outputs. */
#define ROTARY(rot)                                                                                      \
  { PEC_VARIANT_ROTARY, kD, {kDLFloat, 32, 1}, PEC_EXACT_ANGLE, PEC_PAIRING_HALF, rot, 0, 1.0, 1.0, \
    PEC_THETA_HF, 10000.0, 1 << 20, 1, AXES }
#define ROTARY_2D                                                                                    \
  { PEC_VARIANT_ROTARY, kD, {kDLFloat, 32, 1}, PEC_EXACT_ANGLE, PEC_PAIRING_HALF, 0, 0, 1.0, 1.0,  \
    PEC_THETA_HF, 10000.0, 1 << 20, 1, 2 }

static const pec_variant_kernel kernels[] = {
    {"rope", ROTARY(ROT), rope},
    {"squared_angle", ROTARY(kRot), squared_angle},
    {"sinusoid",
     {PEC_VARIANT_TABLE, kD, {kDLFloat, 32, 1}, PEC_EXACT_ANGLE, PEC_PAIRING_INTERLEAVED, 0, 0, 1.0, 1.0, PEC_THETA_HF,
      10000.0, 1 << 20, 0, AXES},
     sinusoid},
#ifndef VARIANT_ABI_VERSION_1
    {"axial_2d", ROTARY_2D, axial_2d},
    {"shared_pairs_2d", ROTARY_2D, shared_pairs_2d},
#endif
};

#ifdef VARIANT_ABI_VERSION_1
static const pec_variant_plugin plugin = {1, "variant-examples-v1", 3, kernels};
#else
static const pec_variant_plugin plugin = {PECONFORM_VARIANT_ABI_VERSION, "variant-examples", 5, kernels};
#endif

const pec_variant_plugin* peconform_variants_v1(void) { return &plugin; }
