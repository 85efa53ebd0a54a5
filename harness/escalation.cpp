#include "harness/escalation.hpp"

#include <chrono>

#include "precision/error_model.hpp"
#include "backends/reference_tiers.hpp"

namespace peconform::harness {

Escalation::Escalation(const KernelCall& call) : call_(call) {}
Escalation::~Escalation() = default;

Escalation::Decision Escalation::decide(const Point& point, std::span<const Wide> input, std::size_t element, double actual) {
  Decision decision{};
#pragma omp critical(peconform_escalation)
  {
    const auto start = std::chrono::steady_clock::now();
    if (!exact_) {
      exact_ = exact_tier().prepare(call_.spec, call_.sequence_length);
      fast_ = std::make_unique<Reference<FastReal>>(call_.spec, call_.sequence_length);
    }
    const Wide exact = exact_->evaluate(point, input)[element];
    const Wide bound = claimed_error_bounds(*fast_, point, input)[element];
    const Wide error = abs(Wide(actual) - exact);
    decision.ratio = bound > 0 ? static_cast<double>(error / bound) : (error > 0 ? INFINITY : 0.0);
    seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  return decision;
}

}  // namespace peconform::harness
