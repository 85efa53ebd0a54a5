/* The OpenCL program's first lines. Our CPU kernels are compiled with -ffp-contract=off, and the
 * error model bounds the rotation a*c - b*s as two roundings, not the fused form; OpenCL C
 * contracts by default, so contraction is off for the whole program. The element math asks for
 * fma by name where it wants one. */
#pragma OPENCL FP_CONTRACT OFF
