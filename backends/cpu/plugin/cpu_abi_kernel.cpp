#include "backends/cpu/plugin/cpu_abi_kernel.hpp"

#include <cstdio>
#include <exception>
#include <fmt/format.h>
#include <vector>

#include "backends/cpu/index_kernels.hpp"
#include "backends/plugin/dl_dtype.hpp"
#include "backends/cpu/rotary_kernels.hpp"
#include "backends/cpu/storage.hpp"
#include "backends/cpu/table_kernels.hpp"
#include "spec/spec.hpp"
#include "spec/spec_error.hpp"

namespace peconform::cpu {
namespace {

// A refusal, with the reason the kernel gives.
struct Refused : SpecError {
  using SpecError::SpecError;
};

std::int64_t stride_of(const DLTensor& tensor, int axis) {
  if (tensor.strides != nullptr) return tensor.strides[axis];
  std::int64_t stride = 1;
  for (int a = tensor.ndim - 1; a > axis; --a) stride *= tensor.shape[a];
  return stride;
}

template <class T> T* data_of(const DLTensor& tensor) {
  return reinterpret_cast<T*>(static_cast<char*>(tensor.data) + tensor.byte_offset);
}

void expect(const DLTensor& tensor, int ndim, DLDataType type, const char* what) {
  if (tensor.device.device_type != kDLCPU) throw Refused(fmt::format("{} is not in host memory", what));
  if (tensor.ndim != ndim) throw Refused(fmt::format("{} has {} dims; expected {}", what, tensor.ndim, ndim));
  if (tensor.dtype.code != type.code || tensor.dtype.bits != type.bits || tensor.dtype.lanes != 1)
    throw Refused(fmt::format("{} has dtype code {} bits {}; expected code {} bits {}", what, tensor.dtype.code, tensor.dtype.bits,
                              type.code, type.bits));
}

// The table kernels write rows of contiguous elements; ALiBi, T5, Shaw and learned gathers
// write whole contiguous tensors.
void expect_contiguous(const DLTensor& tensor, int from_axis, const char* what) {
  std::int64_t stride = 1;
  for (int a = tensor.ndim - 1; a >= from_axis; --a) {
    if (tensor.shape[a] > 1 && stride_of(tensor, a) != stride) throw Refused(fmt::format("{} is not contiguous", what));
    stride *= tensor.shape[a];
  }
}

template <class T> Tensor4<T> view4(const DLTensor& tensor) {
  return {data_of<T>(tensor),
          {tensor.shape[0], tensor.shape[1], tensor.shape[2], tensor.shape[3]},
          {stride_of(tensor, 0), stride_of(tensor, 1), stride_of(tensor, 2), stride_of(tensor, 3)}};
}

PositionIds ids_of(const pec_call& call) {
  if (call.ids == nullptr) throw Refused("the call has no position ids");
  const DLTensor& ids = *call.ids;
  const bool is64 = ids.dtype.code == kDLInt && ids.dtype.bits == 64;
  if (ids.ndim != 3 || ids.dtype.code != kDLInt || (ids.dtype.bits != 32 && ids.dtype.bits != 64))
    throw Refused("position ids are not an int32 or int64 [axes, batch, seq] tensor");
  return {data_of<void>(ids), is64, static_cast<int>(ids.shape[0]), {stride_of(ids, 0), stride_of(ids, 1), stride_of(ids, 2)},
          call.id_offset};
}

template <class T> void run_typed(const pec_call& call, const Spec& spec) {
  const DLDataType type = plugin::dl_dtype(spec.dtype);
  switch (spec.family) {
    case Family::rope:
    case Family::xpos:
    case Family::mrope:
    case Family::rope2d: {
      const RotaryPlan plan = make_rotary_plan(spec, call.sequence_length);
      std::vector<RotaryOperand<T>> operands;
      for (std::int32_t o = 0; o < call.operand_count; ++o) {
        expect(call.inputs[o], 4, type, "a rotary input");
        expect(call.outputs[o], 4, type, "a rotary output");
        const Tensor4<T> in = view4<T>(call.inputs[o]);
        operands.push_back({{in.data, in.shape, in.stride}, view4<T>(call.outputs[o])});
      }
      apply_rotary<T>(plan, operands, ids_of(call));
      return;
    }
    case Family::sinusoidal:
    case Family::xl: {
      const DLTensor& out = call.outputs[0];
      expect(out, 2, type, "the table");
      expect_contiguous(out, 1, "a table row");
      sinusoid_rows<T>(make_sinusoid_plan(spec), call.first, call.rows, data_of<T>(out), stride_of(out, 0));
      return;
    }
    case Family::alibi: {
      const DLTensor& out = call.outputs[0];
      expect(out, 3, type, "the bias");
      expect_contiguous(out, 0, "the bias");
      alibi_bias<T>(make_alibi_plan(spec), call.first, call.rows, call.key_first, call.keys, data_of<T>(out));
      return;
    }
    case Family::learned: {
      expect(call.inputs[0], 2, type, "the table");
      expect_contiguous(call.inputs[0], 0, "the table");
      expect(call.outputs[0], 3, type, "the gathered rows");
      expect_contiguous(call.outputs[0], 0, "the gathered rows");
      const PositionIds ids = ids_of(call);
      gather_rows<T>(data_of<const T>(call.inputs[0]), spec.rows, spec.d, ids, call.ids->shape[1], call.ids->shape[2],
                     spec.amp.to_double(), data_of<T>(call.outputs[0]));
      return;
    }
    case Family::t5:
    case Family::shaw: return;
  }
}

void run(const pec_call& call) {
  const Spec spec = Spec::parse(call.spec_text);
  if (call.outputs == nullptr || call.operand_count < 1) throw Refused("the call has no output");
  if (spec.family == Family::t5 || spec.family == Family::shaw) {
    const DLTensor& out = call.outputs[0];
    expect(out, 2, {kDLInt, 32, 1}, "the indices");
    expect_contiguous(out, 0, "the indices");
    auto* indices = data_of<std::int32_t>(out);
    if (spec.family == Family::t5)
      t5_buckets(make_t5_plan(spec), call.first, call.rows, call.key_first, call.keys, indices);
    else
      shaw_indices(spec, call.first, call.rows, call.key_first, call.keys, indices);
    return;
  }
  with_storage_type(spec.dtype, [&](auto tag) { run_typed<decltype(tag)>(call, spec); });
}

void explain(char* error, size_t size, const char* text) {
  if (error != nullptr && size > 0) std::snprintf(error, size, "%s", text);
}

}  // namespace

pec_status run_abi_call(const pec_call* call, char* error, size_t error_size) noexcept {
  try {
    run(*call);
    return PEC_OK;
  } catch (const SpecError& refused) {
    explain(error, error_size, refused.what());
    return PEC_REFUSED;
  } catch (const std::exception& failure) {
    explain(error, error_size, failure.what());
    return PEC_FAILED;
  }
}

}  // namespace peconform::cpu
