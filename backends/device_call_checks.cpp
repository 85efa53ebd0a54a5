#include "backends/device_call_checks.hpp"

#include <fmt/format.h>
#include <limits>

#include "backends/cpu/position_range.hpp"
#include "backends/cpu/tensor.hpp"
#include "backends/cpu/tensor_checks.hpp"
#include "precision/format_constants.hpp"
#include "spec/spec_error.hpp"

namespace peconform::device {
namespace {

cpu::PositionIds ids_of(const KernelCall& call) {
  const void* data = call.ids64 ? static_cast<const void*>(call.ids64_data.data()) : call.ids32_data.data();
  return {data, call.ids64, call.axes, {call.batch * call.seq, call.seq, 1}, call.id_offset};
}

void check_ids_cover(const KernelCall& call) {
  const std::int64_t needed = call.axes * call.batch * call.seq;
  const auto held = static_cast<std::int64_t>(call.ids64 ? call.ids64_data.size() : call.ids32_data.size());
  if (call.batch < 0 || call.seq < 0 || held < needed)
    throw SpecError(fmt::format("the call has {} position ids for [axes {}, batch {}, seq {}]", held, call.axes, call.batch, call.seq));
}

template <class T> cpu::Tensor4<const T> host_view(const Buffer& buffer) {
  return {static_cast<const T*>(buffer.data()), buffer.shape, buffer.stride};
}
template <class T> cpu::Tensor4<T> host_view(Buffer& buffer) { return {static_cast<T*>(buffer.data()), buffer.shape, buffer.stride}; }

}  // namespace

void check_view_in_buffer(const Buffer& buffer, const std::array<std::int64_t, 4>& extent, std::string_view what) {
  std::int64_t low = buffer.origin, high = buffer.origin;
  for (std::size_t k = 0; k < 4; ++k) {
    if (extent[k] < 0) throw SpecError(fmt::format("{} has a negative extent {} in dimension {}", what, extent[k], k));
    if (extent[k] > buffer.shape[k])
      throw SpecError(fmt::format("{}: extent {} in dimension {} is outside its shape {}", what, extent[k], k, buffer.shape[k]));
    if (extent[k] == 0) return;
    const std::int64_t reach = (extent[k] - 1) * buffer.stride[k];
    (reach < 0 ? low : high) += reach;
  }
  if (low < 0 || high >= buffer.size())
    throw SpecError(fmt::format("{}: elements {}..{} leave its buffer of {}", what, low, high, buffer.size()));
}

void check_rotary_call(const cpu::RotaryPlan& plan, const KernelCall& call) {
  if (call.outputs.empty()) throw SpecError("apply_rotary needs at least one operand");
  if (call.outputs.size() > static_cast<std::size_t>(kMaxOperands))
    throw SpecError(fmt::format("a rotary call takes at most {} operands, found {}", kMaxOperands, call.outputs.size()));
  if (!call.in_place && call.inputs.size() != call.outputs.size())
    throw SpecError(fmt::format("{} inputs for {} outputs", call.inputs.size(), call.outputs.size()));
  if (call.axes != plan.axes)
    throw SpecError(fmt::format("{} takes {} position axes, found {}", plan.spec.canonical(), plan.axes, call.axes));
  check_ids_cover(call);
  for (std::size_t k = 0; k < call.outputs.size(); ++k) {
    const Buffer& out = call.outputs[k];
    const Buffer& in = call.in_place ? out : call.inputs[k];
    const std::string what = fmt::format("operand {}", k);
    // Inside its buffer first: an overlap measured on a view that leaves its buffer would name
    // the wrong fault.
    check_view_in_buffer(in, in.shape, what + "'s input");
    check_view_in_buffer(out, out.shape, what + "'s output");
    cpu::with_storage_type(plan.spec.dtype, [&](auto tag) {
      using T = decltype(tag);
      cpu::check_view_pair<T>(what, host_view<T>(in), host_view<T>(const_cast<Buffer&>(out)));
    });
    if (in.shape[3] != plan.d)
      throw SpecError(fmt::format("operand {} has dim {}, {} needs {}", k, in.shape[3], plan.spec.canonical(), plan.d));
    if (in.shape[0] != call.batch || in.shape[1] != call.seq)
      throw SpecError(fmt::format("operand {} is [batch {}, seq {}], the ids are [batch {}, seq {}]", k, in.shape[0], in.shape[1],
                                  call.batch, call.seq));
  }
  const cpu::PositionIds positions = ids_of(call);
  for (int axis = 0; axis < plan.axes; ++axis)
    for (std::int64_t b = 0; b < call.batch; ++b)
      for (std::int64_t s = 0; s < call.seq; ++s) {
        const std::int64_t p = positions.at(axis, b, s);
        if (p < -plan.largest_position || p > plan.largest_position)
          throw SpecError(fmt::format("position id {} at [axis {}, batch {}, seq {}] is outside +-{}, where {} angles are claimed",
                                      p, axis, b, s, plan.largest_position, plan.spec.canonical()));
      }
}

void check_table_call(const cpu::SinusoidPlan& plan, const KernelCall& call) {
  const Spec& spec = plan.spec;
  const bool absolute = spec.family == Family::sinusoidal;
  if (call.rows < 0) throw SpecError(fmt::format("a table needs rows >= 0, found {}", call.rows));
  if (absolute && call.first < 0) throw SpecError(fmt::format("sinusoidal positions start at 0, found {}", call.first));
  cpu::check_position_range("table position", call.first + (absolute ? spec.offset : 0), call.rows, plan.largest_position);
  if (call.outputs.size() != 1) throw SpecError(fmt::format("a table call has one output, found {}", call.outputs.size()));
  check_view_in_buffer(call.outputs[0], {1, call.rows, 1, spec.d}, "the table");
}

void check_relative_call(const KernelCall& call) {
  cpu::check_position_range("query position", call.first, call.rows, cpu::kLargestTablePosition);
  cpu::check_position_range("key position", call.key_first, call.keys, cpu::kLargestTablePosition);
  if (call.outputs.size() != 1) throw SpecError(fmt::format("a relative call has one output, found {}", call.outputs.size()));
  const bool alibi = call.spec.family == Family::alibi;
  if (alibi && call.keys > std::numeric_limits<std::int32_t>::max())
    throw SpecError(fmt::format("an ALiBi row of {} keys is longer than 2^31 - 1; split the call", call.keys));
  check_view_in_buffer(call.outputs[0], {1, alibi ? call.spec.heads : 1, call.rows, call.keys}, "the output");
}

void check_alibi_math(const Spec& spec, std::string_view device) {
  if ((spec.math == RoundsIn::storage && compute_dtype(spec.dtype) != spec.dtype) || spec.math == RoundsIn::bf16)
    throw SpecError(fmt::format("{}'s ALiBi kernel computes in float32; {} (slopes and products rounded to {}) is the CPU "
                                "backend's alone",
                                device, spec.canonical(), spec.math == RoundsIn::bf16 ? "bf16" : dtype_name(spec.dtype)));
}

void check_gather_call(const KernelCall& call) {
  const Spec& spec = call.spec;
  if (call.axes != 1) throw SpecError(fmt::format("a learned gather takes 1 id axis, found {}", call.axes));
  check_ids_cover(call);
  if (call.inputs.size() != 1 || call.outputs.size() != 1)
    throw SpecError(fmt::format("a learned gather takes one table and one output, found {} and {}", call.inputs.size(),
                                call.outputs.size()));
  check_view_in_buffer(call.inputs[0], {1, 1, spec.rows, spec.d}, "the learned table");
  check_view_in_buffer(call.outputs[0], {call.batch, call.seq, 1, spec.d}, "the gathered rows");
  const cpu::PositionIds ids = ids_of(call);
  for (std::int64_t b = 0; b < call.batch; ++b)
    for (std::int64_t s = 0; s < call.seq; ++s) {
      const std::int64_t id = ids.at(0, b, s);
      if (id < 0 || id >= spec.rows)
        throw SpecError(fmt::format("position id {} at [batch {}, seq {}] is past the learned table of {} rows (valid: 0..{})",
                                    id, b, s, spec.rows, spec.rows - 1));
    }
}

}  // namespace peconform::device
