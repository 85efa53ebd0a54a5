#pragma once
// Draws campaign cases. Case k is a function of the campaign seed and k alone (its seed is
// counter_hash(seed, stream, k)), so a campaign gives the same cases at any thread count and
// under any shard split. Cases cycle through the cells (family x dtype x precision class) the
// backend supports and the filters keep, so that every cell is covered once the case count
// reaches the number of cells. A campaign over several kernels (a plugin library's) cycles
// through the cells of all of them, and a kernel with spec patterns has its specs drawn from them.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "backends/tensor_backend.hpp"
#include "harness/campaign_result.hpp"
#include "harness/case_description.hpp"
#include "harness/profile.hpp"

namespace peconform::harness {

struct CaseFilters {
  std::optional<Spec> spec;  // every case uses this spec (--spec); its dtype and class are kept
  std::vector<Family> families;
  std::vector<Dtype> dtypes;
  std::vector<PrecisionClass> precisions;
};

// A cell: what a case is drawn for. Integer families have no dtype or class of their own.
struct CaseCell {
  Family family;
  Dtype dtype;
  PrecisionClass precision;
  // A rotary fp16 or bf16 cell whose cases, every other cycle of cells (the second, the fourth,
  // ...), round as a model of that dtype does (cache=storage,math=storage: transformers' and
  // vLLM's bf16 rotation); they are reported as a cell of their own (class_label). The others,
  // and every case of a cell without it, keep both keys at compute.
  bool model_rounding = false;
  int pattern = -1;         // the kernel's spec pattern its specs come from; -1: any spec of the family
  std::size_t kernel = 0;   // which of the campaign's kernels the cell is for
};

// The cells to cycle through for one kernel (`kernel` set in each); throws SpecError when the
// filters leave none.
std::vector<CaseCell> campaign_cells(const BackendCapabilities& capabilities, const CaseFilters& filters, std::size_t kernel = 0);

// Case `index`, for cell cells[index % cells.size()] of kernel kernels[cell.kernel]. Throws
// SpecError when the kernel's pattern makes no valid spec (pattern_problem says so up front).
CaseDescription draw_case(std::uint64_t campaign_seed, std::uint64_t index, const std::vector<CaseCell>& cells,
                          const CaseFilters& filters, const Profile& profile, std::span<const BackendCapabilities> kernels);
inline CaseDescription draw_case(std::uint64_t campaign_seed, std::uint64_t index, const std::vector<CaseCell>& cells,
                                 const CaseFilters& filters, const Profile& profile, const BackendCapabilities& capabilities) {
  return draw_case(campaign_seed, index, cells, filters, profile, std::span<const BackendCapabilities>(&capabilities, 1));
}

// Why the campaign cannot draw cases from `pattern` (it makes no valid spec for one of its
// dtypes and classes), or empty when it can.
std::string pattern_problem(const SpecPattern& pattern, const BackendCapabilities& capabilities);
// Whether `c` is a call a kernel that takes `takes` takes (what draw_case draws for it); the
// shrinker makes no other.
bool takes_call(const CaseDescription& c, const CallsTaken& takes);

// The first pattern_problem of the backend's patterns, or empty.
std::string backend_problem(const TensorBackend& backend);

// The cell a case's statistics go to ("int32"/"exact" for the integer families).
CellKey cell_of(const std::string& backend, const Spec& spec);
// A cell's class: the precision class, then cache=storage and math=storage where the spec holds
// them ("fp32-angle,cache=storage,math=storage"), as the spec text writes them.
std::string class_label(const Spec& spec);

}  // namespace peconform::harness
