#pragma once
// The facts that junit.xml, summary.md and report.html all state, worded once so that the three
// never disagree: the verdict, a cell's name, which bounds are loose, the run's identity and a
// failure's details. Values are plain text; each renderer escapes them for its own format.
#include <string>
#include <vector>

#include "harness/campaign_result.hpp"

namespace peconform {

struct Fact {
  std::string label, value;
};

// "conformant" or "non-conformant", the words report.json uses.
std::string verdict_word(const harness::CampaignResult& result);
// The verdict with what decided it, as one sentence.
std::string verdict_line(const harness::CampaignResult& result);
// "backend/family/dtype/precision".
std::string cell_name(const harness::CellKey& key);
// A bound is loose when no element came near it: it would let a worse kernel pass too.
bool loose(const harness::CellStats& stats);
// Where a cell's class stops constraining rotated pairs: "2^22.4" for |phi| = 2^22.4, "never"
// where no angle reaches it.
std::string horizon_text(double horizon);
// The failure records whose cell is `key` (records name family, dtype and class; the backend is the run's).
std::vector<const harness::FailureRecord*> failures_of(const harness::CampaignResult& result,
                                                       const harness::CellKey& key);

std::vector<Fact> run_facts(const harness::RunInfo& info);
// Everything about a failure but its replay command, which each renderer sets apart to be copied.
std::vector<Fact> failure_facts(const harness::FailureRecord& failure);

}  // namespace peconform
