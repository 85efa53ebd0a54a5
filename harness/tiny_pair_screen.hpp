#pragma once
// The rotary verifier checks a pair in binary128 where its inputs lie near double's underflow
// (xa^2 + xb^2 <= 2^-900, or A r < 2^-900: rotary_verifier.cpp), since double would round r, the
// reference and the bound by as much as the kernel's own subnormal allowance. binary128 is soft
// float, about 1.8 us a pair; fp64 inputs drawn as bit patterns make such pairs common. This screen
// finds, in double at an exact power-of-two scale, the pairs whose binary128 check cannot show in
// the report: both elements pass clearly, each ratio's histogram bin is certain, and neither ratio
// nor ULP count could raise a maximum the tally already holds. Those are tallied as the binary128
// check would tally them (an element and a bin each), and the rest still go to it; so the report
// is bit for bit what binary128 alone gives (tests/harness/tiny_pair_screen_test.cpp).
//
// The pair is scaled by 2^k, k making max(|xa|, |xb|) lie in [1, 2): the scaled inputs and outputs
// are exact, and every ratio, being error over bound, is unchanged. In the scaled pair:
// - R = sqrt(Xa^2 + Xb^2) within 2^-51 R, and S = A R within 2^-50 S, of binary128's r and A r;
// - Xa c and Xb s are formed exactly (two_product) and the reference from them in double-double:
//   within 2^-102 T + 2^-1060 of binary128's, T = |Xa c| + |Xb s| <= 1.01 S; the error
//   |Y - reference| likewise within 2^-50 of itself + 2^-100 T + 2^-1060 (the 2^-1060 covers the
//   products' low parts lost below double's normal range, 2^-1074 each);
// - the bound, a sum of nonnegative terms from binary128's terms rounded once to double, within
//   2^-47 of itself; the screen's own error S e within 2^-48 of itself.
// Each allowance is at least twice what it covers, which absorbs the few roundings of forming the
// allowances. Then a pair passes clearly where error + allowance + screen error (raised) is below
// the bound (lowered): binary128 finds it neither undecided nor failing; its ratio lies between
// the enclosure's ends widened by 2^-50, which covers binary128's division and the rounding to
// double; and its reference, rounded to double, between the ends of the reference's enclosure,
// each scaled back and stepped one double outward.
#include "harness/element_tally.hpp"
#include "precision/error_model.hpp"

namespace peconform::harness {

// One pair as the binary128 check takes it: the inputs and outputs, cos and sin with the
// amplitude folded in (TokenPair::cos, sin), A, and the screen's error relative to A r.
struct TinyPair {
  double xa = 0, xb = 0, ya = 0, yb = 0;
  double cos = 0, sin = 0, amplitude = 0, reference_relative = 0;
};

// What the tally already holds for the pair's case: its worst ratio, its worst ratio at the
// pair's position bin, and its most ULPs.
struct TallyMaxima {
  double worst_ratio = 0, worst_at_position = 0, max_ulp = 0;
};

// Where `neutral`, both elements pass and bins[0] and bins[1] are their ratio histogram bins.
struct NeutralPair {
  bool neutral = false;
  int bins[2] = {0, 0};
};

// `terms` are the pair's binary128 bound terms (rotary_bound_terms<Wide>) rounded to double. The
// caller tests the claim, with max(r, 1) = 1; the screen calls nothing neutral where that could
// be wrong (xa^2 + xb^2 of 1/2 or more), where the bound does not constrain, where both inputs
// are zero, or where any value is not finite.
NeutralPair screen_tiny_pair(const TinyPair& pair, const RotaryBoundTerms<double>& terms, const UlpFormat& format,
                             const TallyMaxima& maxima);

}  // namespace peconform::harness
