#pragma once
// The CPU backend's own frequency plans, written from their definitions (Hugging Face
// transformers' modeling_rope_utils, the papers) and not from reference/: a second, independent
// version, so that the Cpu properties compare two readings of each plan and not one.
//
// Accuracy: every theta_i and attention factor is formed in binary128 (quad.hpp). Each value is
// a short chain of correctly rounded operations (2^-113 each) and libquadmath's expq, logq,
// powq, sqrtq (within a few ulps); the largest amplification is pow's exponent,
// |(2i/d) ln base| <= |ln base|, about 21 for base 1e9. Measured against the exact tier (MPFR,
// 200 bits) over 568 specs (bases 1.5 to 1e9, d 2 to 512; none, linear, yarn with and without
// truncation and mscale, llama3, dynamic; sinusoid tables): theta within 2^-108.8, within
// 2^-106.9 once split into two doubles, attention factors within 2^-115; the error model
// charges exact-angle 2^-100 (precision/error_model.hpp). frequency_plan_test checks the plans
// against values derived by hand.
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
// `sequence_length` is the length dynamic NTK and LongRoPE key on, as the Implementation
// interface hands it over: the plan's `len` already applied by the caller where the spec sets it.
Frequencies rotary_frequencies(const Spec& spec, std::int64_t sequence_length);

// 2-D axial RoPE (rope-vit): each axis takes d/4 pairs with theta_j = base^(-4j/d).
std::vector<Quad> axial_frequencies(const Spec& spec);

// A sinusoidal table's frequencies, one per (sin, cos) pair: `power` base^(-2i/(2 floor(d/2)))
// (Vaswani), `geometric` exp(-i ln(base)/max(floor(d/2) - 1, 1)) (tensor2tensor, fairseq);
// odd d interleaved (DistilBERT) base^(-2i/d) for i up to floor(d/2), the last for its lone column;
// Transformer-XL's R uses 1/base^(2i/d) (kimiyoung/transformer-xl mem_transformer.py).
std::vector<Quad> sinusoid_frequencies(const Spec& spec);

}  // namespace peconform::cpu
