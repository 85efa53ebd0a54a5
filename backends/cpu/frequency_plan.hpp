#pragma once
// The CPU backend's own frequency plans, written from their definitions (Hugging Face
// transformers' modeling_rope_utils, the papers) and not from reference/: a second, independent
// version, so that the Cpu properties compare two readings of each plan and not one.
//
// Accuracy: every theta_i and attention factor is formed in binary128 (quad.hpp). Each value is
// a short chain of correctly rounded operations (2^-113 each) and libquadmath's expq, logq,
// powq, sqrtq (within a few ulps); the largest amplification is pow's exponent,
// |(2i/d) ln base| <= |ln base|, about 14 for base 1e6. Split into two doubles (quad.hpp), theta
// is then good to about 2^-106 relative; `rotary_frequency_test` measures the whole chain
// against values derived by hand and the Cpu properties against the reference tiers.
#include <cstdint>
#include <vector>

#include "backends/cpu/quad.hpp"
#include "spec/spec.hpp"

namespace peconform::cpu {

struct Frequencies {
  std::vector<Quad> theta;  // theta_i for pair i = 0 .. d_rot/2 - 1
  Quad attention = 1;       // YaRN/LongRoPE attention factor on cos and sin (not amp)
};

// A rope, xpos or mrope spec's frequencies under its scaling plan, with d = d_rot.
// `sequence_length` is the length dynamic NTK and LongRoPE key on when the plan sets no `len`.
Frequencies rotary_frequencies(const Spec& spec, std::int64_t sequence_length);

// 2-D axial RoPE (rope-vit): each axis takes d/4 pairs with theta_j = base^(-4j/d).
std::vector<Quad> axial_frequencies(const Spec& spec);

// A sinusoidal table's frequencies, one per (sin, cos) pair: `power` base^(-2i/(2 floor(d/2)))
// (Vaswani), `geometric` exp(-i ln(base)/max(floor(d/2) - 1, 1)) (tensor2tensor, fairseq);
// Transformer-XL's R uses 1/base^(2i/d) (kimiyoung/transformer-xl mem_transformer.py).
std::vector<Quad> sinusoid_frequencies(const Spec& spec);

}  // namespace peconform::cpu
