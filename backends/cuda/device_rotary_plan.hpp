#pragma once
// A rotary plan from the CPU backend's plan code (backends/cpu/rotary_plan.hpp) where the kernel
// runs: its per-pair arrays uploaded, its scalars in the DeviceRotaryPlan the kernel takes.
// Shared by the tensor backend and the benchmark (cuda_rope_bench.cpp).
#include <memory>
#include <vector>

#include "backends/cpu/rotary_plan.hpp"
#include "backends/cuda/kernel_place.hpp"

namespace peconform::cuda {

struct UploadedRotaryPlan {
  std::vector<std::unique_ptr<PlacedMemory>> arrays;  // what plan's pointers point into
  DeviceRotaryPlan plan;
};

UploadedRotaryPlan upload_rotary_plan(const KernelPlace& place, const cpu::RotaryPlan& plan);

Storage storage_of(Dtype dtype);

}  // namespace peconform::cuda
