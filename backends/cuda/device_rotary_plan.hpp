#pragma once
// A rotary plan from the CPU backend's plan code (backends/cpu/rotary_plan.hpp) on the device:
// its per-pair arrays uploaded, its scalars in the DeviceRotaryPlan the kernel takes. Shared by
// the tensor backend and the benchmark (cuda_rope_bench.cpp).
#include <memory>
#include <vector>

#include "backends/cpu/rotary_plan.hpp"
#include "backends/cuda/cuda_kernels.hpp"
#include "backends/cuda/device_memory.hpp"

namespace peconform::cuda {

struct UploadedRotaryPlan {
  std::vector<std::unique_ptr<DeviceMemory>> arrays;  // what plan's pointers point into
  DeviceRotaryPlan plan;
};

UploadedRotaryPlan upload_rotary_plan(const cpu::RotaryPlan& plan);

Storage storage_of(Dtype dtype);

}  // namespace peconform::cuda
