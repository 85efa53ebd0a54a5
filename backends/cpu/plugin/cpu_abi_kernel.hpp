#pragma once
// Our CPU kernels behind the C ABI (include/peconform/kernel_abi.h): one entry point for every
// family, reading the call as a plugin's kernel must, from DLPack tensors and the spec text.
// It knows nothing of the harness; built into libpeconform_cpu_plugin.so (cpu_plugin.cpp) and
// into the planted-bug plugins, which wrap it.
#include "peconform/kernel_abi.h"

namespace peconform::cpu {

// Runs `call`; PEC_REFUSED (with the reason in `error`) for a spec, dtype or layout the CPU
// kernels do not take, such as a non-contiguous table.
pec_status run_abi_call(const pec_call* call, char* error, size_t error_size) noexcept;

}  // namespace peconform::cpu
