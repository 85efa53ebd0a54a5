#pragma once
// The exact and fast reference tiers as tensor backends (`--backend exact|fast`): every element
// evaluated from the definition and rounded to the call's dtype, so that a campaign checks the
// tiers themselves at scale, through the same calls a kernel gets. They are slow (binary128 and
// MPFR per element), so they declare small calls.
#include <memory>

#include "backends/tensor_backend.hpp"

namespace peconform {

// `name` is what --backend calls it (fast, exact).
std::unique_ptr<TensorBackend> make_reference_tensor_backend(std::string name, const Implementation& tier,
                                                             std::int64_t largest_call_elements);

}  // namespace peconform
