#include "harness/shrink.hpp"

#include <fmt/format.h>
#include <functional>
#include <optional>
#include <set>
#include <vector>

#include "harness/case_generator.hpp"
#include "spec/spec_error.hpp"

namespace peconform::harness {
namespace {

// What "fails the same way" compares. In the kernel's own array (CaseOutcome::kernel_array) an
// element it did not write holds leftover memory: its value, and so its kind (nan, numeric,
// sign, ...), changes from run to run while the defect does not, so those kinds count as one.
std::string failure_kind(const CaseOutcome& outcome) {
  if (!outcome.error.empty()) return outcome.error_kind;
  if (!outcome.verdict.first_failure) return "";
  const std::string& kind = outcome.verdict.first_failure->kind;
  static const std::set<std::string> kValueKinds{"nan", "inf", "sign", "numeric", "norm", "mismatch"};
  if (outcome.kernel_array && kValueKinds.contains(kind)) return "a wrong value in the kernel's own array";
  return kind;
}

// Where to narrow a failure that names no element: the query operand's last batch row, token
// and head, whose offsets are the largest (an index that overflows does so there first).
ElementFailure last_element(const CaseDescription& c) {
  ElementFailure last;
  last.operand = "q";
  last.at = {c.batch - 1, c.seq - 1, c.heads - 1, 0};
  return last;
}

// The failing element's coordinates in the original case's index space: its batch row, token
// (or table row, or query) and head, and its operand where the call has two. A sentinel found
// in a guard names no element; a write past the end shows at the last one, so the last element
// is tried (kept only if the narrowed case still fails the same way).
Selection selection_of(const CaseDescription& c, const ElementFailure& failure) {
  if (failure.at[0] < 0) return selection_of(c, last_element(c));
  Selection s = c.select;
  const std::int64_t batch = failure.at[0], row = failure.at[1], head = failure.at[2];
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

// Whether `c` fails with `kind` on every one of kShrunkReplays runs; `passed` is the run that
// did not (from 1), 0 when none.
bool fails_every_replay(const CaseDescription& c, const std::string& kind, const TensorBackend& backend, int& passed) {
  for (int replay = 1; replay <= kShrunkReplays; ++replay) {
    const CaseOutcome again = run_case(c, backend);
    if (!again.failed() || failure_kind(again) != kind) {
      passed = replay;
      return false;
    }
  }
  passed = 0;
  return true;
}

}  // namespace

Shrunk shrink_case(const CaseDescription& failing, const CaseOutcome& outcome, const TensorBackend& backend) {
  const std::string kind = failure_kind(outcome);
  if (kind == "hang")
    return {failing, outcome, false, "not shrunk or replayed: every run of a hanging kernel costs the whole case timeout"};
  // The cases kept, from the drawn one to the smallest.
  std::vector<Shrunk> kept{{failing, outcome, false, ""}};
  const CallsTaken takes = backend.capabilities().takes;
  // Only to calls the kernel takes: a plugin's kernel may take in-place calls alone, say.
  auto attempt = [&](const std::function<void(CaseDescription&)>& change) {
    CaseDescription candidate = kept.back().description;
    change(candidate);
    if (candidate == kept.back().description || !takes_call(candidate, takes)) return;
    CaseOutcome result;
    try {
      result = run_case(candidate, backend);
    } catch (const SpecError&) {
      return;  // a narrowing the case cannot take (a head the other operand lacks)
    }
    if (result.failed() && failure_kind(result) == kind) kept.push_back({std::move(candidate), std::move(result), false, ""});
  };
  // Narrow to the failing element, all at once and then one axis at a time (a failure that
  // needs two tokens, say, keeps the axes it needs).
  for (int round = 0; round < 2; ++round) {
    const CaseDescription& best = kept.back().description;
    const std::optional<ElementFailure>& first = kept.back().outcome.verdict.first_failure;
    const Selection all = selection_of(best, first ? *first : last_element(best));
    attempt([&](CaseDescription& c) { c.select = all; });
    attempt([&](CaseDescription& c) { c.select.batch = all.batch; });
    attempt([&](CaseDescription& c) { c.select.operand = all.operand; });
    attempt([&](CaseDescription& c) { c.select.head = all.head; });
    attempt([&](CaseDescription& c) { c.select.token = all.token; });
  }
  attempt([](CaseDescription& c) { c.pad = 0; });
  attempt([](CaseDescription& c) { c.order = "bshd"; });
  attempt([](CaseDescription& c) { c.in_place = false; });

  // Report the smallest case that fails every replay, or the drawn case if none does.
  std::size_t step = kept.size() - 1;
  int passed = 0;
  bool reproduced = fails_every_replay(kept[step].description, kind, backend, passed);
  if (reproduced) return std::move(kept[step]);
  const std::string smallest = kept[step].description.text();
  const int smallest_passed = passed;
  while (!reproduced && step > 0) reproduced = fails_every_replay(kept[--step].description, kind, backend, passed);
  Shrunk chosen = std::move(kept[step]);
  chosen.flaky = true;
  if (step + 1 == kept.size())
    chosen.note = fmt::format("flaky: replay {} of {} of this case passed", smallest_passed, kShrunkReplays);
  else if (reproduced)
    chosen.note = fmt::format("flaky: replay {} of {} of the smaller case '{}' passed; this case failed all {}", smallest_passed,
                              kShrunkReplays, smallest, kShrunkReplays);
  else
    chosen.note = fmt::format("flaky: replay {} of {} of the smaller case '{}' passed, and replay {} of this case", smallest_passed,
                              kShrunkReplays, smallest, passed);
  if (chosen.outcome.kernel_array)
    chosen.note += "; the kernel returned an array of its own, where an element it does not write holds whatever the memory "
                   "held, right by chance on some runs";
  return chosen;
}

}  // namespace peconform::harness
