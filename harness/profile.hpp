#pragma once
// The campaign profiles (`--profile`): how many cases, how large a call may be, and how many
// cases each property gets. smoke is seconds, ci fits a CI job (3 minutes on 2 cores for the
// CPU backend) with a few long, narrow calls per rotary family (seq past 65,536, where launch
// grids broke), deep is for a release or a scheduled job and adds a long call every 64 cases
// and one tensor past 2^31 elements.
#include <cstdint>
#include <string>
#include <string_view>

namespace peconform::harness {

struct Profile {
  std::string name;
  std::uint64_t cases = 0;
  std::int64_t largest_call_elements = 0;
  int property_cases = 0;
  bool long_calls = false;             // deep's: every 64th case, and the huge call
  int long_calls_per_family = 0;       // ci's: this many per rotary family, in the first cycle of cells
  // Bounds a run may add for a slow kernel (check(max_elements=, max_tokens=)), 0 for none: no
  // tensor of a call (input or output) past this many elements, and no call past this many
  // tokens (batch x seq: one program each in a kernel that launches one per token). Calls that
  // cannot be made within them (long and huge calls) are not drawn.
  std::int64_t largest_tensor_elements = 0;
  std::int64_t most_tokens = 0;
};

// Throws SpecError naming `what` and `value` unless it is 1 or more (a bound above).
void check_shape_bound(std::string_view what, std::int64_t value);

// Throws SpecError naming the profile for anything but smoke, ci or deep.
Profile profile_named(std::string_view name);

}  // namespace peconform::harness
