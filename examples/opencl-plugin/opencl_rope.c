/* The host half of the OpenCL example plugin: checks the call, builds the program once per
 * context, forms the frequencies and launches rope.cl's kernel once per operand on the queue
 * peconform passes. peconform owns the buffers (DLTensor.data is a cl_mem, byte_offset the
 * offset of element [0,0,0,0]), copies them to the device and back, and waits for the queue
 * after the call; peconform calls one kernel at a time, so the program cache takes no lock. */
#define CL_TARGET_OPENCL_VERSION 120
#include "opencl_rope.h"
#include "rope_frequencies.h"

#include <CL/cl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Work-items (tokens) per work-group. */
#define TOKENS_PER_GROUP 64

static int serves(const pec_spec* spec) {
  const int exact = spec->precision == PEC_EXACT_ANGLE;
  const int hf_fp32_angle = spec->precision == PEC_FP32_ANGLE && spec->theta == PEC_THETA_HF;
  const int fp32 = spec->dtype.code == kDLFloat && spec->dtype.bits == 32;
  const int bf16 = spec->dtype.code == kDLBfloat && spec->dtype.bits == 16;
  return spec->family == PEC_ROPE && (spec->layout == PEC_LAYOUT_HALF || spec->layout == PEC_LAYOUT_INTERLEAVED) &&
         spec->rot == spec->d && spec->sign == 1 && spec->amp == 1.0 && spec->scaling.kind == PEC_PLAN_NONE &&
         (exact || hf_fp32_angle) && (fp32 || bf16);
}

/* A program built for one context from one source text, kept while the library is loaded. */
typedef struct {
  cl_context context;
  const char* source;
  cl_program program;
} built_program;
#define MOST_PROGRAMS 32
static built_program built[MOST_PROGRAMS];
static int built_count;

/* The program for `context` and `source`, retained for the caller; NULL with `error` set. */
static cl_program program_for(cl_context context, cl_device_id device, const char* source, char* error, size_t error_size) {
  for (int k = 0; k < built_count; ++k)
    if (built[k].context == context && built[k].source == source) {
      clRetainProgram(built[k].program);
      return built[k].program;
    }
  cl_device_fp_config fp64 = 0;
  clGetDeviceInfo(device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64, &fp64, NULL);
  if (fp64 == 0) {
    snprintf(error, error_size, "the OpenCL device lacks cl_khr_fp64, which the angle's reduction needs");
    return NULL;
  }
  cl_int status = CL_SUCCESS;
  cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &status);
  if (status != CL_SUCCESS) {
    snprintf(error, error_size, "clCreateProgramWithSource: OpenCL error %d", status);
    return NULL;
  }
  status = clBuildProgram(program, 1, &device, "", NULL, NULL);
  if (status != CL_SUCCESS) {
    char log[768] = "";
    clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
    log[sizeof log - 1] = '\0';
    snprintf(error, error_size, "clBuildProgram: OpenCL error %d: %s", status, log);
    clReleaseProgram(program);
    return NULL;
  }
  if (built_count < MOST_PROGRAMS) {
    built[built_count].context = context;
    built[built_count].source = source;
    built[built_count].program = program;
    ++built_count;
    clRetainProgram(program); /* the cache's reference */
  }
  return program;
}

static cl_long4 strides_of(const DLTensor* t) {
  cl_long4 strides;
  cl_long compact = 1;
  for (int a = 3; a >= 0; --a) { /* DLPack's NULL strides: compact row-major */
    strides.s[a] = t->strides != NULL ? t->strides[a] : compact;
    compact *= t->shape[a];
  }
  return strides;
}

static cl_long element_offset(const DLTensor* t) { return (cl_long)(t->byte_offset / (t->dtype.bits / 8u)); }

/* Sets the arguments of operand `o` and launches it; an OpenCL error code, or CL_SUCCESS. */
static cl_int launch(cl_command_queue queue, cl_kernel kernel, const pec_call* call, int o, cl_mem frequencies) {
  const pec_spec* spec = call->spec;
  const DLTensor *in = &call->inputs[o], *out = &call->outputs[o], *ids = call->ids;
  const cl_mem in_memory = (cl_mem)in->data, out_memory = (cl_mem)out->data, ids_memory = (cl_mem)ids->data;
  const cl_long in_offset = element_offset(in), out_offset = element_offset(out), ids_offset = element_offset(ids);
  const cl_long4 in_strides = strides_of(in), out_strides = strides_of(out);
  const cl_int ids64 = ids->dtype.bits == 64, bf16 = spec->dtype.code == kDLBfloat, exact = spec->precision == PEC_EXACT_ANGLE;
  const cl_long id_offset = call->id_offset, seq = out->shape[1], tokens = out->shape[0] * out->shape[1];
  const cl_int heads = (cl_int)out->shape[2], pairs = spec->rot / 2, layout = spec->layout;
  if (tokens == 0) return CL_SUCCESS;
  const struct {
    size_t size;
    const void* value;
  } args[] = {{sizeof in_memory, &in_memory},   {sizeof in_offset, &in_offset},   {sizeof in_strides, &in_strides},
              {sizeof out_memory, &out_memory}, {sizeof out_offset, &out_offset}, {sizeof out_strides, &out_strides},
              {sizeof ids_memory, &ids_memory}, {sizeof ids_offset, &ids_offset}, {sizeof ids64, &ids64},
              {sizeof id_offset, &id_offset},   {sizeof tokens, &tokens},         {sizeof seq, &seq},
              {sizeof heads, &heads},           {sizeof pairs, &pairs},           {sizeof layout, &layout},
              {sizeof bf16, &bf16},             {sizeof exact, &exact},           {sizeof frequencies, &frequencies}};
  for (cl_uint a = 0; a < sizeof args / sizeof args[0]; ++a) {
    const cl_int status = clSetKernelArg(kernel, a, args[a].size, args[a].value);
    if (status != CL_SUCCESS) return status;
  }
  const size_t local = TOKENS_PER_GROUP, global = ((size_t)tokens + local - 1) / local * local;
  return clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, &local, 0, NULL, NULL);
}

pec_status opencl_rope_run(const pec_call* call, const char* source, char* error, size_t error_size) {
  if (!serves(call->spec)) {
    snprintf(error, error_size, "serves %s; not %s", OPENCL_ROPE_PATTERNS, call->spec_text);
    return PEC_REFUSED;
  }
  if (call->stream == NULL || call->ids == NULL || call->ids->device.device_type != kDLOpenCL ||
      call->outputs[0].device.device_type != kDLOpenCL) {
    snprintf(error, error_size, "takes OpenCL buffers (kDLOpenCL) and a cl_command_queue in pec_call.stream");
    return PEC_REFUSED;
  }
  cl_command_queue queue = (cl_command_queue)call->stream;
  cl_context context = NULL;
  cl_device_id device = NULL;
  if (clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof context, &context, NULL) != CL_SUCCESS ||
      clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof device, &device, NULL) != CL_SUCCESS) {
    snprintf(error, error_size, "pec_call.stream is not a cl_command_queue");
    return PEC_FAILED;
  }
  cl_program program = program_for(context, device, source, error, error_size);
  if (program == NULL) return PEC_FAILED;

  /* rot >= 2 for every rope spec: never an empty buffer */
  const size_t frequency_bytes = sizeof(double) * (size_t)call->spec->rot;
  double* frequencies = malloc(frequency_bytes);
  cl_int status = frequencies != NULL ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY;
  cl_mem frequency_memory = NULL;
  cl_kernel kernel = NULL;
  if (status == CL_SUCCESS) {
    rope_frequencies(call, frequencies);
    frequency_memory = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, frequency_bytes, frequencies, &status);
  }
  if (status == CL_SUCCESS) kernel = clCreateKernel(program, "rope", &status);
  for (int o = 0; o < call->operand_count && status == CL_SUCCESS; ++o) status = launch(queue, kernel, call, o, frequency_memory);
  /* OpenCL keeps what the enqueued kernels use until they have run. */
  if (kernel != NULL) clReleaseKernel(kernel);
  if (frequency_memory != NULL) clReleaseMemObject(frequency_memory);
  clReleaseProgram(program);
  free(frequencies);
  if (status != CL_SUCCESS) {
    snprintf(error, error_size, "OpenCL error %d while launching rope", status);
    return PEC_FAILED;
  }
  return PEC_OK;
}
