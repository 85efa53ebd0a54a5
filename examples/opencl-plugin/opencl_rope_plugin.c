/* A kernel library whose kernel runs on an OpenCL device, for `peconform run --plugin`: RoPE in
 * either pairing on fp32 and bf16, exact-angle and fp32-angle (opencl_rope.h), taking every call
 * the campaign draws: in or out of place, int32 or int64 ids, any strides and padding, queries
 * and keys (GQA) in one call. Declaring kDLOpenCL is what makes peconform hand it cl_mem buffers
 * and its queue instead of host pointers. */
#include "opencl_rope.h"

static pec_status opencl_rope(const pec_call* call, char* error, size_t error_size) {
  return opencl_rope_run(call, opencl_rope_program, error, error_size);
}

static const pec_kernel kernels[] = {
    {"opencl_rope", OPENCL_ROPE_PATTERNS, kDLOpenCL, PEC_TAKES_EVERY_CALL, OPENCL_ROPE_LARGEST_CALL, opencl_rope},
};

static const pec_plugin plugin = {PECONFORM_ABI_VERSION, "opencl-plugin-example", 1, kernels};

const pec_plugin* peconform_plugin_v1(void) { return &plugin; }
