#pragma once
// The check every kernel makes on a run of positions before it computes anything.
#include <cstdint>
#include <fmt/format.h>
#include <string_view>

#include "spec/spec_error.hpp"

namespace peconform::cpu {

// Throws SpecError unless `count` >= 0 and first .. first + count - 1 lie within +-limit.
inline void check_position_range(std::string_view what, std::int64_t first, std::int64_t count, std::int64_t limit) {
  if (count < 0) throw SpecError(fmt::format("{} count must be >= 0, found {}", what, count));
  if (count == 0) return;
  if (first < -limit || first > limit || count - 1 > limit - first)
    throw SpecError(fmt::format("{}s {}..{} leave +-{}", what, first, first + count - 1, limit));
}

}  // namespace peconform::cpu
