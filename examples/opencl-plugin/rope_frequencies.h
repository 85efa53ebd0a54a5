/* The frequencies theta_i = base^(-2i/rot) of a plain RoPE call, formed on the host as each
 * precision class takes them; shared by the OpenCL example and the CUDA test plugin
 * (tests/plugins/cuda). */
#ifndef ROPE_FREQUENCIES_H
#define ROPE_FREQUENCIES_H

#include <peconform/kernel_abi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* rot/2 pairs into frequencies[2i], frequencies[2i+1]: exact-angle, theta_i as an unevaluated
 * sum hi + lo of doubles; fp32-angle with theta=hf, Hugging Face's float32 inv_freq and 0. */
void rope_frequencies(const pec_call* call, double* frequencies);

#ifdef __cplusplus
}
#endif

#endif
