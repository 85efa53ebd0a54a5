#pragma once
// Exact conversions between the tiers. Boost's generic conversion between an MPFR number and
// binary128 drops the sign of -0 and overflows to inf well inside binary128's range (the
// properties found both), so these go through MPFR's own binary128 routines: every binary128
// value is exact in the exact tier, and the way back rounds to nearest.
#include "reference/real_types.hpp"

namespace peconform {

ExactReal to_exact_tier(const FastReal& value);
FastReal to_fast_tier(const ExactReal& value);

}  // namespace peconform
