#pragma once
// 16-bit float rows converted in vectors (Highway, chosen at run time): the campaign's fp16
// inputs rounded from their drawn doubles, and the verifier's fp16 and bf16 rows widened to
// double. Each gives, on every target, the bits of the per-element conversion
// (half_bits.hpp, cpu::widen_bfloat16; tests/harness/sixteen_bit_rows_test.cpp).
//
// Where the CPU has F16C, the rounding goes through binary32 rounded to odd: the double's 29 low
// fraction bits are dropped and, if any was set, the lowest kept bit is set. A value rounded to
// odd at 24 bits, then to nearest-even at binary16's 11 (or fewer, for subnormals), is the value
// rounded to nearest-even at once, since 24 >= 11 + 2 (Boldo and Melquiond, "Emulation of FMA
// and correctly rounded sums: proved algorithms using rounding to odd", IEEE Trans. Computers
// 57(4), 2008, Theorem 1). F16C's conversion from binary32 rounds to nearest-even. Targets
// without F16C (Highway emulates it there, truncating) convert element by element.
#include <cstddef>
#include <cstdint>

namespace peconform::harness {

// bits[e] = round_to_half_bits(values[e]) for e in [0, count).
void round_row_to_half_bits(const double* values, std::size_t count, std::uint16_t* bits);
// values[e] = widen_half_bits(bits[e]) for e in [0, count).
void widen_half_row(const std::uint16_t* bits, std::size_t count, double* values);
// values[e] = cpu::widen_bfloat16 of the bfloat16 bits[e], for e in [0, count): a shift on
// every target.
void widen_bfloat16_row(const std::uint16_t* bits, std::size_t count, double* values);
// The instruction set these run on here ("AVX3", "AVX2", "SSE4", ...).
const char* sixteen_bit_rows_target();

}  // namespace peconform::harness
