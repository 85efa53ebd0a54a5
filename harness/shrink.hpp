#pragma once
// Shrinks a failing case to the smallest call that still fails the same way: the failing
// element's batch row, token, head and operand alone (select=), then plain strides, no
// padding, out of place, each kept only if the case still fails with the same kind.
#include "harness/case_run.hpp"

namespace peconform::harness {

struct Shrunk {
  CaseDescription description;
  CaseOutcome outcome;
};
Shrunk shrink_case(const CaseDescription& failing, const CaseOutcome& outcome, const TensorBackend& backend);

}  // namespace peconform::harness
