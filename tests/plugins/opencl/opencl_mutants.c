/* libopencl_mutants.so: GPU bugs planted in the OpenCL example plugin's kernel (issue 20, label
 * mutants). Each mutant is examples/opencl-plugin's own kernel with one text substitution in its
 * program (rope.cl), as a mutation-testing tool makes them; beside each mutant NAME is its twin
 * NAME.correct, the unchanged program under the same patterns and calls, so that the bug, not
 * the pattern, is what fails. tests/tools/opencl_mutants_test.cpp runs both through `peconform
 * run --plugin --profile ci` on PoCL. A substitution whose text the program no longer holds
 * fails every call, saying so, rather than leaving a mutant that is its twin. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opencl_rope.h"

typedef struct {
  const char* name;
  const char* patterns;
  const char* find; /* in rope.cl, exactly once */
  const char* replace;
} mutant;

static const mutant mutants[] = {
    /* The fast intrinsics in float32: exact near 0, off by 1e-6 past |angle| ~ 8e4 on PoCL and
     * by whole units past 1e6 (no range reduction to speak of); CUDA's __sinf/__cosf the same
     * (DESIGN.md section 2). */
    {"native-sin-cos-under-fp32-angle", OPENCL_ROPE_FP32_ANGLE, "value = sin_cos_of_float(angle);",
     "value.sin = native_sin(angle); value.cos = native_cos(angle);"},
    /* The float32 angle fl(fl(p) theta_f) where the class promises p theta to the output's
     * precision: off by |p theta| 2^-24 and more. */
    {"float32-angle-claimed-exact", OPENCL_ROPE_EXACT_ANGLE, "value = pec_sin_cos(pec_exact_angle((double)position, frequency));",
     "value = sin_cos_of_float((float)position * (float)frequency.hi);"},
    /* Whole work-groups only: the last, partial group returns, leaving the tokens past the last
     * multiple of the group size (all of them below one group) unwritten. */
    {"partial-work-group-skipped", OPENCL_ROPE_PATTERNS, "if (token >= tokens) return;",
     "if (get_group_id(0) >= tokens / get_local_size(0)) return;"},
    /* Batch and sequence flattened into one token axis with the sequence stride, b seq + s:
     * right only where the batch stride is seq times the sequence stride (contiguous bshd). */
    {"batch-stride-ignored", OPENCL_ROPE_PATTERNS, "token / seq * strides.s0 + token % seq * strides.s1",
     "token * strides.s1"},
    /* The first element of each pair written back into the input too, as an in-place kernel
     * does, in a call that is out of place: only a read-back of the device's input buffer
     * shows it. */
    {"input-written", OPENCL_ROPE_PATTERNS, "store(out, out_head + e.write_a * out_strides.s3, y.a, bf16);",
     "store(out, out_head + e.write_a * out_strides.s3, y.a, bf16); store((__global float*)in, in_head + e.read_a * in_strides.s3, y.a, bf16);"},
};
#define MUTANTS (sizeof mutants / sizeof mutants[0])

/* The mutated program of each mutant, made on its first call and kept while the library is
 * loaded (the kernel's program cache keys on it). */
static char* programs[MUTANTS];

static const char* program_of(const mutant* m, char* error, size_t error_size) {
  char** program = &programs[m - mutants];
  if (*program != NULL) return *program;
  const char* at = strstr(opencl_rope_program, m->find);
  if (at == NULL || strstr(at + 1, m->find) != NULL) {
    snprintf(error, error_size, "mutant %s: rope.cl holds '%s' %s; the substitution needs it exactly once", m->name, m->find,
             at == NULL ? "nowhere" : "more than once");
    return NULL;
  }
  const size_t before = (size_t)(at - opencl_rope_program), found = strlen(m->find), replaced = strlen(m->replace);
  const size_t after = strlen(at + found);
  char* text = malloc(before + replaced + after + 1);
  if (text == NULL) {
    snprintf(error, error_size, "out of memory");
    return NULL;
  }
  memcpy(text, opencl_rope_program, before);
  memcpy(text + before, m->replace, replaced);
  memcpy(text + before + replaced, at + found, after + 1);
  *program = text;
  return text;
}

static pec_status run_mutant(size_t index, const pec_call* call, char* error, size_t error_size) {
  const char* program = program_of(&mutants[index], error, error_size);
  return program == NULL ? PEC_FAILED : opencl_rope_run(call, program, error, error_size);
}

static pec_status run_twin(const pec_call* call, char* error, size_t error_size) {
  return opencl_rope_run(call, opencl_rope_program, error, error_size);
}

/* Smaller calls than the example takes (no long calls of 2^16 tokens and more): each case then
 * verifies in a second or less, and none of these bugs needs a long call to show. */
#define LARGEST_CALL (1LL << 22)

/* The ABI's entry points carry no data of their own: one per mutant. */
#define MUTANT_ENTRY(INDEX) \
  static pec_status run_mutant_##INDEX(const pec_call* call, char* error, size_t error_size) { return run_mutant(INDEX, call, error, error_size); }
MUTANT_ENTRY(0)
MUTANT_ENTRY(1)
MUTANT_ENTRY(2)
MUTANT_ENTRY(3)
MUTANT_ENTRY(4)
static const pec_kernel_fn entries[MUTANTS] = {run_mutant_0, run_mutant_1, run_mutant_2, run_mutant_3, run_mutant_4};

static char twin_names[MUTANTS][128];
static pec_kernel kernels[2 * MUTANTS];
static const pec_plugin plugin = {PECONFORM_ABI_VERSION, "opencl-mutants", 2 * MUTANTS, kernels};

const pec_plugin* peconform_plugin_v1(void) {
  for (size_t k = 0; k < MUTANTS; ++k) {
    const mutant* m = &mutants[k];
    snprintf(twin_names[k], sizeof twin_names[k], "%s.correct", m->name);
    const pec_kernel planted = {m->name, m->patterns, kDLOpenCL, PEC_TAKES_EVERY_CALL, LARGEST_CALL, entries[k]};
    const pec_kernel twin = {twin_names[k], m->patterns, kDLOpenCL, PEC_TAKES_EVERY_CALL, LARGEST_CALL, run_twin};
    kernels[2 * k] = planted;
    kernels[2 * k + 1] = twin;
  }
  return &plugin;
}
