#include "harness/case_run.hpp"

#include <algorithm>
#include <chrono>
#include <exception>

#include "spec/spec_error.hpp"

#include "harness/case_call.hpp"

namespace peconform::harness {

CaseOutcome run_case(const CaseDescription& description, const TensorBackend& backend) {
  using Clock = std::chrono::steady_clock;
  const auto since = [](Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); };
  CaseOutcome outcome;
  Clock::time_point start = Clock::now();
  KernelCall call = materialize(description);
  outcome.draw_seconds = since(start);
  const std::uint64_t before = input_fingerprint(call);
  start = Clock::now();
  try {
    backend.run(call);
  } catch (const KernelFailure& failure) {
    outcome.error_kind = failure.kind();
    outcome.error = failure.what();
    outcome.verdict.stats.cases = 1;
    outcome.verdict.stats.failed_cases = 1;
    return outcome;
  } catch (const SpecError& refusal) {
    // The kernel refused the call (a plugin's PEC_REFUSED, a shape our kernels do not take).
    outcome.error_kind = "refused";
    outcome.error = refusal.what();
    outcome.verdict.stats.cases = 1;
    outcome.verdict.stats.failed_cases = 1;
    return outcome;
  } catch (const std::exception& error) {
    outcome.error_kind = "error";
    outcome.error = error.what();
    outcome.verdict.stats.cases = 1;
    outcome.verdict.stats.failed_cases = 1;
    return outcome;
  }
  outcome.kernel_seconds = since(start);
  outcome.kernel_array = std::any_of(call.outputs.begin(), call.outputs.end(), [](const Buffer& out) { return out.kernel_array; });
  start = Clock::now();
  outcome.verdict = verify_call(call);
  if (input_fingerprint(call) != before) {
    outcome.error_kind = "input-modified";
    outcome.error = "the kernel wrote into its input buffers or its position ids";
    outcome.verdict.stats.failed_cases = 1;
  }
  outcome.verify_seconds = since(start);
  return outcome;
}

}  // namespace peconform::harness
