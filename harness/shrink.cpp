#include "harness/shrink.hpp"

#include <functional>

#include "spec/spec_error.hpp"

namespace peconform::harness {
namespace {

std::string failure_kind(const CaseOutcome& outcome) {
  if (!outcome.error.empty()) return outcome.error_kind;
  return outcome.verdict.first_failure ? outcome.verdict.first_failure->kind : "";
}

// The failing element's coordinates in the original case's index space: its batch row, token
// (or table row, or query) and head, and its operand where the call has two.
Selection selection_of(const CaseDescription& c, const ElementFailure& failure) {
  Selection s = c.select;
  const std::int64_t batch = failure.at[0], row = failure.at[1], head = failure.at[2];
  if (batch < 0) return s;  // out of bounds: no element to narrow to
  const Family family = c.spec.family;
  if (!s.token) s.token = row;
  if (is_rotary(family) || family == Family::learned) {
    if (!s.batch) s.batch = batch;
  }
  if (is_rotary(family)) {
    if (!s.head) s.head = static_cast<int>(head);
    if (!s.operand && c.kv_heads > 0) s.operand = failure.operand == "k" ? 1 : 0;
  }
  return s;
}

}  // namespace

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
