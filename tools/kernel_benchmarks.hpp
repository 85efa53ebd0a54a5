#pragma once
// The kernel benchmarks `peconform bench` runs: the shapes the issue names, each with the bytes
// one run reads and writes, so that a time becomes GB/s and a fraction of the triad's.
#include <functional>
#include <string>
#include <vector>

namespace peconform {

struct KernelBenchmark {
  std::string name;
  std::string shape;
  std::string dtype;
  double bytes = 0;  // read + written by one run: tensors, ids, cos/sin cache
  // Allocates and fills the buffers, and returns one run of the kernel over them (which owns
  // them); called once per benchmark, so that only one benchmark's memory is held at a time.
  std::function<std::function<void()>()> prepare;
};

std::vector<KernelBenchmark> kernel_benchmarks();

}  // namespace peconform
