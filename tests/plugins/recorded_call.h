/* What declaration_edges.c's "recorder" kernel saw of its last call, read by the test that
 * loads it (tests/backends/plugin_library_test.cpp) through recorder_last_call(). */
#pragma once
#include <stdint.h>

typedef struct recorded_call {
  int32_t calls;             /* how many calls the kernel has had */
  int32_t spec_d;            /* pec_call.spec->d, or -1 when spec is NULL */
  int32_t in_place;          /* pec_call.in_place */
  int32_t ids_given;         /* pec_call.ids != NULL */
  int32_t inputs_are_outputs; /* inputs[0].data == outputs[0].data (0 when either is missing) */
  int32_t stream_given;      /* pec_call.stream != NULL */
} recorded_call;
