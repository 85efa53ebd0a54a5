#include "backends/cuda/device_rotary_plan.hpp"

#include "backends/gpu/element_index.h"

namespace peconform::cuda {

Storage storage_of(Dtype dtype) {
  switch (dtype) {
    case Dtype::fp64: return Storage::fp64;
    case Dtype::fp32: return Storage::fp32;
    case Dtype::fp16: return Storage::fp16;
    case Dtype::bf16: return Storage::bf16;
  }
  return Storage::fp32;
}

UploadedRotaryPlan upload_rotary_plan(const KernelPlace& place, const cpu::RotaryPlan& plan) {
  const Spec& spec = plan.spec;
  std::vector<pec_frequency> frequency;
  std::vector<float> frequency_f32;
  for (const cpu::SplitFrequency& f : plan.frequency) frequency.push_back({f.hi, f.lo});
  for (const double f : plan.frequency_f32) frequency_f32.push_back(static_cast<float>(f));  // float32 values, exact
  UploadedRotaryPlan uploaded;
  const auto device_pointer = [&](std::unique_ptr<PlacedMemory> memory) {
    uploaded.arrays.push_back(std::move(memory));
    return uploaded.arrays.back()->data();
  };
  DeviceRotaryPlan& device = uploaded.plan;
  device.pair_axis = static_cast<const int*>(device_pointer(upload_vector(place, plan.pair_axis)));
  device.pair_frequency = static_cast<const int*>(device_pointer(upload_vector(place, plan.pair_frequency)));
  device.frequency = static_cast<const pec_frequency*>(device_pointer(upload_vector(place, frequency)));
  device.frequency_f32 = static_cast<const float*>(device_pointer(upload_vector(place, frequency_f32)));
  // ggml's per-index divisors and ramp, laid out per pair as the kernel reads them.
  const auto per_pair = [&](const std::vector<float>& per_index) {
    std::vector<float> values;
    for (const int k : plan.pair_frequency) values.push_back(per_index[static_cast<std::size_t>(k)]);
    return static_cast<const float*>(device_pointer(upload_vector(place, values)));
  };
  if (!plan.float32.divisor.empty()) device.ggml_divisor = per_pair(plan.float32.divisor);
  if (!plan.float32.ramp.empty()) device.ggml_ramp = per_pair(plan.float32.ramp);
  if (!plan.xpos_log_zeta.empty()) device.xpos_log_zeta = static_cast<const double*>(device_pointer(upload_vector(place, plan.xpos_log_zeta)));
  device.d = plan.d;
  device.start = plan.start;
  device.dims = plan.dims;
  device.pairs = plan.pairs;
  device.layout = spec.layout == Layout::interleaved ? PEC_GPU_LAYOUT_INTERLEAVED
                  : spec.layout == Layout::half      ? PEC_GPU_LAYOUT_HALF
                                                     : PEC_GPU_LAYOUT_INTERLEAVED_TO_HALF;
  const bool float_angle = spec.precision == PrecisionClass::fp32_angle;
  device.angle = !float_angle ? AngleForm::exact : plan.float32.running ? AngleForm::ggml_running : AngleForm::float32;
  device.cache_in_storage = spec.cos_sin_in_storage();
  device.storage_math = spec.math == RoundsIn::storage;
  device.attention = plan.attention;
  device.sign = spec.sign;
  device.ggml_scale = plan.float32.scale;
  device.ggml_freq_scale = plan.float32.freq_scale;
  return uploaded;
}

}  // namespace peconform::cuda
