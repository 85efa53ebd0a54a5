#pragma once
// Deterministic evaluation points for a spec: the edge positions every kernel should survive
// (0, 1, 2^24 - 1 .. 2^24 + 1 where float32 stops holding integers, 2^31 - 1) plus
// log-uniform random ones drawn from `seed`. The same seed gives the same points everywhere:
// draws use mt19937_64's specified output, not the implementation-defined distributions.
#include <cstdint>
#include <vector>

#include "reference/point.hpp"

namespace peconform {

std::vector<Point> sample_points(const Spec& spec, std::uint64_t seed, int random_count);

}  // namespace peconform
