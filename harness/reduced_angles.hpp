#pragma once
// reduce_angle (screened_cos_sin.hpp) for every pair of a token at once, in the widest vectors
// the CPU has (Highway, chosen at run time). The rotary verifier reduces each pair's angle once
// per token; done one pair at a time that was the largest single cost of the ci profile
// (tools/BENCHMARKS.md, "Fifth step"). Lane by lane the vectors perform reduce_angle's IEEE
// operations in its order (its error-free products as fused multiply-subtracts, which are
// std::fma; nothing else fused: reduced_angles.cpp is compiled with -ffp-contract=off), so each
// reduced angle is bit for bit the scalar one, and the proof at reduce_angle covers it. Targets
// without a fused multiply-add call reduce_angle pair by pair.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "harness/screened_cos_sin.hpp"

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

// A fixed set of pairs' angles, reduced together at each token or row (one object per thread):
// of(j) is reduce_angle(positions[j], frequencies[j]), bit for bit, unformed where that is.
class PairAngles {
 public:
  explicit PairAngles(const std::vector<SplitFrequency>& frequencies);
  void reduce(const std::vector<std::int64_t>& positions);
  ReducedAngle of(std::size_t j) const {
    if (!formable_[j] || std::isnan(hi_[j])) return {};
    return {hi_[j], lo_[j], magnitude_[j], true};
  }

 private:
  std::vector<bool> in_range_;
  std::vector<double> frequency_hi_, frequency_mid_, frequency_lo_, position_, hi_, lo_, magnitude_;
  std::vector<char> formable_;
};

}  // namespace peconform::harness
