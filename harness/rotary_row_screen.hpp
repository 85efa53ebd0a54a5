#pragma once
// The rotary verifier's fast path over the pairs of one row (one head of one token), in the
// widest vectors the CPU has (Highway, chosen at run time). It performs, lane by lane, the very
// IEEE operations of the scalar screen it replaced (same operands, same order, no fused
// multiply-add: rotary_row_screen.cpp is compiled with -ffp-contract=off), so every decision,
// ratio and ULP count is bit for bit what the scalar code gave; the scalar reference of it,
// screen_rotary_row_scalar, is kept for the test that holds the two to each other.
//
// For pair j: r = sqrt(xa^2 + xb^2), the reference (ra, rb) = (xa c - xb s, xa s + xb c) with
// c and s the token's cos and sin times the amplitude, and each element's bound
// B = ((A r relative + r per_norm + absolute) (1 + final) + store_absolute
//      + final (|reference| + e)) kBoundRounding,
// where e = A r reference_relative is the screen's own error (rotary_verifier.cpp). The pair is
// decided, both elements passing, when claim_scale max(r, 1) < claim_limit, A r >= 2^-900,
// xa^2 + xb^2 > 2^-900 and |y - reference| + e <= B for both: then |y - exact| <= B, since the
// reference lies within e of the exact value. Everything else (NaN, Inf, a sentinel, an element
// near its bound or past it, tiny or huge pairs) is left to the full check.
#include <cstddef>
#include <cstdint>

namespace peconform::harness {

// Per token, one entry per pair, in arrays padded to a multiple of kRowScreenPad.
struct RowScreenPairs {
  const double* cos;
  const double* sin;
  const double* amplitude;
  const double* relative;            // the bound's angle and amplitude terms (RotaryBoundTerms::relative)
  const double* reference_relative;  // e / (A r)
  const double* claim_scale;         // +inf where the fast path must not decide
};

// What does not depend on the pair (RotaryBoundTerms of the spec) and the ULP format.
struct RowScreenConstants {
  double per_norm, absolute, final, store_absolute, claim_limit;
  int mantissa_bits, min_exponent;  // UlpFormat of the storage dtype (a float dtype)
};

// One row's inputs and outputs as doubles, pair j at index j: x at the pair's input elements,
// y at its output elements.
struct RowScreenValues {
  const double* xa;
  const double* xb;
  const double* ya;
  const double* yb;
};

// Per pair, both elements' ratios |y - reference| / B where the pair is decided, -1 where not.
struct RowScreenOut {
  double* ratio_a;
  double* ratio_b;
};

struct RowScreenSummary {
  double worst_ratio = 0;  // over the decided pairs' elements
  double most_ulps = 0;
  std::uint64_t decided_pairs = 0;
};

// Every array is padded to a multiple of this many entries (the most doubles any Highway target's
// vector holds: 2048-bit SVE); the padding is read, never decided.
inline constexpr std::size_t kRowScreenPad = 32;
inline constexpr std::size_t padded_pairs(std::size_t pairs) { return (pairs + kRowScreenPad - 1) / kRowScreenPad * kRowScreenPad; }

// Screens pairs [0, pairs) in the widest vectors the CPU has.
RowScreenSummary screen_rotary_row(const RowScreenPairs& token, const RowScreenValues& row, std::size_t pairs,
                                   const RowScreenConstants& constants, const RowScreenOut& out);
// The same, one pair at a time in scalar double: the definition the vectors are held to.
RowScreenSummary screen_rotary_row_scalar(const RowScreenPairs& token, const RowScreenValues& row, std::size_t pairs,
                                          const RowScreenConstants& constants, const RowScreenOut& out);
// The instruction set screen_rotary_row runs on here ("AVX3", "AVX2", "SSE4", ...).
const char* row_screen_target();

// Below this amplitude (or A r) the double screen's underflow would be as large as the kernel's
// own subnormal error.
inline constexpr double kSmallestScreenedAmplitude = 0x1p-900;
// Rounding the double evaluation of the bound itself could shave a few ulps off it; this keeps
// the screen's bound at or above the true one.
inline constexpr double kBoundRounding = 1 + 0x1p-40;

}  // namespace peconform::harness
