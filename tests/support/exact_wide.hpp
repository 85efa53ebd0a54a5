#pragma once
// A binary128 value exactly in MPFR, for the tests that hold double-double code to its proven
// bounds: its 113 bits as three doubles (split_wide), summed in ExactReal's 200 bits.
#include "harness/double_double.hpp"
#include "reference/real_types.hpp"

namespace peconform {

inline ExactReal exactly(const Wide& value) {
  const harness::SplitWide parts = harness::split_wide(value);
  return ExactReal(parts.hi) + ExactReal(parts.mid) + ExactReal(parts.lo);
}

}  // namespace peconform
