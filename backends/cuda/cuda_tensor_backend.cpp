#include "backends/cuda/cuda_tensor_backend.hpp"

#include <algorithm>

#include "backends/cpu/t5_plan.hpp"
#include "backends/cpu/table_kernels.hpp"
#include "backends/cuda/device_rotary_plan.hpp"
#include "backends/cuda/kernel_place.hpp"
#include "backends/device_call_checks.hpp"

namespace peconform::cuda {
namespace {

// A host Buffer on the device, copied whole: its guards, padding and sentinels travel with it.
class DeviceBuffer {
 public:
  DeviceBuffer(const KernelPlace& place, const Buffer& host) : host_(host), memory_(place, host.bytes.size()) {
    memory_.upload(host.bytes.data());
  }
  void* data() const { return static_cast<std::byte*>(memory_.data()) + host_.origin * static_cast<std::int64_t>(element_size(host_.type)); }
  void download(Buffer& host) const { memory_.download(host.bytes.data()); }

 private:
  const Buffer& host_;
  PlacedMemory memory_;
};

// The ids on the device, as the call holds them (int32 or int64); the offset is added there.
struct UploadedIds {
  std::unique_ptr<PlacedMemory> memory;
  DeviceIds ids;
};
UploadedIds upload_ids(const KernelPlace& place, const KernelCall& call) {
  UploadedIds uploaded;
  uploaded.memory = call.ids64 ? upload_vector(place, call.ids64_data) : upload_vector(place, call.ids32_data);
  uploaded.ids = {uploaded.memory->data(), call.ids64, call.batch, call.seq, call.id_offset};
  return uploaded;
}

// device::check_rotary_call lets through as many operands as a KernelCall holds.
static_assert(kMaxDeviceOperands >= kMaxOperands, "the rotary kernel must take every operand of a call");

void run_rotary(const KernelPlace& place, KernelCall& call) {
  const cpu::RotaryPlan plan = cpu::make_rotary_plan(call.spec, call.sequence_length);
  device::check_rotary_call(plan, call);
  const std::size_t count = call.outputs.size();
  const UploadedRotaryPlan device = upload_rotary_plan(place, plan);
  const UploadedIds device_ids = upload_ids(place, call);

  // interleaved_to_half in place would have a thread write where another still reads, so the
  // kernel reads from a copy of the operand made before it runs (the CPU kernel's row buffer).
  const bool read_from_copy = call.in_place && call.spec.layout == Layout::interleaved_to_half;
  std::vector<std::unique_ptr<DeviceBuffer>> outputs, sources;
  RotaryOperands operands;
  operands.count = static_cast<int>(count);
  for (std::size_t k = 0; k < count; ++k) {
    const Buffer& out = call.outputs[k];
    outputs.push_back(std::make_unique<DeviceBuffer>(place, out));
    const bool separate = !call.in_place || read_from_copy;
    if (separate) sources.push_back(std::make_unique<DeviceBuffer>(place, call.in_place ? out : call.inputs[k]));
    const Buffer& in = call.in_place ? out : call.inputs[k];
    DeviceOperand& operand = operands.operand[k];
    operand.out = outputs.back()->data();
    operand.in = separate ? sources.back()->data() : operand.out;
    operand.heads = out.shape[2];
    for (std::size_t axis = 0; axis < 4; ++axis) {
      operand.in_stride[axis] = in.stride[axis];
      operand.out_stride[axis] = out.stride[axis];
    }
  }
  place.rotary(storage_of(call.spec.dtype), device.plan, operands, device_ids.ids);
  for (std::size_t k = 0; k < count; ++k) outputs[k]->download(call.outputs[k]);
  // Inputs come back too, so that a kernel that wrote into one is caught (input_fingerprint).
  if (!call.in_place)
    for (std::size_t k = 0; k < count; ++k) sources[k]->download(call.inputs[k]);
}

void run_sinusoid(const KernelPlace& place, KernelCall& call) {
  const Spec& spec = call.spec;
  const cpu::SinusoidPlan plan = cpu::make_sinusoid_plan(spec);
  const bool absolute = spec.family == Family::sinusoidal;
  device::check_table_call(plan, call);
  Buffer& out = call.outputs[0];
  std::vector<pec_frequency> frequency;
  std::vector<float> frequency_f32;
  for (const cpu::SplitFrequency& f : plan.frequency) frequency.push_back({f.hi, f.lo});
  for (const double f : plan.frequency_f32) frequency_f32.push_back(static_cast<float>(f));
  const auto frequencies = upload_vector(place, frequency);
  const auto frequencies_f32 = upload_vector(place, frequency_f32);
  DeviceSinusoidPlan device;
  device.d = spec.d;
  device.absolute = absolute;
  device.interleaved = absolute && spec.layout == Layout::interleaved;
  device.cos_first = absolute && spec.order == SinusoidalOrder::cos_sin;
  device.float_angle = spec.precision == PrecisionClass::fp32_angle;
  device.first = call.first;
  device.rows = call.rows;
  device.offset = spec.offset;
  device.clamp_len = spec.clamp_len;
  device.frequency = static_cast<const pec_frequency*>(frequencies->data());
  device.frequency_f32 = static_cast<const float*>(frequencies_f32->data());
  device.amplitude = plan.amplitude;
  DeviceBuffer device_out(place, out);
  place.sinusoid(storage_of(spec.dtype), device, device_out.data(), out.stride[1], out.stride[3]);
  device_out.download(out);
}

void run_alibi(const KernelPlace& place, KernelCall& call) {
  const cpu::AlibiPlan plan = cpu::make_alibi_plan(call.spec);
  device::check_relative_call(call);
  device::check_alibi_math(call.spec, "CUDA");
  const auto heads = static_cast<std::int64_t>(plan.slope.size());
  std::vector<float> slope_f32;
  for (const double slope : plan.slope_f32) slope_f32.push_back(static_cast<float>(slope));  // float32 values, exact
  const auto slopes = upload_vector(place, plan.slope);
  const auto slopes_f32 = upload_vector(place, slope_f32);
  DeviceAlibiPlan device;
  device.heads = heads;
  device.q_first = call.first;
  device.q_len = call.rows;
  device.k_first = call.key_first;
  device.k_len = call.keys;
  device.mode = static_cast<int>(call.spec.mode);
  device.float_angle = call.spec.precision == PrecisionClass::fp32_angle;
  device.slope = static_cast<const double*>(slopes->data());
  device.slope_f32 = static_cast<const float*>(slopes_f32->data());
  Buffer& out = call.outputs[0];
  DeviceBuffer device_out(place, out);
  place.alibi(storage_of(call.spec.dtype), device, device_out.data(), {out.stride[1], out.stride[2], out.stride[3]});
  device_out.download(out);
}

void run_relative_index(const KernelPlace& place, KernelCall& call) {
  device::check_relative_call(call);
  const bool t5 = call.spec.family == Family::t5;
  std::vector<std::int64_t> bucket_start;
  DeviceRelativeIndexPlan device;
  device.t5 = t5;
  if (t5) {
    const cpu::T5Plan plan = cpu::make_t5_plan(call.spec);
    bucket_start = plan.bucket_start;
    device.bidirectional = call.spec.bidirectional;
    device.upper_half = static_cast<std::int32_t>(call.spec.buckets / 2);
    device.exact = plan.exact;
  } else {
    device.left = call.spec.k;
    device.right = call.spec.shaw_right();
  }
  const auto starts = upload_vector(place, bucket_start);
  device.bucket_start = static_cast<const std::int64_t*>(starts->data());
  device.starts = static_cast<int>(bucket_start.size());
  device.q_first = call.first;
  device.q_len = call.rows;
  device.k_first = call.key_first;
  device.k_len = call.keys;
  Buffer& out = call.outputs[0];
  DeviceBuffer device_out(place, out);
  place.relative_index(device, static_cast<std::int32_t*>(device_out.data()), {0, out.stride[2], out.stride[3]});
  device_out.download(out);
}

void run_gather(const KernelPlace& place, KernelCall& call) {
  const Spec& spec = call.spec;
  device::check_gather_call(call);
  const Buffer& table = call.inputs[0];
  Buffer& out = call.outputs[0];
  const UploadedIds device_ids = upload_ids(place, call);
  DeviceBuffer device_table(place, table), device_out(place, out);
  DeviceGather gather;
  gather.table = device_table.data();
  gather.table_row_stride = table.stride[2];
  gather.table_element_stride = table.stride[3];
  gather.out = device_out.data();
  for (std::size_t axis = 0; axis < 4; ++axis) gather.out_stride[axis] = out.stride[axis];
  gather.d = spec.d;
  gather.element_size = static_cast<int>(element_size(out.type));
  gather.amplitude = spec.amp.to_double();
  gather.storage = storage_of(spec.dtype);
  place.gather(gather, device_ids.ids);
  device_out.download(out);
  device_table.download(call.inputs[0]);
}

class PlacedTensorBackend final : public TensorBackend {
 public:
  PlacedTensorBackend(std::string name, std::shared_ptr<const KernelPlace> place, std::int64_t memory_bytes)
      : name_(std::move(name)), place_(std::move(place)), memory_bytes_(memory_bytes) {}
  std::string name() const override { return name_; }
  BackendCapabilities capabilities() const override {
    BackendCapabilities capabilities;
    capabilities.families = all_families();
    capabilities.dtypes = {Dtype::fp64, Dtype::fp32, Dtype::fp16, Dtype::bf16};
    capabilities.precisions = {PrecisionClass::exact_angle, PrecisionClass::fp32_angle, PrecisionClass::lowp_cache};
    capabilities.takes_rounding_keys = true;
    // A call holds its inputs and outputs, at most 8 bytes an element each, at once.
    capabilities.largest_call_elements = std::min<std::int64_t>(std::int64_t{1} << 32, memory_bytes_ / 32);
    // make_cuda_place chose the device with cudaSetDevice, which holds for the thread that made
    // the backend only: on another thread the calls would go to device 0.
    capabilities.calling_thread_only = true;
    return capabilities;
  }
  void run(KernelCall& call) const override {
    const KernelPlace& place = *place_;
    switch (call.spec.family) {
      case Family::rope:
      case Family::xpos:
      case Family::mrope:
      case Family::rope2d: run_rotary(place, call); break;
      case Family::sinusoidal:
      case Family::xl: run_sinusoid(place, call); break;
      case Family::alibi: run_alibi(place, call); break;
      case Family::t5:
      case Family::shaw: run_relative_index(place, call); break;
      case Family::learned: run_gather(place, call); break;
    }
  }

 private:
  std::string name_;
  std::shared_ptr<const KernelPlace> place_;
  std::int64_t memory_bytes_;
};

}  // namespace

std::unique_ptr<TensorBackend> make_placed_tensor_backend(std::string name, std::shared_ptr<const KernelPlace> place,
                                                          std::int64_t memory_bytes) {
  return std::make_unique<PlacedTensorBackend>(std::move(name), std::move(place), memory_bytes);
}

}  // namespace peconform::cuda
