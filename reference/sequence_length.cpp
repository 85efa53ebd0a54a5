#include <algorithm>

#include "reference/frequency_plans.hpp"
#include "reference/reference.hpp"

namespace peconform {

std::int64_t sequence_length_for(const Spec& spec, std::span<const Point> points) {
  std::int64_t largest = 0;
  for (const Point& point : points)
    for (int k = 0; k < point_arity(spec.family); ++k) largest = std::max(largest, point.c[static_cast<std::size_t>(k)]);
  return plan_sequence_length(spec, largest);
}

}  // namespace peconform
