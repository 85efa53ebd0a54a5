#pragma once
// The exact tier, for the elements the screen cannot decide: evaluated at their point with their
// input, held to the bound precision/error_model.hpp computes in binary128. Built on first
// use, once per call; safe to call from the OpenMP team (calls are serialised: they are rare).
#include <memory>
#include <span>

#include "backends/implementation.hpp"
#include "backends/kernel_call.hpp"
#include "reference/reference.hpp"

namespace peconform::harness {

class Escalation {
 public:
  explicit Escalation(const KernelCall& call);
  ~Escalation();
  struct Decision {
    double ratio;  // |actual - exact| / bound
  };
  Decision decide(const Point& point, std::span<const Wide> input, std::size_t element, double actual);
  // Time spent in decide, the exact tier built on first use included.
  double seconds() const { return seconds_; }

 private:
  const KernelCall& call_;
  std::unique_ptr<Evaluator> exact_;
  std::unique_ptr<Reference<FastReal>> fast_;
  double seconds_ = 0;
};

}  // namespace peconform::harness
