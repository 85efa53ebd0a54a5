#pragma once
// One case, start to finish: drawn, run on the backend, verified, timed.
#include <string>

#include "backends/tensor_backend.hpp"
#include "harness/case_description.hpp"
#include "harness/verifier.hpp"

namespace peconform::harness {

// The verdict of running `description` on `backend`; a call the backend refuses (SpecError)
// fails with kind "refused", one it throws on otherwise with "error", one whose kernel crashed or hung with "crash" or "hang", one whose
// kernel wrote into its inputs or ids with "input-modified", each with a message.
struct CaseOutcome {
  CaseVerdict verdict;
  std::string error;       // what the backend threw, if it threw
  std::string error_kind;  // refused, error, crash, hang or input-modified
  double draw_seconds = 0, kernel_seconds = 0, verify_seconds = 0;
  // An output came from the kernel's own array (Buffer::kernel_array): an element the kernel
  // did not write holds whatever that memory held, which differs from run to run.
  bool kernel_array = false;
  bool failed() const { return verdict.failed() || !error.empty(); }
};
CaseOutcome run_case(const CaseDescription& description, const TensorBackend& backend);

}  // namespace peconform::harness
