/* The OpenCL example plugin's kernel as a function, for its own declaration (opencl_rope_plugin.c)
 * and for libraries that run it with another program text (tests/plugins/opencl: planted bugs). */
#ifndef OPENCL_ROPE_H
#define OPENCL_ROPE_H

#include <stddef.h>

#include <peconform/kernel_abi.h>

/* The specs the kernel serves: plain RoPE (rot = d, sign 1, amplitude 1, no frequency plan) in
 * either pairing, fp32 or bf16, exact-angle or fp32-angle with Hugging Face's theta. */
#define OPENCL_ROPE_EXACT_ANGLE "rope(d=*,base=*,layout=half|interleaved,dtype=fp32|bf16,precision=exact-angle)"
#define OPENCL_ROPE_FP32_ANGLE "rope(d=*,base=*,layout=half|interleaved,dtype=fp32|bf16,precision=fp32-angle,theta=hf)"
#define OPENCL_ROPE_PATTERNS OPENCL_ROPE_EXACT_ANGLE ";" OPENCL_ROPE_FP32_ANGLE

/* The most output elements one call may have: the campaign's long calls (2^25), not its 4 GiB
 * one, which a CPU device would hold twice (host and device copies). */
#define OPENCL_ROPE_LARGEST_CALL (1LL << 25)

/* rope.cl after the element math it builds on, as the build embeds it (NUL-terminated). */
extern const char opencl_rope_program[];

/* Runs `call` on the queue in call->stream with the kernel `rope` of the program built from
 * `source` (NUL-terminated OpenCL C; built once per context and source text, which must live
 * as long as the library). Refuses a spec outside OPENCL_ROPE_PATTERNS or a tensor that is not
 * kDLOpenCL; fails, saying why, when the device lacks cl_khr_fp64 or an OpenCL call fails. */
pec_status opencl_rope_run(const pec_call* call, const char* source, char* error, size_t error_size);

#endif
