// Times the OpenCL backend against our CPU kernels on the same drawn calls, through the
// TensorBackend interface the campaign uses (so the OpenCL time includes the copies of the
// whole buffers to the device and back). Not a test: tools/BENCHMARKS.md quotes its output.
//   opencl_vs_cpu_timing [repeats] ['case text' ...]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "backends/backend_registry.hpp"
#include "harness/case_call.hpp"
#include "harness/case_description.hpp"

namespace {

double median_milliseconds(const peconform::TensorBackend& backend, const peconform::KernelCall& call, int repeats) {
  std::vector<double> times;
  for (int r = 0; r <= repeats; ++r) {  // the first run builds the program and warms the caches
    peconform::KernelCall copy = call;
    const auto start = std::chrono::steady_clock::now();
    backend.run(copy);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (r > 0) times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
  std::vector<std::string> cases(argv + std::min(argc, 2), argv + argc);
  if (cases.empty())
    cases = {
        "rope(d=128,base=10000,layout=half,dtype=fp32) | batch=1 seq=4096 heads=32 place=out ids=int64 seed=1",
        "rope(d=128,base=10000,layout=half,dtype=bf16) | batch=1 seq=4096 heads=32 place=out ids=int64 seed=1",
        "rope(d=128,base=10000,layout=half,dtype=bf16,precision=fp32-angle,theta=hf) | batch=1 seq=4096 heads=32 place=out seed=1",
        "rope(d=128,base=10000,layout=half,dtype=bf16) | batch=1 seq=131072 heads=8 place=in ids=int64 seed=1",
        "sinusoidal(d=512,base=10000,layout=interleaved,dtype=fp32) | seq=4096 seed=1",
        "alibi(heads=32,mode=causal,dtype=fp32) | seq=512 keys=512 seed=1",
    };
  const auto cpu = peconform::make_backend("cpu");
  const auto opencl = peconform::make_backend("opencl");
  std::printf("| call | cpu ms | opencl ms | opencl / cpu |\n|---|---:|---:|---:|\n");
  for (const std::string& text : cases) {
    const peconform::KernelCall call = peconform::harness::materialize(peconform::harness::CaseDescription::parse(text));
    const double cpu_ms = median_milliseconds(*cpu, call, repeats);
    const double opencl_ms = median_milliseconds(*opencl, call, repeats);
    std::printf("| `%s` | %.3f | %.3f | %.1f |\n", text.c_str(), cpu_ms, opencl_ms, opencl_ms / cpu_ms);
  }
}
