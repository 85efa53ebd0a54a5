#include "backends/reference_tensor_backend.hpp"


namespace peconform {
namespace {

// `value` rounded to the buffer's type (through double: a second rounding no dtype's bound notices).
void store(Buffer& buffer, std::int64_t index, const Wide& value) {
  buffer.set_bits(index, element_bits(buffer.type, static_cast<double>(value)));
}

class ReferenceTensorBackend final : public TensorBackend {
 public:
  ReferenceTensorBackend(std::string name, const Implementation& tier, std::int64_t largest)
      : name_(std::move(name)), tier_(tier), largest_(largest) {}
  std::string name() const override { return name_; }
  BackendCapabilities capabilities() const override {
    BackendCapabilities capabilities;
    capabilities.families = all_families();
    capabilities.dtypes = {Dtype::fp64, Dtype::fp32, Dtype::fp16, Dtype::bf16};
    capabilities.precisions = {PrecisionClass::exact_angle, PrecisionClass::fp32_angle, PrecisionClass::lowp_cache,
                              PrecisionClass::fp64_angle};
    capabilities.largest_call_elements = largest_;
    // The tiers keep no state between calls, and the verifier's escalations already call them
    // from every thread of the team: the campaign's properties may run beside this backend.
    capabilities.calling_thread_only = false;
    return capabilities;
  }
  const Implementation* points() const override { return &tier_; }

  void run(KernelCall& call) const override {
    const std::unique_ptr<Evaluator> evaluator = tier_.prepare(call.spec, call.sequence_length);
    const Family family = call.spec.family;
    if (family == Family::learned) {
      const std::vector<Wide> table = input_values(call, 0, 0, 0, 0);
      for (std::int64_t b = 0; b < call.batch; ++b)
        for (std::int64_t s = 0; s < call.seq; ++s) write_row(call.outputs[0], b, s, 0, evaluator->evaluate(token_point(call, b, s), table));
      return;
    }
    if (is_rotary(family)) {
      for (std::size_t o = 0; o < call.outputs.size(); ++o) {
        Buffer& out = call.outputs[o];
        for (std::int64_t b = 0; b < out.shape[0]; ++b)
          for (std::int64_t s = 0; s < out.shape[1]; ++s)
            for (std::int64_t h = 0; h < out.shape[2]; ++h)
              write_row(out, b, s, h, evaluator->evaluate(token_point(call, b, s), input_values(call, o, b, s, h)));
      }
      return;
    }
    Buffer& out = call.outputs[0];
    if (family == Family::sinusoidal || family == Family::xl) {
      for (std::int64_t r = 0; r < call.rows; ++r) write_row(out, 0, r, 0, evaluator->evaluate(row_point(call, r, 0), {}));
      return;
    }
    for (std::int64_t q = 0; q < call.rows; ++q)
      for (std::int64_t k = 0; k < call.keys; ++k) {
        const std::vector<Wide> values = evaluator->evaluate(row_point(call, q, k), {});
        for (std::size_t h = 0; h < values.size(); ++h) store(out, out.offset_of(0, static_cast<std::int64_t>(h), q, k), values[h]);
      }
  }

 private:
  static void write_row(Buffer& out, std::int64_t b, std::int64_t s, std::int64_t h, const std::vector<Wide>& values) {
    for (std::size_t e = 0; e < values.size(); ++e) store(out, out.offset_of(b, s, h, static_cast<std::int64_t>(e)), values[e]);
  }

  std::string name_;
  const Implementation& tier_;
  std::int64_t largest_;
};

}  // namespace

std::unique_ptr<TensorBackend> make_reference_tensor_backend(std::string name, const Implementation& tier,
                                                             std::int64_t largest_call_elements) {
  return std::make_unique<ReferenceTensorBackend>(std::move(name), tier, largest_call_elements);
}

}  // namespace peconform
