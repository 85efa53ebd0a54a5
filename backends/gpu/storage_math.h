#ifndef PECONFORM_GPU_STORAGE_MATH_H
#define PECONFORM_GPU_STORAGE_MATH_H
/* The 16-bit storage formats as bits, converted in integer arithmetic so that every compiler
 * rounds the same way: bfloat16 (the top half of a binary32) and binary16, each rounded to
 * nearest even from float32, the type fp16 and bf16 compute in (backends/cpu/storage.hpp). A
 * NaN stays a NaN with its quiet bit set and the top of its payload. OpenCL has binary16
 * conversions of its own; its kernels load with vload_half and store with these, as CUDA and
 * the host tests do both. */
#include "backends/gpu/portable.h"

PEC_FN float pec_float_of_bf16(pec_u16 bits) { return pec_float_of_bits((pec_u32)bits << 16); }

PEC_FN pec_u16 pec_bf16_of_float(float value) {
  const pec_u32 bits = pec_bits_of_float(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return (pec_u16)((bits >> 16) | 0x40u);
  return (pec_u16)((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

PEC_FN float pec_float_of_half(pec_u16 bits) {
  const pec_u32 sign = ((pec_u32)bits & 0x8000u) << 16;
  const pec_u32 exponent = ((pec_u32)bits >> 10) & 0x1fu, mantissa = (pec_u32)bits & 0x3ffu;
  /* Infinity, or a NaN: quieted, as every IEEE conversion quiets a signalling NaN (the host's
   * _Float16 and __fp16 conversions do), its payload kept. */
  if (exponent == 0x1fu) return pec_float_of_bits(sign | 0x7f800000u | (mantissa << 13) | (mantissa != 0u ? 0x400000u : 0u));
  if (exponent == 0u) /* zero or subnormal: mantissa x 2^-24, exact in float32 */
    return pec_float_of_bits(sign | pec_bits_of_float((float)mantissa * 0x1p-24f));
  return pec_float_of_bits(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

PEC_FN pec_u16 pec_half_of_float(float value) {
  const pec_u32 bits = pec_bits_of_float(value);
  const pec_u32 sign = (bits >> 16) & 0x8000u, magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return (pec_u16)(sign | 0x7e00u | ((magnitude >> 13) & 0x3ffu));
  /* 65520 = 0x477ff000 is halfway between 65504, the largest binary16, and 2^16: it and
   * everything above round to infinity (the tie goes to the even side, infinity). */
  if (magnitude >= 0x477ff000u) return (pec_u16)(sign | 0x7c00u);
  if (magnitude >= 0x38800000u) { /* a normal binary16, 2^-14 and up: drop 13 bits, rebias */
    const pec_u32 rounded = magnitude + 0xfffu + ((magnitude >> 13) & 1u);
    return (pec_u16)(sign | ((rounded - 0x38000000u) >> 13));
  }
  /* Below 2^-14: a binary16 subnormal, whose unit 2^-24 is the ulp of float32 0.5, so adding
   * 0.5 rounds the magnitude to a multiple of it, to nearest even, in one float32 addition. */
  const float shifted = pec_float_of_bits(magnitude) + 0.5f;
  return (pec_u16)(sign | (pec_bits_of_float(shifted) - 0x3f000000u));
}

#endif
