#include "backends/opencl/opencl_tensor_backend.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <fmt/format.h>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "backends/cpu/t5_plan.hpp"
#include "backends/device_call_checks.hpp"
#include "backends/gpu/element_index.h"
#include "backends/opencl/kernel_args.h"
#include "backends/opencl/opencl_points.hpp"
#include "backends/opencl/opencl_runtime.hpp"
#include "backends/opencl/program_source.hpp"
#include "spec/spec_error.hpp"

namespace peconform::opencl {
namespace {

int dtype_code(Dtype dtype) {
  switch (dtype) {
    case Dtype::fp64: return PEC_DTYPE_FP64;
    case Dtype::fp32: return PEC_DTYPE_FP32;
    case Dtype::fp16: return PEC_DTYPE_FP16;
    case Dtype::bf16: return PEC_DTYPE_BF16;
  }
  return PEC_DTYPE_FP32;
}

// The device buffers of a call, by role. Inputs and outputs of operand k: kData + 2k, + 1.
enum Slot : std::size_t { kPlan, kArgs, kIds, kData };
constexpr std::size_t input_slot_of(std::size_t k) { return kData + 2 * k; }
constexpr std::size_t output_slot_of(std::size_t k) { return kData + 2 * k + 1; }
constexpr std::size_t kSlots = kData + 2 * kMaxOperands;

void put_view(std::vector<cl_long>& args, std::size_t at, const Buffer& buffer) {
  args[at] = buffer.origin;
  for (std::size_t k = 0; k < 4; ++k) args[at + 1 + k] = buffer.stride[k];
}

// A launch's extent in each of its three dimensions (dimension 0 the innermost).
std::array<std::size_t, 3> items(std::int64_t x, std::int64_t y = 1, std::int64_t z = 1) {
  const auto size = [](std::int64_t n) { return static_cast<std::size_t>(std::max<std::int64_t>(n, 0)); };
  return {size(x), size(y), size(z)};
}

// The plan of the last spec one family's calls came with. The property catalog makes thousands
// of one-point calls on one spec, and planning (frequencies in binary128) was most of such a
// call's time; a campaign's calls change spec from call to call and plan each time.
template <class Plan> class LastPlan {
 public:
  template <class Make> const Plan& get(const Spec& spec, std::int64_t sequence_length, Make make) {
    if (!held_ || !(held_->spec == spec) || held_->sequence_length != sequence_length)
      held_.emplace(Held{spec, sequence_length, make()});
    return held_->plan;
  }

 private:
  struct Held {
    Spec spec;
    std::int64_t sequence_length;
    Plan plan;
  };
  std::optional<Held> held_;
};

// Waits, on leaving run() by return or throw, for every copy the queue holds: none may read a
// call's buffers after the caller has them back.
class QueueDrain {
 public:
  explicit QueueDrain(const Context& context) : context_(context) {}
  ~QueueDrain() { clFinish(context_.queue()); }
  QueueDrain(const QueueDrain&) = delete;
  QueueDrain& operator=(const QueueDrain&) = delete;

 private:
  const Context& context_;
};

class OpenClTensorBackend final : public TensorBackend {
 public:
  explicit OpenClTensorBackend(const DeviceInfo& device) : context_(device), points_(*this) {
    if (!device.fp64)
      throw OpenClUnavailable(fmt::format("OpenCL device {} ({}) lacks cl_khr_fp64: the OpenCL backend forms exact-angle "
                                          "angles and reduces them in double on the device",
                                          device.index, device.name));
  }

  std::string name() const override { return "opencl"; }

  BackendCapabilities capabilities() const override {
    BackendCapabilities capabilities;
    capabilities.families = all_families();
    capabilities.dtypes = {Dtype::fp64, Dtype::fp32, Dtype::fp16, Dtype::bf16};
    capabilities.precisions = {PrecisionClass::exact_angle, PrecisionClass::fp32_angle, PrecisionClass::lowp_cache};
    capabilities.takes_rounding_keys = true;
    // A call's buffers (an input and an output of 8-byte elements, with padding) within an
    // eighth of the device's largest allocation.
    const auto device_limit = static_cast<std::int64_t>(context_.device().largest_allocation / 64);
    capabilities.largest_call_elements = std::min(std::int64_t{1} << 28, device_limit);
    capabilities.calling_thread_only = false;
    return capabilities;
  }

  // Device buffers are kept from call to call, one per slot, each grown to the largest call it
  // has served: the first write into a fresh buffer faults in every page, which on PoCL was
  // most of a call's time. Each call writes the bytes it uses and the kernels address no more.
  // The call's own data (its buffers and ids) is written without waiting: the call outlives
  // run(), which drains the queue before it returns or throws. A run_*'s local vectors (plans,
  // arguments) do not outlive a throw, so they are written and waited for.
  DeviceBuffer& kept(std::size_t slot, std::size_t bytes) const {
    std::optional<DeviceBuffer>& buffer = pool_.at(slot);
    if (!buffer || buffer->size() < bytes) {
      buffer.reset();
      buffer.emplace(context_, std::max<std::size_t>(bytes, 64));
    }
    return *buffer;
  }
  template <class T> const DeviceBuffer& staged_local(std::size_t slot, const std::vector<T>& values) const {
    DeviceBuffer& buffer = kept(slot, values.size() * sizeof(T));
    buffer.write_at(0, values.data(), values.size() * sizeof(T));
    return buffer;
  }
  template <class T, class Allocator>
  const DeviceBuffer& staged_from_call(std::size_t slot, const std::vector<T, Allocator>& values) const {
    DeviceBuffer& buffer = kept(slot, values.size() * sizeof(T));
    buffer.enqueue_write_at(0, values.data(), values.size() * sizeof(T));
    return buffer;
  }
  // A host buffer's whole bytes (guards, padding and sentinels) on the device.
  const DeviceBuffer& staged_from_call(std::size_t slot, const Buffer& buffer) const { return staged_from_call(slot, buffer.bytes); }
  const DeviceBuffer& staged_ids(const KernelCall& call) const {
    return call.ids64 ? staged_from_call(kIds, call.ids64_data) : staged_from_call(kIds, call.ids32_data);
  }
  void read_back(std::size_t slot, Buffer& buffer) const { pool_[slot]->read_at(0, buffer.bytes.data(), buffer.bytes.size()); }

  // Kernel `name` of the program for `dtype`, made once: clCreateKernel per call cost PoCL as
  // much as a one-point call's work. A kernel's arguments are set anew by every call.
  Kernel& kernel(Dtype dtype, const char* name) const {
    const auto key = std::make_pair(dtype_code(dtype), std::string(name));
    auto found = kernels_.find(key);
    if (found == kernels_.end()) found = kernels_.emplace(key, program(dtype).kernel(name)).first;
    return found->second;
  }

  void run(KernelCall& call) const override {
    const std::lock_guard lock(mutex_);
    const QueueDrain drain(context_);
    switch (call.spec.family) {
      case Family::rope:
      case Family::xpos:
      case Family::mrope:
      case Family::rope2d: run_rotary(call); break;
      case Family::sinusoidal:
      case Family::xl: run_table(call); break;
      case Family::alibi: run_alibi(call); break;
      case Family::t5:
      case Family::shaw: run_index(call); break;
      case Family::learned: run_gather(call); break;
    }
  }

  const Implementation* points() const override { return &points_; }

 private:
  // The program for one storage dtype, built on first use (PoCL compiles it with LLVM, most
  // of a second) and kept.
  const Program& program(Dtype dtype) const {
    const int code = dtype_code(dtype);
    auto found = programs_.find(code);
    if (found == programs_.end()) {
      const std::string options = fmt::format("-cl-std=CL1.2 -DPEC_DTYPE={}", code);
      found = programs_.emplace(code, Program(context_, std::string(program_source()), options)).first;
    }
    return found->second;
  }

  void run_rotary(KernelCall& call) const {
    const cpu::RotaryPlan& plan =
        rotary_plan_.get(call.spec, call.sequence_length, [&] { return cpu::make_rotary_plan(call.spec, call.sequence_length); });
    device::check_rotary_call(plan, call);
    const Spec& spec = call.spec;

    std::vector<double> pair_data(static_cast<std::size_t>(plan.pairs) * PEC_PAIR_FIELDS);
    for (std::size_t i = 0; i < static_cast<std::size_t>(plan.pairs); ++i) {
      double* pair = pair_data.data() + i * PEC_PAIR_FIELDS;
      pair[PEC_PAIR_HI] = plan.frequency[i].hi;
      pair[PEC_PAIR_LO] = plan.frequency[i].lo;
      pair[PEC_PAIR_F32] = plan.frequency_f32[i];
      pair[PEC_PAIR_LOG_ZETA] = plan.xpos_log_zeta.empty() ? 0.0 : plan.xpos_log_zeta[i];
      pair[PEC_PAIR_AXIS] = plan.pair_axis[i];
      pair[PEC_PAIR_INDEX] = plan.pair_frequency[i];
      const auto k = static_cast<std::size_t>(plan.pair_frequency[i]);
      pair[PEC_PAIR_DIVISOR] = plan.float32.divisor.empty() ? 1.0 : plan.float32.divisor[k];
      pair[PEC_PAIR_RAMP] = plan.float32.ramp.empty() ? 0.0 : plan.float32.ramp[k];
    }
    const bool float_angle = spec.precision == PrecisionClass::fp32_angle;
    std::vector<cl_long> args(PEC_ROTARY_ARGS);
    args[PEC_ROTARY_BATCH] = call.batch;
    args[PEC_ROTARY_SEQ] = call.seq;
    args[PEC_ROTARY_PAIRS] = plan.pairs;
    args[PEC_ROTARY_START] = plan.start;
    args[PEC_ROTARY_D] = plan.d;
    args[PEC_ROTARY_DIMS] = plan.dims;
    args[PEC_ROTARY_AXES] = plan.axes;
    args[PEC_ROTARY_LAYOUT] = spec.layout == Layout::interleaved ? PEC_GPU_LAYOUT_INTERLEAVED
                              : spec.layout == Layout::half      ? PEC_GPU_LAYOUT_HALF
                                                                 : PEC_GPU_LAYOUT_INTERLEAVED_TO_HALF;
    args[PEC_ROTARY_ID_OFFSET] = call.id_offset;
    args[PEC_ROTARY_IDS64] = call.ids64;
    args[PEC_ROTARY_OPERANDS] = static_cast<cl_long>(call.outputs.size());
    args[PEC_ROTARY_FLAGS] = (float_angle ? PEC_ROTARY_FLOAT_ANGLE : 0) |
                             (float_angle && plan.float32.running ? PEC_ROTARY_RUNNING : 0) |
                             (plan.float32.ramp.empty() ? 0 : PEC_ROTARY_YARN) |
                             (spec.cos_sin_in_storage() ? PEC_ROTARY_CACHE_STORAGE : 0) |
                             (spec.math == RoundsIn::storage ? PEC_ROTARY_MATH_STORAGE : 0);
    for (std::size_t k = 0; k < call.outputs.size(); ++k) {
      const std::size_t at = PEC_ROTARY_OPERAND0 + k * PEC_OPERAND_FIELDS;
      const Buffer& out = call.outputs[k];
      args[at + PEC_OPERAND_HEADS] = out.shape[2];
      put_view(args, at + PEC_OPERAND_IN_ORIGIN, call.in_place ? out : call.inputs[k]);
      put_view(args, at + PEC_OPERAND_OUT_ORIGIN, out);
    }

    const DeviceBuffer& pairs = staged_local(kPlan, pair_data);
    const DeviceBuffer& arg_buffer = staged_local(kArgs, args);
    const DeviceBuffer& ids = staged_ids(call);
    // In place the kernel reads and writes one buffer, except that interleaved_to_half writes
    // elements another work-item has still to read: it reads a second copy instead.
    const bool separate_input = !call.in_place || spec.layout == Layout::interleaved_to_half;
    std::vector<const DeviceBuffer*> inputs, outputs;
    for (std::size_t k = 0; k < call.outputs.size(); ++k) {
      outputs.push_back(&staged_from_call(output_slot_of(k), call.outputs[k]));
      inputs.push_back(separate_input ? &staged_from_call(input_slot_of(k), call.in_place ? call.outputs[k] : call.inputs[k]) : outputs[k]);
    }
    const std::size_t second = call.outputs.size() > 1 ? 1 : 0;

    Kernel& rotary = kernel(spec.dtype, "pec_rotary");
    rotary.set_buffer(0, pairs);
    rotary.set_buffer(1, arg_buffer);
    rotary.set_buffer(2, ids);
    rotary.set_buffer(3, *inputs[0]);
    rotary.set_buffer(4, *outputs[0]);
    rotary.set_buffer(5, *inputs[second]);
    rotary.set_buffer(6, *outputs[second]);
    rotary.set_arg(7, static_cast<cl_double>(plan.attention));
    rotary.set_arg(8, static_cast<cl_double>(spec.sign));
    rotary.set_arg(9, static_cast<cl_float>(plan.float32.scale));
    rotary.set_arg(10, static_cast<cl_float>(plan.float32.freq_scale));
    rotary.launch(context_, items(plan.pairs, call.seq, call.batch));
    if (!call.in_place && plan.dims < plan.d) {
      Kernel& copy = kernel(spec.dtype, "pec_copy_unrotated");
      for (std::size_t k = 0; k < call.outputs.size(); ++k) {
        copy.set_buffer(0, arg_buffer);
        copy.set_arg(1, static_cast<cl_long>(k));
        copy.set_buffer(2, *inputs[k]);
        copy.set_buffer(3, *outputs[k]);
        copy.launch(context_, items(plan.d - plan.dims, call.outputs[k].shape[2], call.batch * call.seq));
      }
    }
    for (std::size_t k = 0; k < call.outputs.size(); ++k) read_back(output_slot_of(k), call.outputs[k]);
  }

  void run_table(KernelCall& call) const {
    const cpu::SinusoidPlan& plan = sinusoid_plan_.get(call.spec, 0, [&] { return cpu::make_sinusoid_plan(call.spec); });
    device::check_table_call(plan, call);
    const Spec& spec = call.spec;
    const bool absolute = spec.family == Family::sinusoidal;
    std::vector<double> frequencies;
    for (std::size_t i = 0; i < plan.frequency.size(); ++i) {
      frequencies.push_back(plan.frequency[i].hi);
      frequencies.push_back(plan.frequency[i].lo);
      frequencies.push_back(plan.frequency_f32[i]);
    }
    std::vector<cl_long> args(PEC_TABLE_ARGS);
    args[PEC_TABLE_ROWS] = call.rows;
    args[PEC_TABLE_D] = spec.d;
    args[PEC_TABLE_FIRST] = call.first;
    args[PEC_TABLE_OFFSET] = spec.offset;
    args[PEC_TABLE_CLAMP_LEN] = spec.clamp_len;
    args[PEC_TABLE_ABSOLUTE] = absolute;
    args[PEC_TABLE_INTERLEAVED] = absolute && spec.layout == Layout::interleaved;
    args[PEC_TABLE_COS_FIRST] = absolute && spec.order == SinusoidalOrder::cos_sin;
    args[PEC_TABLE_FLOAT_ANGLE] = spec.precision == PrecisionClass::fp32_angle;
    args[PEC_TABLE_AMPLITUDE] = std::bit_cast<cl_long>(plan.amplitude);
    put_view(args, PEC_TABLE_OUT_ORIGIN, call.outputs[0]);
    const DeviceBuffer& frequency_buffer = staged_local(kPlan, frequencies);
    const DeviceBuffer& arg_buffer = staged_local(kArgs, args);
    const DeviceBuffer& out = staged_from_call(output_slot_of(0), call.outputs[0]);
    Kernel& table = kernel(spec.dtype, "pec_sinusoid");
    table.set_buffer(0, frequency_buffer);
    table.set_buffer(1, arg_buffer);
    table.set_buffer(2, out);
    table.launch(context_, items(spec.d, call.rows));
    read_back(output_slot_of(0), call.outputs[0]);
  }

  static std::vector<cl_long> relative_args(const KernelCall& call) {
    std::vector<cl_long> args(PEC_RELATIVE_ARGS);
    args[PEC_RELATIVE_HEADS] = call.spec.family == Family::alibi ? call.spec.heads : 1;
    args[PEC_RELATIVE_Q_FIRST] = call.first;
    args[PEC_RELATIVE_Q_LEN] = call.rows;
    args[PEC_RELATIVE_K_FIRST] = call.key_first;
    args[PEC_RELATIVE_K_LEN] = call.keys;
    put_view(args, PEC_RELATIVE_OUT_ORIGIN, call.outputs[0]);
    return args;
  }

  void run_alibi(KernelCall& call) const {
    const cpu::AlibiPlan& plan = alibi_plan_.get(call.spec, 0, [&] { return cpu::make_alibi_plan(call.spec); });
    device::check_relative_call(call);
    device::check_alibi_math(call.spec, "OpenCL");
    std::vector<double> slopes;
    for (std::size_t h = 0; h < plan.slope.size(); ++h) {
      slopes.push_back(plan.slope[h]);
      slopes.push_back(plan.slope_f32[h]);
    }
    std::vector<cl_long> args = relative_args(call);
    args[PEC_RELATIVE_HEADS] = static_cast<cl_long>(plan.slope.size());
    args[PEC_RELATIVE_MODE] = static_cast<cl_long>(call.spec.mode);
    args[PEC_RELATIVE_FLOAT_ANGLE] = call.spec.precision == PrecisionClass::fp32_angle;
    const DeviceBuffer& slope_buffer = staged_local(kPlan, slopes);
    const DeviceBuffer& arg_buffer = staged_local(kArgs, args);
    const DeviceBuffer& out = staged_from_call(output_slot_of(0), call.outputs[0]);
    Kernel& alibi = kernel(call.spec.dtype, "pec_alibi");
    alibi.set_buffer(0, slope_buffer);
    alibi.set_buffer(1, arg_buffer);
    alibi.set_buffer(2, out);
    alibi.launch(context_, items(call.keys, call.rows, args[PEC_RELATIVE_HEADS]));
    read_back(output_slot_of(0), call.outputs[0]);
  }

  void run_index(KernelCall& call) const {
    const bool t5 = call.spec.family == Family::t5;
    const cpu::T5Plan& plan = t5_plan_.get(call.spec, 0, [&] { return t5 ? cpu::make_t5_plan(call.spec) : cpu::T5Plan{}; });
    device::check_relative_call(call);
    const std::vector<cl_long> bucket_start(plan.bucket_start.begin(), plan.bucket_start.end());
    std::vector<cl_long> args = relative_args(call);
    args[PEC_RELATIVE_BIDIRECTIONAL] = call.spec.bidirectional;
    args[PEC_RELATIVE_UPPER_HALF] = call.spec.buckets / 2;
    args[PEC_RELATIVE_EXACT] = plan.exact;
    args[PEC_RELATIVE_STARTS] = static_cast<cl_long>(plan.bucket_start.size());
    args[PEC_RELATIVE_LEFT] = call.spec.k;
    args[PEC_RELATIVE_RIGHT] = call.spec.shaw_right();
    const DeviceBuffer& arg_buffer = staged_local(kArgs, args);
    const DeviceBuffer& out = staged_from_call(output_slot_of(0), call.outputs[0]);
    if (t5) {
      const DeviceBuffer& starts = staged_local(kPlan, bucket_start);
      Kernel& t5_kernel = kernel(call.spec.dtype, "pec_t5");
      t5_kernel.set_buffer(0, starts);
      t5_kernel.set_buffer(1, arg_buffer);
      t5_kernel.set_buffer(2, out);
      t5_kernel.launch(context_, items(call.keys, call.rows));
    } else {
      Kernel& shaw = kernel(call.spec.dtype, "pec_shaw");
      shaw.set_buffer(0, arg_buffer);
      shaw.set_buffer(1, out);
      shaw.launch(context_, items(call.keys, call.rows));
    }
    read_back(output_slot_of(0), call.outputs[0]);
  }

  void run_gather(KernelCall& call) const {
    device::check_gather_call(call);
    const Spec& spec = call.spec;
    std::vector<cl_long> args(PEC_GATHER_ARGS);
    args[PEC_GATHER_BATCH] = call.batch;
    args[PEC_GATHER_SEQ] = call.seq;
    args[PEC_GATHER_D] = spec.d;
    args[PEC_GATHER_IDS64] = call.ids64;
    args[PEC_GATHER_ID_OFFSET] = call.id_offset;
    args[PEC_GATHER_AMPLITUDE] = std::bit_cast<cl_long>(spec.amp.to_double());
    put_view(args, PEC_GATHER_TABLE_ORIGIN, call.inputs[0]);
    put_view(args, PEC_GATHER_OUT_ORIGIN, call.outputs[0]);
    const DeviceBuffer& arg_buffer = staged_local(kArgs, args);
    const DeviceBuffer& ids = staged_ids(call);
    const DeviceBuffer& table = staged_from_call(input_slot_of(0), call.inputs[0]);
    const DeviceBuffer& out = staged_from_call(output_slot_of(0), call.outputs[0]);
    Kernel& gather = kernel(spec.dtype, "pec_gather");
    gather.set_buffer(0, arg_buffer);
    gather.set_buffer(1, ids);
    gather.set_buffer(2, table);
    gather.set_buffer(3, out);
    gather.launch(context_, items(spec.d, call.seq, call.batch));
    read_back(output_slot_of(0), call.outputs[0]);
  }

  Context context_;
  OpenClPoints points_;
  mutable std::mutex mutex_;
  mutable std::map<int, Program> programs_;
  mutable std::map<std::pair<int, std::string>, Kernel> kernels_;
  mutable std::array<std::optional<DeviceBuffer>, kSlots> pool_;
  mutable LastPlan<cpu::RotaryPlan> rotary_plan_;
  mutable LastPlan<cpu::SinusoidPlan> sinusoid_plan_;
  mutable LastPlan<cpu::AlibiPlan> alibi_plan_;
  mutable LastPlan<cpu::T5Plan> t5_plan_;
};

}  // namespace

std::unique_ptr<TensorBackend> make_opencl_tensor_backend(std::optional<int> device) {
  return std::make_unique<OpenClTensorBackend>(select_device(device));
}

}  // namespace peconform::opencl
