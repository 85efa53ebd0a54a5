#include "backends/cpu/cpu_backend.hpp"

#include <fmt/format.h>
#include <variant>

#include "precision/claimed_bounds.hpp"
#include "backends/kernel_call.hpp"
#include "backends/cpu/index_kernels.hpp"
#include "backends/cpu/rotary_kernels.hpp"
#include "backends/cpu/table_kernels.hpp"
#include "backends/cpu/wide_conversion.hpp"
#include "spec/spec_error.hpp"

namespace peconform {
namespace {

using Plan = std::variant<std::monostate, cpu::RotaryPlan, cpu::SinusoidPlan, cpu::AlibiPlan, cpu::T5Plan>;

Plan make_plan(const Spec& spec, std::int64_t sequence_length) {
  switch (spec.family) {
    case Family::rope:
    case Family::xpos:
    case Family::mrope:
    case Family::rope2d: return cpu::make_rotary_plan(spec, sequence_length);
    case Family::sinusoidal:
    case Family::xl: return cpu::make_sinusoid_plan(spec);
    case Family::alibi: return cpu::make_alibi_plan(spec);
    case Family::t5: return cpu::make_t5_plan(spec);
    case Family::learned:
    case Family::shaw: return std::monostate{};
  }
  return std::monostate{};
}

class CpuEvaluator final : public Evaluator {
 public:
  CpuEvaluator(const Spec& spec, std::int64_t sequence_length)
      : spec_(spec), bounds_(spec, sequence_length), plan_(make_plan(spec, sequence_length)) {}

  std::vector<Wide> evaluate(const Point& point, std::span<const Wide> input) const override {
    if (input.size() != input_size())
      throw SpecError(fmt::format("{} takes {} input values, found {}", spec_.canonical(), input_size(), input.size()));
    switch (spec_.family) {
      case Family::t5:
      case Family::shaw: return {Wide(index_at(point))};
      default: return cpu::with_storage_type(spec_.dtype, [&](auto tag) { return evaluate_in<decltype(tag)>(point, input); });
    }
  }

  std::vector<Wide> error_bounds(const Point& point, std::span<const Wide> input) const override {
    return bounds_(point, input);
  }

 private:
  // A rotary family rotates one head of d values; a learned spec reads its [rows, d] table; the
  // tables and relative families take nothing.
  std::size_t input_size() const {
    switch (spec_.family) {
      case Family::rope:
      case Family::xpos:
      case Family::mrope:
      case Family::rope2d: return static_cast<std::size_t>(spec_.d);
      case Family::learned: return static_cast<std::size_t>(spec_.rows * spec_.d);
      default: return 0;
    }
  }

  // d values a point, or one bias per ALiBi head, or one T5/Shaw index.
  std::size_t output_size() const {
    switch (spec_.family) {
      case Family::alibi: return static_cast<std::size_t>(spec_.heads);
      case Family::t5:
      case Family::shaw: return 1;
      default: return static_cast<std::size_t>(spec_.d);
    }
  }

  template <class T> std::vector<Wide> evaluate_in(const Point& point, std::span<const Wide> input) const {
    const std::int64_t p = point.c[0], q = point.c[1];
    std::vector<T> out(output_size());
    switch (spec_.family) {
      case Family::rope:
      case Family::xpos:
      case Family::mrope:
      case Family::rope2d: {
        const auto& plan = std::get<cpu::RotaryPlan>(plan_);
        const std::vector<T> x = cpu::to_storage<T>(input);
        const std::int64_t d = spec_.d;
        const cpu::RotaryOperand<T> operand{cpu::bshd(x.data(), 1, 1, 1, d), cpu::bshd(out.data(), 1, 1, 1, d)};
        cpu::apply_rotary<T>(plan, {&operand, 1}, cpu::position_ids(point.c.data(), plan.axes, 1, 1));
        break;
      }
      case Family::sinusoidal:
        cpu::sinusoid_rows<T>(std::get<cpu::SinusoidPlan>(plan_), p, 1, out.data(), spec_.d);
        break;
      case Family::xl:
        cpu::sinusoid_rows<T>(std::get<cpu::SinusoidPlan>(plan_), p - q, 1, out.data(), spec_.d);
        break;
      case Family::alibi: {
        const AlibiPointCall single = alibi_point_call(spec_, point);
        cpu::AlibiPlan plan = std::get<cpu::AlibiPlan>(plan_);
        plan.spec.mode = single.mode;
        cpu::alibi_bias<T>(plan, single.query, 1, single.key, 1, out.data());
        break;
      }
      case Family::learned: {
        const std::vector<T> table = cpu::to_storage<T>(input);
        cpu::gather_rows<T>(table.data(), spec_.rows, spec_.d, cpu::position_ids(&p, 1, 1, 1), 1, 1, spec_.amp.to_double(),
                            out.data());
        break;
      }
      case Family::t5:
      case Family::shaw:
        break;
    }
    return cpu::to_wide<T>(out);
  }

  std::int32_t index_at(const Point& point) const {
    std::int32_t index = 0;
    if (spec_.family == Family::t5)
      cpu::t5_buckets(std::get<cpu::T5Plan>(plan_), point.c[0], 1, point.c[1], 1, &index);
    else
      cpu::shaw_indices(spec_, point.c[0], 1, point.c[1], 1, &index);
    return index;
  }

  Spec spec_;
  ClaimedBounds bounds_;
  Plan plan_;
};

class CpuBackend final : public Implementation {
 public:
  std::string name() const override { return "cpu"; }
  std::unique_ptr<Evaluator> prepare(const Spec& spec, std::int64_t sequence_length) const override {
    return std::make_unique<CpuEvaluator>(spec, sequence_length);
  }
};

}  // namespace

const Implementation& cpu_backend() {
  static const CpuBackend backend;
  return backend;
}

}  // namespace peconform
