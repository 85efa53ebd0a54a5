#pragma once
// The rotary families: RoPE (interleaved and half-split, either sign, partial on the first or
// last dims), xPos, mRoPE and 2-D axial RoPE. Definitions: ../shared/notes/variants.md
// sections 2 and 4, ../shared/DESIGN.md section 3.
#include <cstddef>
#include <span>
#include <vector>

#include "reference/frequency_plans.hpp"
#include "reference/point.hpp"

namespace peconform {

// Where rotated pair `pair` of a rotary slice of `dims` dims at `start` is written: (2i, 2i+1)
// interleaved as in Meta LLaMA and GPT-J, (i, i+dims/2) half-split as in GPT-NeoX and in
// DeepSeek-V3's interleaved_to_half.
inline std::pair<std::size_t, std::size_t> rotary_pair_elements(Layout layout, int start, int dims, int pair) {
  if (layout == Layout::interleaved)
    return {static_cast<std::size_t>(start + 2 * pair), static_cast<std::size_t>(start + 2 * pair + 1)};
  return {static_cast<std::size_t>(start + pair), static_cast<std::size_t>(start + pair + dims / 2)};
}

// Where the same pair is read: where it is written, except under interleaved_to_half, which
// reads (2i, 2i+1) (DeepSeek-V3 `apply_rotary_pos_emb_interleave` regroups the pairs of its
// input into halves before rotating them).
inline std::pair<std::size_t, std::size_t> rotary_pair_inputs(Layout layout, int start, int dims, int pair) {
  return rotary_pair_elements(layout == Layout::interleaved_to_half ? Layout::interleaved : layout, start, dims, pair);
}

// The rotated dims: `dims` of them starting at element `start` (partial rotary on the first or
// last dims; rope2d always rotates all of d).
struct RotarySlice {
  int start = 0;
  int dims = 0;
};

inline RotarySlice rotary_slice(const Spec& spec) {
  const int dims = spec.family == Family::rope2d ? spec.d : spec.rotary_dims();
  return {spec.rot_at == RotaryPlacement::first ? 0 : spec.d - dims, dims};
}

// The frequency that pair `pair` turns at: its own, except in rope2d, where x on the first d/4
// pairs and y on the next d/4 share base^(-4j/d) (rope-vit axial).
inline std::size_t rotary_frequency_index(const Spec& spec, int pair) {
  return static_cast<std::size_t>(spec.family == Family::rope2d ? pair % (spec.d / 4) : pair);
}

// Which coordinate of an mRoPE (t, h, w) point drives frequency `pair`. Blocked sections give
// the first sections[0] frequencies to t, the next sections[1] to h, the rest to w (Qwen2-VL).
// Interleaved sections cycle t, h, w while each axis has some left (Qwen3-VL).
inline int mrope_axis(const Spec& spec, int pair) {
  const std::vector<int>& sections = spec.sections;
  if (spec.section_mode == SectionMode::blocked) {
    int end = 0;
    for (std::size_t axis = 0; axis < sections.size(); ++axis) {
      end += sections[axis];
      if (pair < end) return static_cast<int>(axis);
    }
    return static_cast<int>(sections.size()) - 1;
  }
  for (int axis = 1; axis < static_cast<int>(sections.size()); ++axis)
    if (pair % 3 == axis && pair < 3 * sections[static_cast<std::size_t>(axis)]) return axis;
  return 0;
}

// Which coordinate of the point drives pair `pair`: t, h or w for mRoPE, x or y for rope2d
// (the first d/4 pairs follow x), the position itself otherwise.
inline int rotary_axis(const Spec& spec, int pair) {
  if (spec.family == Family::mrope) return mrope_axis(spec, pair);
  if (spec.family == Family::rope2d) return pair < spec.d / 4 ? 0 : 1;
  return 0;
}

// The angle that pair `pair` turns through at `point`, before the spec's sign.
template <class Real>
Real rotary_angle(const Spec& spec, const std::vector<Real>& inv_freq, const Point& point, int pair) {
  return Real(point.c[static_cast<std::size_t>(rotary_axis(spec, pair))]) * inv_freq[rotary_frequency_index(spec, pair)];
}

// xPos's zeta_i = (2i + 0.4 d)/(1.4 d) (torchscale XPOS).
template <class Real> Real xpos_zeta(const Spec& spec, int pair) {
  const Real dims(spec.rotary_dims());
  return (Real(2 * pair) + Real("0.4") * dims) / (Real("1.4") * dims);
}

// xPos's per-pair amplitude zeta_i^(+-n/scale_base); queries grow with n and keys shrink, so
// logits carry zeta^((m-n)/scale_base).
template <class Real> Real xpos_amplitude(const Spec& spec, std::int64_t position, int pair) {
  const Real exponent = Real(position) / from_decimal<Real>(spec.scale_base);
  return pow(xpos_zeta<Real>(spec, pair), spec.role == XposRole::query ? exponent : -exponent);
}

// y_a = A(x_a' cos(phi) - x_b' sin(phi)), y_b = A(x_a' sin(phi) + x_b' cos(phi)) on every rotated
// pair, (a', b') where the pair is read and (a, b) where it is written; dims outside the rotary slice pass through unchanged.
template <class Real>
std::vector<Real> rotate(const Spec& spec, const RotaryFrequencies<Real>& frequencies, const Point& point,
                         std::span<const Real> x) {
  std::vector<Real> y(x.begin(), x.end());
  const auto [start, dims] = rotary_slice(spec);
  for (int pair = 0; pair < dims / 2; ++pair) {
    const Real angle = Real(spec.sign) * rotary_angle(spec, frequencies.inv_freq, point, pair);
    Real amplitude = frequencies.attention;
    if (spec.family == Family::xpos) amplitude *= xpos_amplitude<Real>(spec, point.c[0], pair);
    const Real c = cos(angle) * amplitude, s = sin(angle) * amplitude;
    const auto [a, b] = rotary_pair_elements(spec.layout, start, dims, pair);
    const auto [ia, ib] = rotary_pair_inputs(spec.layout, start, dims, pair);
    y[a] = x[ia] * c - x[ib] * s;
    y[b] = x[ia] * s + x[ib] * c;
  }
  return y;
}

}  // namespace peconform
