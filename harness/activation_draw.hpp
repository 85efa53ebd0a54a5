#pragma once
// The campaign's activation inputs (harness/case_call.cpp), one row at a time, in the widest
// vectors the CPU has (Highway, chosen at run time). Element i of an operand is the Irwin-Hall
// normal of its counter hash, times its channel's scale, in double; the vectors perform the
// scalar definition's integer and IEEE operations in the same order (no fused multiply-add:
// activation_draw.cpp is compiled with -ffp-contract=off), so every value is bit for bit what
// draw_activation_row_scalar gives, and a case draws the same inputs on every instruction set.
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "harness/counter_random.hpp"

namespace peconform::harness {

// Irwin-Hall: the sum of four 16-bit uniforms of h, centred and scaled to unit variance: a
// normal shape without libm, so the same bits on every machine.
inline double irwin_hall_normal(std::uint64_t h) {
  double sum = 0;
  for (int k = 0; k < 4; ++k) sum += static_cast<double>((h >> (16 * k)) & 0xffffu);
  return (sum - 2 * 65535.0) / (65536.0 * std::sqrt(4.0 / 12.0));
}

// values[e] = irwin_hall_normal(key(first + e)) * scales[e] for e in [0, count).
void draw_activation_row(const CounterKey& key, std::uint64_t first, const double* scales, std::size_t count, double* values);
// The same, one element at a time: the definition the vectors are held to.
void draw_activation_row_scalar(const CounterKey& key, std::uint64_t first, const double* scales, std::size_t count,
                                double* values);
// The instruction set draw_activation_row runs on here ("AVX3", "AVX2", "SSE4", ...).
const char* activation_draw_target();

}  // namespace peconform::harness
