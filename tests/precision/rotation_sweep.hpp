#pragma once
// What the precision tests' rotation sweeps share: the positions every sweep visits, and the
// heads it rotates there.
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "backends/gpu/storage_math.h"
#include "spec/spec.hpp"

namespace peconform::rotation_sweep {

// Small positions, both sides of 2^24 (where float32 stops holding every integer), and int32's last.
inline constexpr std::int64_t kPositions[] = {0,        1,        3,        17,        1000,      4097,       65537,      1 << 20,
                                              2796203,  16777215, 16777216, 16777217,  123456789, 536870913,  2147483583, 2147483647};

// Heads of d values: a magnitude 2^k, k uniform in [-6, 6], times standard normals, each rounded
// once to the dtype (to nearest even; float32 as drawn). One seed gives the same heads in order.
class HeadDraws {
 public:
  explicit HeadDraws(std::uint64_t seed) : random_(seed) {}
  std::vector<float> next(int d, Dtype dtype) {
    std::vector<float> x(static_cast<std::size_t>(d));
    const float magnitude = std::ldexp(1.0f, scale_(random_));
    for (float& value : x) {
      const float drawn = magnitude * normal_(random_);
      value = dtype == Dtype::fp32   ? drawn
              : dtype == Dtype::bf16 ? pec_float_of_bf16(pec_bf16_of_float(drawn))
                                     : pec_float_of_half(pec_half_of_float(drawn));
    }
    return x;
  }

 private:
  std::mt19937_64 random_;
  std::normal_distribution<float> normal_{0.0f, 1.0f};
  std::uniform_int_distribution<int> scale_{-6, 6};
};

}  // namespace peconform::rotation_sweep
