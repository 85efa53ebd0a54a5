#pragma once
// The call a case description names, drawn from its seed: the buffers laid out as the case
// says, each with its sentinels (backends/kernel_call.hpp), the inputs and ids drawn element by
// element from the seed (counter_random.hpp), so that a shrunk case holds the values its
// original held at the same elements.
#include "backends/kernel_call.hpp"
#include "harness/case_description.hpp"

namespace peconform::harness {

// The call `description` names, with its buffers drawn from its seed. Throws SpecError for a
// description the family cannot take (a position past the family's limit, say).
KernelCall materialize(const CaseDescription& description);

}  // namespace peconform::harness
