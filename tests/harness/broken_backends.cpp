#include "broken_backends.hpp"

#include <csignal>
#include <unistd.h>
#include <stdexcept>

#include "backends/backend_registry.hpp"
#include "precision/error_model.hpp"
#include "reference/rotary.hpp"
#include "spec/spec_error.hpp"

namespace peconform::harness {
namespace {

// A launch grid of 32 heads: every head past them keeps what its output held before the call.
void leave_heads_from_32(std::vector<Buffer>& outputs, const std::vector<Buffer>& before) {
  for (std::size_t o = 0; o < outputs.size(); ++o) {
    const auto& shape = outputs[o].shape;
    for (std::int64_t b = 0; b < shape[0]; ++b)
      for (std::int64_t s = 0; s < shape[1]; ++s)
        for (std::int64_t h = 32; h < shape[2]; ++h)
          for (std::int64_t e = 0; e < shape[3]; ++e) {
            const std::int64_t at = outputs[o].offset_of(b, s, h, e);
            outputs[o].set_bits(at, before[o].bits(at));
          }
  }
}

void copy_past_each_row(KernelCall& call) {
  for (std::size_t o = 0; o < call.outputs.size(); ++o) {
    const Buffer& in = call.inputs[o];
    Buffer& out = call.outputs[o];
    const std::int64_t last = out.shape[3] - 1;
    for (std::int64_t b = 0; b < out.shape[0]; ++b)
      for (std::int64_t s = 0; s < out.shape[1]; ++s)
        for (std::int64_t h = 0; h < out.shape[2]; ++h) {
          // Where d is not the innermost axis, one past a row can lie past the whole buffer.
          const std::int64_t to = out.offset_of(b, s, h, last) + out.stride[3], from = in.offset_of(b, s, h, last) + in.stride[3];
          if (to < out.size() && from < in.size()) out.set_bits(to, in.bits(from));
        }
  }
}

void negate_zeros(Buffer& out) {
  const std::uint64_t sign = std::uint64_t{1} << (8 * element_size(out.type) - 1);
  for (std::int64_t i = 0; i < out.size(); ++i)
    if (out.bits(i) == 0) out.set_bits(i, sign);
}

// Zeroes every pair whose bound reaches A r, decided as the verifier decides it.
void zero_past_the_horizon(KernelCall& call) {
  const Spec& spec = call.spec;
  const Reference<FastReal> reference(spec, call.sequence_length);
  const auto [start, dims] = rotary_slice(spec);
  for (std::int64_t b = 0; b < call.batch; ++b)
    for (std::int64_t s = 0; s < call.seq; ++s)
      for (int pair = 0; pair < dims / 2; ++pair) {
        const Wide angle = rotary_angle(spec, reference.frequencies().inv_freq, token_point(call, b, s), pair);
        const RotaryBoundTerms<double> terms = rotary_bound_terms<double>(
            spec, std::abs(static_cast<double>(angle)), 0.0, static_cast<double>(angle_growth<Wide>(spec, static_cast<int>(rotary_frequency_index(spec, pair)))));
        if (terms.constrains()) continue;
        const auto [a, e] = rotary_pair_elements(spec.layout, start, dims, pair);
        for (Buffer& out : call.outputs)
          for (std::int64_t h = 0; h < out.shape[2]; ++h)
            for (const std::size_t element : {a, e}) out.set_bits(out.offset_of(b, s, h, static_cast<std::int64_t>(element)), 0);
      }
}

class BrokenBackend final : public TensorBackend {
 public:
  explicit BrokenBackend(std::string bug) : bug_(std::move(bug)), cpu_(make_backend("cpu")) {}
  std::string name() const override { return "broken-" + bug_; }
  BackendCapabilities capabilities() const override { return cpu_->capabilities(); }

  void run(KernelCall& call) const override {
    KernelCall altered = call;
    if (bug_ == "fp32-angle-as-exact") {
      altered.spec.precision = PrecisionClass::fp32_angle;
    } else if (bug_ == "swapped-layout") {
      altered.spec.layout = altered.spec.layout == Layout::half ? Layout::interleaved : Layout::half;
    } else if (bug_ == "regrouped-written-interleaved") {
      if (altered.spec.layout == Layout::interleaved_to_half) altered.spec.layout = Layout::interleaved;
    } else if (bug_ == "position-off-by-one") {
      altered.id_offset += 1;
    } else if (bug_ == "crash-on-bf16" && call.spec.dtype == Dtype::bf16) {
      std::raise(SIGSEGV);
    } else if (bug_ == "hang-on-bf16" && call.spec.dtype == Dtype::bf16) {
      for (;;) pause();
    } else if (bug_ == "throws-on-bf16" && call.spec.dtype == Dtype::bf16) {
      throw std::runtime_error("cudaErrorInvalidValue: bf16 is not built for this kernel");
    } else if (bug_ == "refuses-bf16" && call.spec.dtype == Dtype::bf16) {
      throw SpecError("this kernel takes fp16 and fp32 only, not bf16");
    } else if (bug_ == "copies-past-each-row" && is_rotary(call.spec.family)) {
      copy_past_each_row(altered);
    } else if (bug_ != "last-element-unwritten" && bug_ != "crash-on-bf16" && bug_ != "hang-on-bf16" &&
               bug_ != "throws-on-bf16" && bug_ != "refuses-bf16" &&
               bug_ != "writes-its-input" && bug_ != "racy-one-token" && bug_ != "first-32-heads" &&
               bug_ != "copies-past-each-row" && bug_ != "zeroes-past-the-horizon" && bug_ != "writes-negative-zeros") {
      throw std::logic_error("unknown bug " + bug_);
    }
    cpu_->run(altered);
    if (bug_ == "first-32-heads") leave_heads_from_32(altered.outputs, call.outputs);
    if (bug_ == "zeroes-past-the-horizon" && call.spec.family == Family::rope) zero_past_the_horizon(altered);
    if (bug_ == "writes-negative-zeros" && (call.spec.family == Family::sinusoidal || call.spec.family == Family::xl))
      negate_zeros(altered.outputs[0]);
    call.outputs = std::move(altered.outputs);
    if (bug_ == "writes-its-input") call.inputs.front().set_bits(call.inputs.front().origin, 0);
    if (bug_ == "racy-one-token" && (call.seq > 1 || ++one_token_calls_ % 2 == 0)) {
      Buffer& out = call.outputs.back();
      out.set_bits(out.offset_of(0, 0, 0, 0), out.sentinels.unwritten);
    }
    if (bug_ == "last-element-unwritten") {
      Buffer& out = call.outputs.back();
      const std::int64_t last = out.offset_of(out.shape[0] - 1, out.shape[1] - 1, out.shape[2] - 1, out.shape[3] - 1);
      const Buffer& in = call.inputs.back();
      out.set_bits(last, call.in_place ? in.bits(in.offset_of(in.shape[0] - 1, in.shape[1] - 1, in.shape[2] - 1, in.shape[3] - 1))
                                       : out.sentinels.unwritten);
    }
  }

 private:
  std::string bug_;
  std::unique_ptr<TensorBackend> cpu_;
  mutable int one_token_calls_ = 0;
};

}  // namespace

std::unique_ptr<TensorBackend> make_broken_backend(const std::string& bug) { return std::make_unique<BrokenBackend>(bug); }

}  // namespace peconform::harness
