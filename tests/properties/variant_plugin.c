/* Variant kernels through the variant ABI (include/peconform/variant_abi.h), for
 * `peconform properties --plugin`: true RoPE with two pass-through dims, a rotation whose angle
 * is p^2 theta (it keeps the norm and loses relative-position dependence), and a sinusoid
 * table. Built with DECLARE_BAD_ROT, it declares rot = 9 for d = 8, which peconform must refuse
 * naming the value. */
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

#ifdef DECLARE_BAD_ROT
#define ROT 9
#else
#define ROT kRot
#endif

/* Positions up to 2^20 keep the double angle's error (about |phi| 2^-52) far inside exact-angle's
 * bound for float32 outputs. */
#define ROTARY(rot)                                                                                      \
  { PEC_VARIANT_ROTARY, kD, {kDLFloat, 32, 1}, PEC_EXACT_ANGLE, PEC_PAIRING_HALF, rot, 0, 1.0, 1.0, \
    PEC_THETA_HF, 10000.0, 1 << 20, 1 }

static const pec_variant_kernel kernels[] = {
    {"rope", ROTARY(ROT), rope},
    {"squared_angle", ROTARY(kRot), squared_angle},
    {"sinusoid",
     {PEC_VARIANT_TABLE, kD, {kDLFloat, 32, 1}, PEC_EXACT_ANGLE, PEC_PAIRING_INTERLEAVED, 0, 0, 1.0, 1.0, PEC_THETA_HF,
      10000.0, 1 << 20, 0},
     sinusoid},
};

static const pec_variant_plugin plugin = {PECONFORM_VARIANT_ABI_VERSION, "variant-examples", 3, kernels};

const pec_variant_plugin* peconform_variants_v1(void) { return &plugin; }
