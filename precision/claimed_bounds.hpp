#pragma once
// The error model's bounds for one prepared spec, for a backend whose kernels keep no reference
// of their own (backends/cpu): the bound is stated from the exact value, which only the
// reference knows, so the reference lives here, behind the error model, and not in the kernels.
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "backends/implementation.hpp"

namespace peconform {

class ClaimedBounds {
 public:
  ClaimedBounds(const Spec& spec, std::int64_t sequence_length);
  ~ClaimedBounds();
  ClaimedBounds(ClaimedBounds&&) noexcept;
  ClaimedBounds& operator=(ClaimedBounds&&) noexcept;

  // claimed_error_bounds (error_model.hpp) at `point` for `input`.
  std::vector<Wide> operator()(const Point& point, std::span<const Wide> input) const;

 private:
  struct State;
  std::unique_ptr<const State> state_;
};

}  // namespace peconform
