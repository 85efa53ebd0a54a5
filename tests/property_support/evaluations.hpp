#pragma once
// What the tests of checks.cpp compare: evaluations of rope(d=4) with chosen values and bounds.
#include <limits>
#include <utility>
#include <vector>

#include "properties/checks.hpp"

namespace peconform::support_test {

inline const Wide kInfinity = std::numeric_limits<Wide>::infinity();

// A function, not a constant: Spec::parse reads tables that static initialisation may not have built.
inline Spec rope4() { return Spec::parse("rope(d=4,layout=interleaved)"); }

// An evaluation of rope(d=4) with the given values and bounds.
inline Evaluation evaluation(std::vector<Wide> values, std::vector<Wide> bounds) {
  return Evaluation{rope4(), Point{}, {}, std::move(values), std::move(bounds)};
}

}  // namespace peconform::support_test
