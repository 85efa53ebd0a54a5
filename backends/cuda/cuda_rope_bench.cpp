// cuda_rope_bench: our CUDA RoPE kernel (exact-angle, half layout, in place, on the fly) on the
// shapes of tools/gpu-campaign.sh, next to a device-to-device copy of the same bytes measured in
// the same run. RoPE reads and writes every element once, as the copy does, so the copy's time
// over RoPE's is the fraction of the copy bandwidth RoPE reaches. Prints one JSON object.
//
// Usage: cuda_rope_bench [--repeats N]   (N >= 1, default 50)
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "backends/cpu/rotary_plan.hpp"
#include "backends/cuda/cuda_devices.hpp"
#include "backends/cuda/cuda_place.hpp"
#include "backends/cuda/device_rotary_plan.hpp"

namespace peconform::cuda {
namespace {

struct Shape {
  std::int64_t batch, seq, heads, dim;
};

// The median of `repeats` timed runs of `body` after one untimed one, by CUDA events.
void check(cudaError_t error, const char* what) {
  if (error != cudaSuccess) throw std::runtime_error(fmt::format("{} failed: {}", what, cudaGetErrorString(error)));
}

template <class Body> double median_milliseconds(int repeats, Body body) {
  body();
  check(cudaDeviceSynchronize(), "warm-up");
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  std::vector<double> times;
  for (int r = 0; r < repeats; ++r) {
    check(cudaEventRecord(start), "cudaEventRecord");
    body();
    check(cudaEventRecord(stop), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float milliseconds = 0;
    check(cudaEventElapsedTime(&milliseconds, start, stop), "cudaEventElapsedTime");
    times.push_back(milliseconds);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

std::string measure(const KernelPlace& place, const Shape& shape, Dtype dtype, int repeats) {
  const std::string spec_text = fmt::format("rope(d={},base=10000,layout=half,dtype={})", shape.dim, dtype_name(dtype));
  const cpu::RotaryPlan plan = cpu::make_rotary_plan(Spec::parse(spec_text), shape.seq);
  const UploadedRotaryPlan device = upload_rotary_plan(place, plan);
  const std::int64_t elements = shape.batch * shape.seq * shape.heads * shape.dim;
  const std::size_t bytes = static_cast<std::size_t>(elements) * (dtype == Dtype::fp32 ? 4 : 2);
  PlacedMemory tensor(place, bytes), copy(place, bytes);
  check(cudaMemset(tensor.data(), 0, bytes), "cudaMemset");
  std::vector<std::int64_t> positions(static_cast<std::size_t>(shape.batch * shape.seq));
  for (std::size_t i = 0; i < positions.size(); ++i) positions[i] = static_cast<std::int64_t>(i) % shape.seq;
  const auto ids_memory = upload_vector(place, positions);
  const DeviceIds ids{ids_memory->data(), true, shape.batch, shape.seq, 0};
  RotaryOperands operands;
  operands.count = 1;
  DeviceOperand& operand = operands.operand[0];
  operand.in = tensor.data();
  operand.out = tensor.data();
  operand.heads = shape.heads;
  const std::int64_t strides[4] = {shape.seq * shape.heads * shape.dim, shape.heads * shape.dim, shape.dim, 1};
  std::copy(strides, strides + 4, operand.in_stride);
  std::copy(strides, strides + 4, operand.out_stride);

  const double rope = median_milliseconds(repeats, [&] {
    const int error = launch_rotary(storage_of(dtype), device.plan, operands, ids);
    if (error != cudaSuccess) check(static_cast<cudaError_t>(error), "the rotary kernel's launch");
  });
  const double copied = median_milliseconds(repeats, [&] { check(cudaMemcpy(copy.data(), tensor.data(), bytes, cudaMemcpyDeviceToDevice), "copy"); });
  check(cudaDeviceSynchronize(), "the rotary kernel");
  const double moved = 2.0 * static_cast<double>(bytes);  // read once, written once
  return fmt::format(R"({{"shape": [{}, {}, {}, {}], "dtype": "{}", "bytes": {}, "rope_ms": {:.4f}, "copy_ms": {:.4f}, )"
                     R"("rope_gb_per_s": {:.1f}, "copy_gb_per_s": {:.1f}, "fraction_of_copy": {:.3f}}})",
                     shape.batch, shape.seq, shape.heads, shape.dim, dtype_name(dtype), bytes, rope, copied, moved / rope / 1e6,
                     moved / copied / 1e6, copied / rope);
}

int bench(int argc, char** argv) {
  int repeats = 50;
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    if (argument == "--repeats" && i + 1 < argc) {
      repeats = std::atoi(argv[++i]);
      if (repeats < 1) {
        std::fprintf(stderr, "cuda_rope_bench: --repeats must be a positive integer, found '%s'\n", argv[i]);
        return 2;
      }
    } else {
      std::fprintf(stderr, "cuda_rope_bench: unknown argument '%s'; usage: cuda_rope_bench [--repeats N]\n", argv[i]);
      return 2;
    }
  }
  const CudaDevices found = cuda_devices();
  if (found.devices.empty()) {
    std::fprintf(stderr, "cuda_rope_bench: no CUDA device: %s\n", found.unavailable.c_str());
    return 2;
  }
  const std::unique_ptr<KernelPlace> place = make_cuda_place(found.devices.front().index);
  std::vector<std::string> records;
  for (const Shape& shape : {Shape{1, 4096, 32, 128}, Shape{1, 131072, 8, 128}})
    for (const Dtype dtype : {Dtype::bf16, Dtype::fp32}) records.push_back(measure(*place, shape, dtype, repeats));
  const CudaDevice& device = found.devices.front();
  std::string joined;
  for (const std::string& record : records) joined += (joined.empty() ? "\n    " : ",\n    ") + record;
  std::printf("{\n  \"device\": \"%s\", \"compute_capability\": \"%d.%d\", \"repeats\": %d,\n  \"records\": [%s\n  ]\n}\n",
              device.name.c_str(), device.major, device.minor, repeats, joined.c_str());
  return 0;
}

}  // namespace
}  // namespace peconform::cuda

int main(int argc, char** argv) {
  try {
    return peconform::cuda::bench(argc, argv);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "cuda_rope_bench: %s\n", error.what());
    return 3;
  }
}
