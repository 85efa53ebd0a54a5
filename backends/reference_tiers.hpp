#pragma once
// The exact and fast reference tiers as implementations, each with the bound that
// reference/tier_bounds.hpp derives for it.
#include "backends/implementation.hpp"

namespace peconform {

const Implementation& exact_tier();
const Implementation& fast_tier();

}  // namespace peconform
