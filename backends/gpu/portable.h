#ifndef PECONFORM_GPU_PORTABLE_H
#define PECONFORM_GPU_PORTABLE_H
/* The element math of the GPU backends is one source read by three compilers: OpenCL C (the
 * OpenCL backend builds it into its program at run time), nvcc (the CUDA kernels, where every
 * function is __host__ __device__) and the host C++ compiler (the unit tests, which hold it to
 * our CPU kernels and the reference). So it is written in the C they share: no references,
 * templates or overloads, results returned in small structs, and the few operations whose
 * spelling differs (reinterpreting bits, fma, exp, a product never fused) named here once.
 *
 * Contraction: the angle code computes a product and then its exact rounding error with fma,
 * and goes on with both (angle_math.h). A compiler that fused that product into a later
 * addition (OpenCL C and nvcc both may, by default, even across statements) would count the
 * error twice. So those products are pec_product(): OpenCL programs built from these headers
 * turn contraction off (the pragma below), nvcc is told to round that product on its own
 * (__dmul_rn), and host builds that run it compile with -ffp-contract=off, as the CPU kernels
 * do. */

#if defined(__OPENCL_VERSION__)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF
#define PEC_FN static inline
#define PEC_GLOBAL __global
typedef long pec_i64;
typedef ulong pec_u64;
typedef int pec_i32;
typedef uint pec_u32;
typedef ushort pec_u16;
PEC_FN pec_u64 pec_bits_of_double(double value) { return as_ulong(value); }
PEC_FN double pec_double_of_bits(pec_u64 bits) { return as_double(bits); }
PEC_FN pec_u32 pec_bits_of_float(float value) { return as_uint(value); }
PEC_FN float pec_float_of_bits(pec_u32 bits) { return as_float(bits); }
PEC_FN double pec_fma(double a, double b, double c) { return fma(a, b, c); }
PEC_FN double pec_exp(double value) { return exp(value); }
PEC_FN double pec_product(double a, double b) { return a * b; }
#define PEC_INFINITY INFINITY
#else
#include <math.h>
#include <stdint.h>
#include <string.h>
#if defined(__CUDACC__)
#define PEC_FN __host__ __device__ inline
#else
#define PEC_FN inline
#endif
#define PEC_GLOBAL
typedef int64_t pec_i64;
typedef uint64_t pec_u64;
typedef int32_t pec_i32;
typedef uint32_t pec_u32;
typedef uint16_t pec_u16;
/* memcpy is how C++17 and CUDA device code both reinterpret bits without undefined behaviour;
 * each compiler turns it into a register move. */
PEC_FN pec_u64 pec_bits_of_double(double value) {
  pec_u64 bits;
  memcpy(&bits, &value, sizeof bits);
  return bits;
}
PEC_FN double pec_double_of_bits(pec_u64 bits) {
  double value;
  memcpy(&value, &bits, sizeof value);
  return value;
}
PEC_FN pec_u32 pec_bits_of_float(float value) {
  pec_u32 bits;
  memcpy(&bits, &value, sizeof bits);
  return bits;
}
PEC_FN float pec_float_of_bits(pec_u32 bits) {
  float value;
  memcpy(&value, &bits, sizeof value);
  return value;
}
PEC_FN double pec_fma(double a, double b, double c) { return fma(a, b, c); }
PEC_FN double pec_exp(double value) { return exp(value); }
PEC_FN double pec_product(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
#define PEC_INFINITY INFINITY
#endif

#endif
