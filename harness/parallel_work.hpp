#pragma once
// When a call is drawn and verified by the OpenMP team rather than by the calling thread alone.
// Forking the team and joining it costs more than a small call's work, and far more when other
// processes hold the cores, as on a shared CI runner: the join then waits for a descheduled
// thread (the ci profile's 1000 mostly small cases spent 10 s drawing on 2 busy cores and 0.1 s
// on one thread). Every statistic of the verifier is a sum, a maximum or the lowest-index
// failure, and every drawn value a function of its index, so the result is the same either way.
#include <cstdint>

namespace peconform::harness {

inline constexpr std::int64_t kParallelElements = std::int64_t{1} << 16;

inline bool worth_a_team(std::int64_t elements) { return elements >= kParallelElements; }

}  // namespace peconform::harness
