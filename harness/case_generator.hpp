#pragma once
// Draws campaign cases. Case k is a function of the campaign seed and k alone (its seed is
// counter_hash(seed, stream, k)), so a campaign gives the same cases at any thread count and
// under any shard split. Cases cycle through the cells (family x dtype x precision class) the
// backend supports and the filters keep, so that every cell is covered once the case count
// reaches the number of cells.
#include <cstdint>
#include <optional>
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
};

// The cells to cycle through; throws SpecError when the filters leave none.
std::vector<CaseCell> campaign_cells(const BackendCapabilities& capabilities, const CaseFilters& filters);

CaseDescription draw_case(std::uint64_t campaign_seed, std::uint64_t index, const std::vector<CaseCell>& cells,
                          const CaseFilters& filters, const Profile& profile, const BackendCapabilities& capabilities);

// The cell a case's statistics go to ("int32"/"exact" for the integer families).
CellKey cell_of(const std::string& backend, const Spec& spec);

}  // namespace peconform::harness
