/* A library at the edges of what a declaration may say of itself: KERNEL_COUNT kernels (4096,
 * the most peconform loads, or one past it) and the library name LIBRARY_NAME (a plain one, or
 * one with a space, which peconform refuses). Its kernels refuse every call; only their count
 * and the library's name are under test. */
#include <peconform/kernel_abi.h>

static pec_status refuse_everything(const pec_call* call, char* error, size_t error_size) {
  (void)call;
  if (error_size > 0) error[0] = '\0';
  return PEC_REFUSED;
}

static pec_kernel kernels[KERNEL_COUNT];
static const pec_plugin plugin = {PECONFORM_ABI_VERSION, LIBRARY_NAME, KERNEL_COUNT, kernels};

const pec_plugin* peconform_plugin_v1(void) {
  for (int k = 0; k < KERNEL_COUNT; ++k) {
    kernels[k].name = "refuses";
    kernels[k].spec_patterns = "rope(d=64)";
    kernels[k].device_type = kDLCPU;
    kernels[k].takes = PEC_TAKES_EVERY_CALL;
    kernels[k].largest_call_elements = 0;
    kernels[k].run = refuse_everything;
  }
  return &plugin;
}
