#pragma once
// Shrinks a failing case to the smallest call that still fails the same way: the failing
// element's batch row, token, head and operand alone (select=), then plain strides, no
// padding, out of place, each kept only if the case still fails with the same kind. A failure
// with no failing element (the kernel crashed or threw) is narrowed to the call's last batch
// row, token and head, where offsets are largest; a crash is shrunk like any other failure,
// each run in the isolated worker that caught it.
//
// A smaller case can fail by chance (a race that one run in eight loses): the shrunk case is
// then replayed kShrunkReplays times, and if any replay passes, the cases shrinking kept are
// tried back towards the drawn one until one fails every replay. That case is reported, marked
// flaky.
#include <string>

#include "harness/case_run.hpp"

namespace peconform::harness {

// Replays that must all fail for a shrunk case to be trusted: a case that fails one run in
// eight passes all of them with probability 8^-5, one that fails half the runs with 2^-5.
inline constexpr int kShrunkReplays = 5;

struct Shrunk {
  CaseDescription description;
  CaseOutcome outcome;
  bool flaky = false;  // some replay passed: a smaller case, or this one, fails only sometimes
  std::string note;    // why the case is not smaller, or which replay passed; empty if neither
};
Shrunk shrink_case(const CaseDescription& failing, const CaseOutcome& outcome, const TensorBackend& backend);

}  // namespace peconform::harness
