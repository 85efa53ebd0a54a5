#pragma once
// reduce_angle (screened_cos_sin.hpp) for every pair of a token at once, in the widest vectors
// the CPU has (Highway, chosen at run time). The rotary verifier reduces each pair's angle once
// per token; done one pair at a time that was the largest single cost of the ci profile
// (tools/BENCHMARKS.md, "Fifth step"). Lane by lane the vectors perform reduce_angle's IEEE
// operations in its order (its error-free products as fused multiply-subtracts, which are
// std::fma; nothing else fused: reduced_angles.cpp is compiled with -ffp-contract=off), so each
// reduced angle is bit for bit the scalar one, and the proof at reduce_angle covers it. Targets
// without a fused multiply-add call reduce_angle pair by pair.
#include <cstddef>

namespace peconform::harness {

// Per pair j: its position p (an integer below 2^53 in magnitude, as a double) and its frequency
// in three parts (SplitFrequency), in range (split_frequency's in_range); arrays padded to a
// multiple of kRowScreenPad (rotary_row_screen.hpp).
struct AnglesToReduce {
  const double* position;
  const double* hi;
  const double* mid;
  const double* lo;
};

// reduce_angle's hi, lo and magnitude of each pair; hi is NaN where reduce_angle forms nothing
// (|p theta| reaches 2^50).
struct ReducedAngles {
  double* hi;
  double* lo;
  double* magnitude;
};

void reduce_angles(const AnglesToReduce& in, std::size_t pairs, const ReducedAngles& out);
// The instruction set reduce_angles runs on here ("AVX3", "AVX2", ...).
const char* reduced_angles_target();

}  // namespace peconform::harness
