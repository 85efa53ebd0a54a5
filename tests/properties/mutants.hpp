#pragma once
// Test-only broken implementations: each plants one bug that a real kernel shipped (or a bug of
// that class; ../shared/DESIGN.md section 5) on top of the fast tier, stores its values in the
// spec's dtype and claims the bound of the precision class of the kernel it imitates
// (precision/error_model.hpp). The mutant test asserts that every property rejects the mutant
// meant for it, and every named mutant is rejected by its relation, on a value.
#include <string_view>
#include <vector>

#include "backends/implementation.hpp"

namespace peconform {

struct MutantInfo {
  std::string_view name;
  std::string_view bug;  // what the broken kernel does, and where such a bug was seen
};

const std::vector<MutantInfo>& all_mutants();
// Throws std::out_of_range naming an unknown mutant.
const Implementation& mutant(std::string_view name);

}  // namespace peconform
