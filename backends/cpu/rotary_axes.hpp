#pragma once
// Which position axis drives each rotated pair, and which frequency it takes, for the families
// whose positions have more than one axis: mRoPE's (t, h, w) sections and 2-D axial RoPE's (x, y).
#include "spec/spec.hpp"

namespace peconform::cpu {

struct PairAxis {
  int axis = 0;       // the position id row: 0 for RoPE and xPos
  int frequency = 0;  // index into the family's frequency list
};

// How many position axes the family's ids carry: 3 (mRoPE), 2 (rope2d) or 1.
int position_axes(const Spec& spec);

// Pair `pair` (0 .. d_rot/2 - 1) of a rotary spec.
//  mRoPE blocked (Qwen2-VL, modeling_qwen2_vl): the first sections[0] frequencies follow t, the
//    next sections[1] h, the rest w; frequency i stays frequency i.
//  mRoPE interleaved (Qwen3-VL, transformers' apply_interleaved_mrope): h on i = 1 mod 3 below
//    3 sections[1], w on i = 2 mod 3 below 3 sections[2], t on the rest. Each axis gets its
//    sections[k] frequencies only while those windows fit in the pairs (Qwen3-VL's [24, 20, 20]
//    does); for others, such as [1, 2, 2], the real kernels give t what h and w leave, and so
//    does this.
//  rope2d (naver-ai/rope-vit axial): pairs 0 .. d/4 - 1 follow x with frequency j, the next d/4
//    follow y with frequency j - d/4.
PairAxis pair_axis(const Spec& spec, int pair);

}  // namespace peconform::cpu
