// libpeconform_cpu_plugin.so: our CPU kernels as any kernel library presents itself, through
// the C ABI alone. `peconform run --plugin` on it must give the cells and verdicts that
// `--backend cpu` gives on the same seed: that shows the ABI carries every family, dtype,
// layout, plan and call shape the campaign draws.
#include "backends/cpu/plugin/cpu_abi_kernel.hpp"
#include "peconform/kernel_abi.h"

namespace {

// Every family, each key left to the campaign, in the order `--backend cpu` is drawn.
constexpr const char* kEveryFamily =
    "sinusoidal(*); learned(*); rope(*); xpos(*); mrope(*); rope2d(*); alibi(*); t5(*); shaw(*); xl(*)";

const pec_kernel kKernels[] = {
    {"cpu", kEveryFamily, kDLCPU, PEC_TAKES_EVERY_CALL, int64_t{1} << 32, peconform::cpu::run_abi_call},
};

const pec_plugin kPlugin = {PECONFORM_ABI_VERSION, "peconform-cpu", 1, kKernels};

}  // namespace

extern "C" __attribute__((visibility("default"))) const pec_plugin* peconform_plugin_v1(void) { return &kPlugin; }
