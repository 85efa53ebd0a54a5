/* Declarations at the edges of what peconform accepts, beside declarations.c's: the ids and
 * largest-call rules, a NULL name and a NULL pattern text, names at the limits of a plain name,
 * device kernels, a kernel limited in size and in the calls it takes, and two kernels that
 * show what peconform hands a kernel and reads back from it. */
#include <peconform/kernel_abi.h>
#include <string.h>

#include "recorded_call.h"

static pec_status refuse_everything(const pec_call* call, char* error, size_t error_size) {
  (void)call;
  if (error_size > 0) error[0] = '\0';
  return PEC_REFUSED;
}

/* Records the call (recorded_call.h) and refuses it with an empty message. */
static recorded_call last_call;
const recorded_call* recorder_last_call(void) { return &last_call; }
static pec_status record(const pec_call* call, char* error, size_t error_size) {
  ++last_call.calls;
  last_call.spec_d = call->spec != NULL ? call->spec->d : -1;
  last_call.in_place = call->in_place;
  last_call.ids_given = call->ids != NULL;
  last_call.inputs_are_outputs = call->inputs != NULL && call->outputs != NULL && call->inputs[0].data == call->outputs[0].data;
  last_call.stream_given = call->stream != NULL;
  return refuse_everything(call, error, error_size);
}

/* Fills the whole message buffer with 'x', no NUL: peconform must end it itself. */
static pec_status refuse_without_a_nul(const pec_call* call, char* error, size_t error_size) {
  (void)call;
  memset(error, 'x', error_size);
  return PEC_REFUSED;
}

/* 129 and 128 characters: one past the longest plain name, and the longest. */
#define TEN "abcdefghij"
#define HUNDRED_TWENTY TEN TEN TEN TEN TEN TEN TEN TEN TEN TEN TEN TEN

static const pec_kernel kernels[] = {
    {"takes-no-ids", "rope(d=64)", kDLCPU, PEC_TAKES_IN_PLACE | PEC_TAKES_OUT_OF_PLACE, 0, refuse_everything},
    {"negative-largest-call", "rope(d=64)", kDLCPU, PEC_TAKES_EVERY_CALL, -1, refuse_everything},
    {"limited", "rope(d=64)", kDLCPU, PEC_TAKES_OUT_OF_PLACE | PEC_TAKES_IDS64, 4096, refuse_everything},
    {NULL, "rope(d=64)", kDLCPU, PEC_TAKES_EVERY_CALL, 0, refuse_everything},
    {"null-patterns", NULL, kDLCPU, PEC_TAKES_EVERY_CALL, 0, refuse_everything},
    {"a_b", "rope(d=64)", kDLCPU, PEC_TAKES_EVERY_CALL, 0, refuse_everything},
    {"a.b", "rope(d=64)", kDLCPU, PEC_TAKES_EVERY_CALL, 0, refuse_everything},
    {".", "rope(d=64)", kDLCPU, PEC_TAKES_EVERY_CALL, 0, refuse_everything},
    {"..", "rope(d=64)", kDLCPU, PEC_TAKES_EVERY_CALL, 0, refuse_everything},
    {"", "rope(d=64)", kDLCPU, PEC_TAKES_EVERY_CALL, 0, refuse_everything},
    {HUNDRED_TWENTY "abcdefghi", "rope(d=64)", kDLCPU, PEC_TAKES_EVERY_CALL, 0, refuse_everything},
    {HUNDRED_TWENTY "abcdefgh", "rope(d=64)", kDLCPU, PEC_TAKES_EVERY_CALL, 0, refuse_everything},
    {"on-opencl", "rope(d=64)", kDLOpenCL, PEC_TAKES_EVERY_CALL, 0, refuse_everything},
    {"on-cuda", "rope(d=64)", kDLCUDA, PEC_TAKES_EVERY_CALL, 0, refuse_everything},
    {"recorder", "rope(d=16,layout=half,dtype=fp32); sinusoidal(d=8,layout=half,dtype=fp32)", kDLCPU, PEC_TAKES_EVERY_CALL, 0, record},
    {"no-nul", "rope(d=16,layout=half,dtype=fp32)", kDLCPU, PEC_TAKES_EVERY_CALL, 0, refuse_without_a_nul},
};

static const pec_plugin plugin = {PECONFORM_ABI_VERSION, "declaration-edges", sizeof kernels / sizeof kernels[0], kernels};

const pec_plugin* peconform_plugin_v1(void) { return &plugin; }
