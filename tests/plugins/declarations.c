/* Plugin declarations peconform must refuse, each with the reason `plugin-info` gives, beside
 * one it serves. Built twice: as is, and with -DDECLARED_ABI_VERSION=99 for a library built
 * against another ABI version. */
#include <peconform/kernel_abi.h>
#include <string.h>

#ifndef DECLARED_ABI_VERSION
#define DECLARED_ABI_VERSION PECONFORM_ABI_VERSION
#endif

static pec_status refuse_everything(const pec_call* call, char* error, size_t error_size) {
  (void)call;
  if (error_size > 0) error[0] = '\0';
  return PEC_REFUSED;
}

/* A kernel that cannot run (a device lost), and one whose status is none of the three: below
 * them, so that a check reading PEC_FAILED as "at most PEC_FAILED" shows. */
static pec_status fail_every_call(const pec_call* call, char* error, size_t error_size) {
  (void)call;
  if (error_size > 0) strncpy(error, "the device was lost", error_size - 1);
  return PEC_FAILED;
}

static pec_status return_an_unknown_status(const pec_call* call, char* error, size_t error_size) {
  (void)call;
  if (error_size > 0) strncpy(error, "status minus seven", error_size - 1);
  return (pec_status)-7;
}

/* A pattern one byte past the 65535 a declared text may hold, written on the first call: its
 * last byte, the NUL, lies past where peconform stops looking for one. */
static char overlong_pattern[(1 << 16) + 1];

static const pec_kernel kernels[] = {
    {"served", "rope(d=64,layout=*,dtype=fp32|bf16)", kDLCPU, PEC_TAKES_EVERY_CALL, 0, refuse_everything},
    {"unknown-key", "rope(d=64,flavour=spicy)", kDLCPU, PEC_TAKES_EVERY_CALL, 0, refuse_everything},
    {"unknown-dtype", "rope(d=64,dtype=fp8)", kDLCPU, PEC_TAKES_EVERY_CALL, 0, refuse_everything},
    {"class-without-recipe", "rope(d=64,precision=*,theta=hf)", kDLCPU, PEC_TAKES_EVERY_CALL, 0, refuse_everything},
    {"no-spec", "rope(layout=half)", kDLCPU, PEC_TAKES_EVERY_CALL, 0, refuse_everything},
    {"on-vulkan", "rope(d=64)", kDLVulkan, PEC_TAKES_EVERY_CALL, 0, refuse_everything},
    {"takes-no-place", "rope(d=64)", kDLCPU, PEC_TAKES_IDS64, 0, refuse_everything},
    {"unknown-flag", "rope(d=64)", kDLCPU, PEC_TAKES_EVERY_CALL | (1u << 20), 0, refuse_everything},
    {"no-entry-point", "rope(d=64)", kDLCPU, PEC_TAKES_EVERY_CALL, 0, 0},
    {"served", "rope(d=128)", kDLCPU, PEC_TAKES_EVERY_CALL, 0, refuse_everything},
    {"bad/name", "rope(d=64)", kDLCPU, PEC_TAKES_EVERY_CALL, 0, refuse_everything},
    {"overlong", overlong_pattern, kDLCPU, PEC_TAKES_EVERY_CALL, 0, refuse_everything},
    {"fails", "rope(d=64,layout=half,dtype=fp32)", kDLCPU, PEC_TAKES_EVERY_CALL, 0, fail_every_call},
    {"unknown-status", "rope(d=64,layout=half,dtype=fp32)", kDLCPU, PEC_TAKES_EVERY_CALL, 0, return_an_unknown_status},
};

static const pec_plugin plugin = {DECLARED_ABI_VERSION, "declarations", sizeof kernels / sizeof kernels[0], kernels};

const pec_plugin* peconform_plugin_v1(void) {
  memset(overlong_pattern, 'r', sizeof overlong_pattern - 1);
  return &plugin;
}
