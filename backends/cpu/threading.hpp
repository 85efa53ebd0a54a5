#pragma once
// When a kernel call is worth an OpenMP team.
#include <cstdint>

namespace peconform::cpu {

// Below this many output elements a call runs on the calling thread: waking a team costs more
// than the work, and the harness's one-point calls would spend their time in the runtime.
inline constexpr std::int64_t kElementsWorthThreads = std::int64_t{1} << 15;

}  // namespace peconform::cpu
