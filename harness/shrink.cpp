#include "harness/shrink.hpp"

#include <chrono>
#include <exception>
#include <functional>

#include "spec/spec_error.hpp"

namespace peconform::harness {
namespace {

std::string failure_kind(const CaseOutcome& outcome) {
  if (!outcome.error.empty()) return outcome.error_kind;
  return outcome.verdict.first_failure ? outcome.verdict.first_failure->kind : "";
}

// The failing element's coordinates in the original case's index space.
Selection selection_of(const CaseDescription& c, const ElementFailure& failure) {
  Selection s = c.select;
  const auto [b, row, h, e] = failure.at;
  (void)e;
  if (b < 0) return s;  // out of bounds: no element to narrow to
  const Family family = c.spec.family;
  if (is_rotary(family)) {
    if (!s.batch) s.batch = b;
    if (!s.token) s.token = row;
    if (!s.head) s.head = static_cast<int>(h);
    if (!s.operand && c.kv_heads > 0) s.operand = failure.operand == "k" ? 1 : 0;
  } else if (family == Family::learned) {
    if (!s.batch) s.batch = b;
    if (!s.token) s.token = row;
  } else if (family == Family::alibi) {
    if (!s.token) s.token = row;
  } else if (family == Family::t5 || family == Family::shaw) {
    if (!s.token) s.token = row;
  } else {
    if (!s.token) s.token = row;
  }
  return s;
}

}  // namespace

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
  } catch (const std::exception& error) {
    outcome.error_kind = "error";
    outcome.error = error.what();
    outcome.verdict.stats.cases = 1;
    outcome.verdict.stats.failed_cases = 1;
    return outcome;
  }
  outcome.kernel_seconds = since(start);
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

Shrunk shrink_case(const CaseDescription& failing, const CaseOutcome& outcome, const TensorBackend& backend) {
  Shrunk best{failing, outcome};
  const std::string kind = failure_kind(outcome);
  auto attempt = [&](const std::function<void(CaseDescription&)>& change) {
    CaseDescription candidate = best.description;
    change(candidate);
    if (candidate == best.description) return;
    CaseOutcome result;
    try {
      result = run_case(candidate, backend);
    } catch (const SpecError&) {
      return;  // a narrowing the case cannot take (a head the other operand lacks)
    }
    if (result.failed() && failure_kind(result) == kind) best = {std::move(candidate), std::move(result)};
  };
  // Narrow to the failing element, all at once and then one axis at a time (a failure that
  // needs two tokens, say, keeps the axes it needs).
  for (int round = 0; round < 2; ++round) {
    if (!best.outcome.verdict.first_failure) break;
    const Selection all = selection_of(best.description, *best.outcome.verdict.first_failure);
    attempt([&](CaseDescription& c) { c.select = all; });
    attempt([&](CaseDescription& c) { c.select.batch = all.batch; });
    attempt([&](CaseDescription& c) { c.select.operand = all.operand; });
    attempt([&](CaseDescription& c) { c.select.head = all.head; });
    attempt([&](CaseDescription& c) { c.select.token = all.token; });
  }
  attempt([](CaseDescription& c) { c.pad = 0; });
  attempt([](CaseDescription& c) { c.order = "bshd"; });
  attempt([](CaseDescription& c) { c.in_place = false; });
  return best;
}

}  // namespace peconform::harness
