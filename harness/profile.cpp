#include "harness/profile.hpp"

#include <fmt/format.h>

#include "spec/spec_error.hpp"

namespace peconform::harness {

Profile profile_named(std::string_view name) {
  if (name == "smoke") return {"smoke", 120, std::int64_t{1} << 16, 20, false, 0};
  if (name == "ci") return {"ci", 1000, std::int64_t{1} << 21, 300, false, 2};
  if (name == "deep") return {"deep", 20000, std::int64_t{1} << 25, 10000, true, 0};
  throw SpecError(fmt::format("unknown profile '{}'; expected smoke, ci or deep", name));
}

void check_shape_bound(std::string_view what, std::int64_t value) {
  if (value < 1) throw SpecError(fmt::format("{} is {}; expected 1 or more (a call has at least one token of one element)", what, value));
}

}  // namespace peconform::harness
