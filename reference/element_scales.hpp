#pragma once
// What every error model reads from the reference, element pair by element pair: for a rotated
// pair its elements, input norm, angle, frequency and amplitude; for a sinusoid table pair its
// elements, angle and frequency. The fast tier's bound (tier_bounds.cpp) and the precision classes'
// (precision/error_model.cpp) weigh these differently; they read them here.
#include <cstddef>
#include <span>
#include <vector>

#include "reference/reference.hpp"
#include "reference/rotary.hpp"
#include "reference/sinusoidal.hpp"

namespace peconform {

template <class Real> struct RotaryPairScale {
  std::size_t a = 0, b = 0;  // the elements the pair is written to
  Real norm;                 // |(x_a', x_b')|, the pair's input norm
  Real angle;                // p theta, before the sign
  Real frequency;            // theta
  Real attention;            // the attention factor times amp
  Real xpos;                 // zeta^(+-n/scale_base) for xPos, else 1
};

// Every rotated pair of a rotary spec at `point` for `input` (finite, within fp64's range, so
// that the squares stay inside the tier's range).
template <class Real>
std::vector<RotaryPairScale<Real>> rotary_pair_scales(const Reference<Real>& reference, const Point& point,
                                                      std::span<const Real> input) {
  const Spec& spec = reference.spec();
  const std::vector<Real>& inv = reference.frequencies().inv_freq;
  const auto [start, dims] = rotary_slice(spec);
  std::vector<RotaryPairScale<Real>> out;
  for (int pair = 0; pair < dims / 2; ++pair) {
    const auto [a, b] = rotary_pair_elements(spec.layout, start, dims, pair);
    const auto [ia, ib] = rotary_pair_inputs(spec.layout, start, dims, pair);
    out.push_back({a, b, sqrt(input[ia] * input[ia] + input[ib] * input[ib]), rotary_angle(spec, inv, point, pair),
                   inv[rotary_frequency_index(spec, pair)], reference.frequencies().attention,
                   spec.family == Family::xpos ? xpos_amplitude<Real>(spec, point.c[0], pair) : Real(1)});
  }
  return out;
}

template <class Real> struct TablePairScale {
  std::size_t first = 0, second = 0;  // the elements holding sin and cos (in either order)
  Real angle;                         // position (or distance) times theta
  Real frequency;                     // theta
  bool lone = false;                  // the lone column (has_lone_column): second == first, holding only the first member
};

// What a sinusoidal or Transformer-XL row's frequencies are multiplied by at `point`: the
// position past the offset, or the (clamped) distance.
inline std::int64_t table_distance(const Spec& spec, const Point& point) {
  return spec.family == Family::xl ? xl_distance(spec, point.c[0], point.c[1]) : point.c[0] + spec.offset;
}

// Every frequency pair of a sinusoidal or Transformer-XL row at `point`.
template <class Real> std::vector<TablePairScale<Real>> table_pair_scales(const Reference<Real>& reference, const Point& point) {
  const Spec& spec = reference.spec();
  const std::vector<Real>& inv = reference.frequencies().inv_freq;
  const int n = spec.d / 2;
  const std::int64_t distance = table_distance(spec, point);
  const bool interleaved = spec.family == Family::sinusoidal && spec.layout == Layout::interleaved;
  std::vector<TablePairScale<Real>> out;
  for (int i = 0; i < n; ++i) {
    const Real& frequency = inv[static_cast<std::size_t>(i)];
    out.push_back({static_cast<std::size_t>(interleaved ? 2 * i : i), static_cast<std::size_t>(interleaved ? 2 * i + 1 : i + n),
                   Real(distance) * frequency, frequency});
  }
  if (has_lone_column(spec)) {
    const auto last = static_cast<std::size_t>(spec.d - 1);
    const Real& frequency = inv[static_cast<std::size_t>(n)];
    out.push_back({last, last, Real(distance) * frequency, frequency, true});
  }
  return out;
}

}  // namespace peconform
