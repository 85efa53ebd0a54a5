#pragma once
// What a campaign found, as plain data: the run's identity, one statistics cell per
// backend x family x dtype x precision class, the property verdicts and the failures. Every
// field but the timings and the thread count is a function of the seed, the profile, the
// filters and the shard, so shard results merge (merge_results) into exactly the result of one
// unsharded run. reports/ renders it; report.json round-trips it (to_json/from_json).
#include <array>
#include <bit>
#include <limits>
#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <tuple>
#include <vector>

namespace peconform::harness {

inline constexpr const char* kReportSchema = "peconform.report/1";

// Positions are binned by bit length: bin 0 holds position 0, bin b holds [2^(b-1), 2^b), and
// the last bin everything from 2^30 up to 2^31 - 1 and beyond.
inline constexpr int kPositionBins = 32;
// error/bound ratios are binned by log2: bin 0 holds ratios below 2^-(kRatioBins - 4) (and
// exact zeros), bin i holds [2^(i - kRatioBins + 3), 2^(i - kRatioBins + 4)), so that the last
// three bins hold ratios in [1, 8) and beyond: failures.
inline constexpr int kRatioBins = 28;
// Both are on the verifier's per-element path, hence inline and free of libm calls.
inline int position_bin(std::int64_t position) {
  const auto magnitude = static_cast<std::uint64_t>(position < 0 ? -position : position);
  const int bits = static_cast<int>(std::bit_width(magnitude));
  return bits < kPositionBins - 1 ? bits : kPositionBins - 1;
}
inline int ratio_bin(double ratio) {
  if (!(ratio > 0)) return 0;
  if (ratio == std::numeric_limits<double>::infinity()) return kRatioBins - 1;
  // floor(log2(ratio)) from the exponent bits (subnormal ratios land in bin 0 anyway).
  const int exponent = static_cast<int>((std::bit_cast<std::uint64_t>(ratio) >> 52) & 0x7ff) - 1023;
  const int bin = exponent + kRatioBins - 3;
  return bin < 0 ? 0 : (bin > kRatioBins - 1 ? kRatioBins - 1 : bin);
}

struct CellKey {
  std::string backend, family, dtype, precision;  // precision is "exact" for integer families
  friend auto operator<=>(const CellKey&, const CellKey&) = default;
};

struct CellStats {
  std::uint64_t cases = 0;
  std::uint64_t failed_cases = 0;
  std::uint64_t elements = 0;           // every element checked, of every kind below
  std::uint64_t bounded_elements = 0;   // checked against a finite bound that constrains them
  std::uint64_t identical_elements = 0; // checked for bit identity (indices, gathers, pass-through, masks)
  std::uint64_t unconstrained_elements = 0;  // bound infinite or at the element's own scale: never a pass
  // Rotated pairs past the horizon (their elements unconstrained) whose norm |y| was still held
  // to A r, within every term of the class's bound but the angle's (harness/rotary_verifier.cpp).
  std::uint64_t norm_checked_pairs = 0;
  // The |phi| from which the class stops constraining rotated pairs (precision/error_model.hpp
  // angle_horizon), the smallest over the cell's specs; +inf where no angle reaches it.
  double unconstrained_horizon = std::numeric_limits<double>::infinity();
  std::uint64_t failed_elements = 0;
  std::uint64_t escalations = 0;        // elements the screen could not decide, re-checked in the exact tier
  std::uint64_t boundary_elements = 0;  // T5 buckets on an exact logarithmic boundary
  double max_ulp = 0;                   // in ulps of the storage dtype, over bounded elements
  double worst_ratio = 0;               // error / bound, over bounded elements
  std::string worst_case;               // the case text of the worst ratio (first case index on ties)
  std::uint64_t worst_case_index = 0;
  std::array<double, kPositionBins> worst_ratio_by_position{};
  std::array<std::uint64_t, kRatioBins> ratio_histogram{};

  // Adds `other`'s counts; maxima keep the larger value, and on a tie the lower case index
  // (then the lower case text), so that merging in any order gives the same cell.
  void merge(const CellStats& other);
};

// One element that broke its bound, with everything needed to see why and to replay it.
struct ElementFailure {
  std::string kind;       // nan, inf, sign, numeric, norm, mismatch, unwritten, out-of-bounds
  std::string operand;    // "q", "k", "out", "table"
  std::int64_t element = 0;           // flat index in the operand's [batch, seq, heads, dim] order
  std::array<std::int64_t, 4> at{};   // batch, seq, head, dim (or head, query, key, 0 for biases)
  std::string position;  // "p", "t:h:w", "x:y" or "i:j"
  std::string input;     // the input values the element depends on, hex and decimal
  std::string reference; // hex and decimal
  std::string actual;    // hex and decimal
  double ulps = 0;
  double ratio = 0;      // error / bound; +inf for a non-finite or identity failure
  std::string bound;
};

struct FailureRecord {
  std::string case_text;       // the shrunk case; `peconform run --replay 'case_text'` replays it
  std::string original_case;   // the case as drawn, before shrinking
  std::uint64_t seed = 0;      // the campaign seed
  std::uint64_t case_index = 0;
  std::string cell_backend, cell_family, cell_dtype, cell_precision;  // the cell (backend: the kernel)
  ElementFailure first;        // the first failing element of the shrunk case
  std::uint64_t failing_elements = 0;
  std::string replay_command;
  std::string regression_file;  // where it was saved under fixtures/regressions/, if it was
  std::string message;          // a kernel that threw or crashed: what it said
  bool flaky = false;           // a replay of the shrunk case passed: case_text is the last that failed every replay
  std::string shrink_note;      // which replay passed, or why the case was not shrunk; empty if neither
};

struct PropertyVerdict {
  std::string name, families;
  bool passed = false;
  int cases = 0;
  std::string message;  // RapidCheck's failure description and reproduce string
};

struct RunInfo {
  std::string schema = kReportSchema;
  std::string tool_version, commit, machine, compiler;
  std::string backend, profile;
  std::uint64_t seed = 0;
  std::string filters;          // --spec/--family/--dtype/--precision as given
  int shard_index = 1, shard_count = 1;
  // The cases of the whole campaign the shard is one of (--cases, or the profile's): shards of
  // campaigns that differ in it draw other cases and must not merge. 0 in a report from before
  // it was recorded.
  std::uint64_t campaign_cases = 0;
  // The run's bounds on a call's shape (Profile::largest_tensor_elements, most_tokens; 0: none):
  // they change the cases drawn, so shards that differ in them must not merge either.
  std::int64_t max_elements = 0, max_tokens = 0;
  // Where and how the kernel ran, as the caller words it ("triton 3.9.0 interpreter, as
  // shipped"); empty where nobody said.
  std::string execution;
  std::uint64_t cases_planned = 0, cases_run = 0;
  std::uint64_t regressions_replayed = 0;
  bool partial = false;         // interrupted or out of time budget: what was covered is below
  std::string partial_reason;
  // Timings, threads and how idle threads waited: the only fields that differ between identical
  // runs. wait_policy is OMP_WAIT_POLICY as the run saw it, "default" where unset
  // (tools/wait_policy.hpp).
  int threads = 1;
  std::string wait_policy;
  double wall_seconds = 0;
  double elements_per_second = 0;          // every element checked, over the wall time
  double draw_seconds = 0, kernel_seconds = 0, verify_seconds = 0;  // summed over cases
  // Phases beside those: the exact tier's share of verify_seconds, shrinking failures, the
  // property catalog (report writing follows the report, so it is not in it).
  double escalation_seconds = 0, shrink_seconds = 0, property_seconds = 0;
  double verified_elements_per_second = 0; // every element checked, over the verifier's time
};

struct CampaignResult {
  RunInfo info;
  std::map<CellKey, CellStats> cells;
  std::vector<PropertyVerdict> properties;
  std::vector<FailureRecord> failures;  // in case-index order

  bool conformant() const;
  std::uint64_t total_elements() const;
};

// A cell is loose when its worst ratio stays below this: its bound would let a worse kernel pass.
inline constexpr double kLooseRatio = 0.1;

nlohmann::json to_json(const CampaignResult& result);
// Throws std::runtime_error naming the field for a report that is not peconform.report/1.
CampaignResult from_json(const nlohmann::json& json);
// Joins shard results: counts add, maxima take the larger (lower case index on ties),
// properties and failures are taken in order. The result is partial where any shard is, its
// reason naming every partial shard. Throws for shards of different campaigns, a shard given
// twice, and a shard missing (naming each missing I/N): no merged result claims a campaign
// that did not run whole.
CampaignResult merge_results(const std::vector<CampaignResult>& shards);

}  // namespace peconform::harness
