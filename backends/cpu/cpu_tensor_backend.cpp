#include "backends/cpu/cpu_tensor_backend.hpp"

#include "backends/cpu/cpu_backend.hpp"
#include "backends/cpu/index_kernels.hpp"
#include "backends/cpu/rotary_kernels.hpp"
#include "backends/cpu/table_kernels.hpp"

namespace peconform::cpu {
namespace {

template <class T> Tensor4<T> view(Buffer& buffer) { return {static_cast<T*>(buffer.data()), buffer.shape, buffer.stride}; }
template <class T> Tensor4<const T> const_view(const Buffer& buffer) {
  return {static_cast<const T*>(buffer.data()), buffer.shape, buffer.stride};
}

PositionIds ids_of(const KernelCall& call) {
  const void* data = call.ids64 ? static_cast<const void*>(call.ids64_data.data()) : call.ids32_data.data();
  return {data, call.ids64, call.axes, {call.batch * call.seq, call.seq, 1}, call.id_offset};
}

template <class T> void run_in(KernelCall& call) {
  const Spec& spec = call.spec;
  switch (spec.family) {
    case Family::rope:
    case Family::xpos:
    case Family::mrope:
    case Family::rope2d: {
      const RotaryPlan plan = make_rotary_plan(spec, call.sequence_length);
      std::vector<RotaryOperand<T>> operands;
      for (std::size_t i = 0; i < call.outputs.size(); ++i) {
        Buffer& source = call.in_place ? call.outputs[i] : call.inputs[i];
        operands.push_back({const_view<T>(source), view<T>(call.outputs[i])});
      }
      apply_rotary<T>(plan, operands, ids_of(call));
      break;
    }
    case Family::sinusoidal:
    case Family::xl: {
      Buffer& out = call.outputs[0];
      sinusoid_rows<T>(make_sinusoid_plan(spec), call.first, call.rows, static_cast<T*>(out.data()), out.stride[1]);
      break;
    }
    case Family::alibi:
      alibi_bias<T>(make_alibi_plan(spec), call.first, call.rows, call.key_first, call.keys,
                    static_cast<T*>(call.outputs[0].data()));
      break;
    case Family::learned:
      gather_rows<T>(static_cast<const T*>(call.inputs[0].data()), spec.rows, spec.d, ids_of(call), call.batch, call.seq,
                     spec.amp.to_double(), static_cast<T*>(call.outputs[0].data()));
      break;
    case Family::t5:
    case Family::shaw: break;
  }
}

class CpuTensorBackend final : public TensorBackend {
 public:
  std::string name() const override { return "cpu"; }
  BackendCapabilities capabilities() const override {
    BackendCapabilities capabilities;
    capabilities.families = all_families();
    capabilities.dtypes = {Dtype::fp64, Dtype::fp32, Dtype::fp16, Dtype::bf16};
    capabilities.precisions = {PrecisionClass::exact_angle, PrecisionClass::fp32_angle, PrecisionClass::lowp_cache,
                              PrecisionClass::fp64_angle};
    capabilities.takes_rounding_keys = true;
    capabilities.largest_call_elements = std::int64_t{1} << 32;
    capabilities.calling_thread_only = false;
    return capabilities;
  }
  void run(KernelCall& call) const override {
    const Spec& spec = call.spec;
    auto* out = static_cast<std::int32_t*>(call.outputs.empty() ? nullptr : call.outputs[0].data());
    if (spec.family == Family::t5)
      t5_buckets(make_t5_plan(spec), call.first, call.rows, call.key_first, call.keys, out);
    else if (spec.family == Family::shaw)
      shaw_indices(spec, call.first, call.rows, call.key_first, call.keys, out);
    else
      with_storage_type(spec.dtype, [&](auto tag) { run_in<decltype(tag)>(call); });
  }
  const Implementation* points() const override { return &cpu_backend(); }
};

}  // namespace

std::unique_ptr<TensorBackend> make_cpu_tensor_backend() { return std::make_unique<CpuTensorBackend>(); }

}  // namespace peconform::cpu
