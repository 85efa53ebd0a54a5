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
};

// Throws SpecError naming the profile for anything but smoke, ci or deep.
Profile profile_named(std::string_view name);

}  // namespace peconform::harness
