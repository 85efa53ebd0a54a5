#pragma once
// Checks every element of a finished kernel call against the reference, within the bound its
// precision class claims (precision/error_model.hpp, DESIGN.md section 2):
// - first what must be exact: guards and padding still their own buffer's sentinel, no output
//   left unwritten, no output holding any buffer's sentinel, NaN inputs giving NaN in their
//   pair, pass-through dims, gathers, indices and masks bit-identical (a NaN matches any NaN but
//   a sentinel: IEEE 754 gives a NaN's sign and payload no meaning, and a kernel that copies
//   through arithmetic may change them);
// - then NaN, Inf and sign mismatches, before any numeric error;
// - then the numeric error, screened in double with a proven reference error e: an element
//   passes when err + e <= B, fails when err - e > B, and is otherwise re-checked in the exact
//   tier (an escalation, counted);
// - an element whose bound is infinite or reaches its own scale (A r, 1, |b|) is unconstrained:
//   counted in its own column, never a pass; a rotated pair whose bound reaches A r only through
//   the angle term still has its norm held to A r (norm_checked_pairs, failures of kind norm).
// Computed values compare as numbers (-0 equals +0); copies compare bits.
// Elements are split across the OpenMP team; every statistic is a sum, a maximum or the
// failure with the lowest index, so the verdict is the same at any thread count.
#include <cstdint>
#include <optional>

#include "backends/kernel_call.hpp"
#include "harness/campaign_result.hpp"

namespace peconform::harness {

struct CaseVerdict {
  CellStats stats;  // this case's counts; cases = 1, worst_case left to the caller
  std::uint64_t failing_elements = 0;
  std::optional<ElementFailure> first_failure;  // the lowest (operand, element) that failed
  double escalation_seconds = 0;                // of the verifier's time, spent in the exact tier
  bool failed() const { return failing_elements > 0; }
};

// `call` after the backend ran (its inputs are what the kernel was given).
CaseVerdict verify_call(const KernelCall& call);

}  // namespace peconform::harness
