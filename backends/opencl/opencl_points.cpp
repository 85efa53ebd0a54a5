#include "backends/opencl/opencl_points.hpp"

#include <cstring>
#include <fmt/format.h>

#include "backends/cpu/rotary_axes.hpp"
#include "backends/cpu/wide_conversion.hpp"
#include "precision/claimed_bounds.hpp"
#include "spec/spec_error.hpp"

namespace peconform::opencl {
namespace {

bool rotary(Family family) {
  return family == Family::rope || family == Family::xpos || family == Family::mrope || family == Family::rope2d;
}

// A contiguous [shape] buffer with the campaign's guards, its elements zero.
Buffer point_buffer(ElementType type, std::array<std::int64_t, 4> shape) {
  Buffer buffer;
  buffer.type = type;
  buffer.shape = shape;
  buffer.stride = {shape[1] * shape[2] * shape[3], shape[2] * shape[3], shape[3], 1};
  buffer.origin = kGuardElements;
  const std::int64_t elements = shape[0] * shape[1] * shape[2] * shape[3] + 2 * kGuardElements;
  buffer.bytes.resize(static_cast<std::size_t>(elements) * element_size(type), std::byte{});
  return buffer;
}

// `values` into the logical elements of a contiguous buffer, rounded as the CPU backend rounds
// them (wide_conversion.hpp).
void fill(Buffer& buffer, Dtype dtype, std::span<const Wide> values) {
  cpu::with_storage_type(dtype, [&](auto tag) {
    using T = decltype(tag);
    const std::vector<T> stored = cpu::to_storage<T>(values);
    std::memcpy(buffer.data(), stored.data(), stored.size() * sizeof(T));
  });
}

class OpenClEvaluator final : public Evaluator {
 public:
  OpenClEvaluator(const TensorBackend& backend, const Spec& spec, std::int64_t sequence_length)
      : backend_(backend), spec_(spec), sequence_length_(sequence_length), bounds_(spec, sequence_length),
        axes_(rotary(spec.family) ? cpu::position_axes(spec) : 1) {}

  std::vector<Wide> evaluate(const Point& point, std::span<const Wide> input) const override {
    if (input.size() != input_size())
      throw SpecError(fmt::format("{} takes {} input values, found {}", spec_.canonical(), input_size(), input.size()));
    KernelCall call = point_call(point, input);
    backend_.run(call);
    const Buffer& out = call.outputs[0];
    std::vector<Wide> values;
    for (std::int64_t h = 0; h < out.shape[1]; ++h)
      for (std::int64_t e = 0; e < out.shape[3]; ++e) values.push_back(Wide(out.value(out.offset_of(0, h, 0, e))));
    return values;
  }

  std::vector<Wide> error_bounds(const Point& point, std::span<const Wide> input) const override { return bounds_(point, input); }

 private:
  std::size_t input_size() const {
    if (rotary(spec_.family)) return static_cast<std::size_t>(spec_.d);
    if (spec_.family == Family::learned) return static_cast<std::size_t>(spec_.rows * spec_.d);
    return 0;
  }

  // One token (rotary, learned), one row (tables) or one (query, key) (ALiBi over its heads,
  // T5, Shaw) as a kernel call; every output is read back as [1, h, 1, e].
  KernelCall point_call(const Point& point, std::span<const Wide> input) const {
    KernelCall call;
    call.spec = spec_;
    call.sequence_length = sequence_length_;
    const ElementType type = element_type(spec_.dtype);
    const std::int64_t p = point.c[0], q = point.c[1];
    if (rotary(spec_.family) || spec_.family == Family::learned) {
      call.axes = axes_;
      call.ids64_data.assign(point.c.begin(), point.c.begin() + axes_);
      Buffer in = point_buffer(type, rotary(spec_.family) ? std::array<std::int64_t, 4>{1, 1, 1, spec_.d}
                                                          : std::array<std::int64_t, 4>{1, 1, spec_.rows, spec_.d});
      fill(in, spec_.dtype, input);
      call.inputs.push_back(std::move(in));
      call.outputs.push_back(point_buffer(type, {1, 1, 1, spec_.d}));
      return call;
    }
    if (spec_.family == Family::sinusoidal || spec_.family == Family::xl) {
      call.first = spec_.family == Family::xl ? p - q : p;
      call.rows = 1;
      call.outputs.push_back(point_buffer(type, {1, 1, 1, spec_.d}));
      return call;
    }
    const bool alibi = spec_.family == Family::alibi;
    const AlibiPointCall single = alibi ? alibi_point_call(spec_, point) : AlibiPointCall{spec_.mode, p, q};
    call.spec.mode = single.mode;
    call.first = single.query;
    call.rows = 1;
    call.key_first = single.key;
    call.keys = 1;
    call.outputs.push_back(point_buffer(alibi ? type : ElementType::int32, {1, alibi ? spec_.heads : 1, 1, 1}));
    return call;
  }

  const TensorBackend& backend_;
  Spec spec_;
  std::int64_t sequence_length_;
  ClaimedBounds bounds_;
  int axes_;
};

}  // namespace

std::unique_ptr<Evaluator> OpenClPoints::prepare(const Spec& spec, std::int64_t sequence_length) const {
  return std::make_unique<OpenClEvaluator>(backend_, spec, sequence_length);
}

}  // namespace peconform::opencl
