#pragma once
// The bound B a kernel of each precision class claims for each output element (DESIGN.md
// section 2): every backend is held to it, ours, plugins and GPU kernels alike. With u_c, u_s
// the unit roundoffs of the compute and storage formats, eta_c, eta_s their subnormal spacings,
// A the amplitude, r = |x_pair|, phi the exact angle and y_e the exact element:
//
//   angle error    d_phi = 2^-50 + |phi| 2^-100          exact-angle, lowp-cache: p theta to 106 bits,
//                                                        reduced by pi/2 to a few units of 2^-53
//                  d_phi = 2^-50 + |phi| eps_theta       fp32-angle: eps_theta from the recipe that
//                                                        forms theta in float32 (theta_recipe_error)
//   amplitude      d_A   = (|ln a_xpos| + 4) 2^-52       attention factor and zeta^(n/s) in double
//   sin/cos        2^-51                                 2^-52 each (precision/measured_constants.md)
//   cos/sin cache  2 u_c, plus 2 u_s under lowp-cache    A cos, A sin rounded to their format
//   products       u_c                                   a c and b s: |a c| + |b s| <= A r
//   second order   u_c
//   final rounding u_f |y_e|                             the sum a c - b s rounds in the compute
//                                                        format, then the store into the storage
//                                                        format: u_f = u_s, plus u_c where the two differ
//
//   P = A r (d_phi + d_A + 2^-51 + 4 u_c [+ 2 u_s]) + r (3 eta_64 + eta_c [+ eta_s]) + eta_c
//   B(pair element e) = P (1 + u_f) + u_f |y_e| + eta_s
//
// The error of (c, s) as a vector, e, moves each output by at most r |e| (Cauchy-Schwarz),
// which is why those terms are multiples of A r; the final rounding is relative to the element
// itself, so an element much smaller than its pair still exposes an error in cos/sin. The eta
// terms cover roundings that underflow: the amplitude chain (exp, times the attention factor,
// times cos) rounds three times in double (eta_64 = 2^-1074) and once more into the compute
// format, each by at most half a spacing on each of c and s; then the products, and the store.
// A sinusoid entry y = sin or cos: B = d_phi + 2^-52 + u_f |y| + eta_c + eta_s.
// An ALiBi bias b: |b| (2^-51 + u_c + u_s) + eta_c + eta_s, or |b| (4 u_32 + u_s) + ... under
// fp32-angle (float slope, float distance, float product).
//
// Unconstrained: where the part of B proportional to the element's own scale (A r for an element
// of a rotated pair, 1 for a table entry, |b| for a bias) reaches that scale, the bound says
// nothing (the absolute subnormal terms alone still pin an element of tiny scale near 0); and
// where A max(r, 1) (or zeta^(n/s) max(r, 1), which the kernel forms first) or |b| comes within
// 2^-6 of the storage format's largest value, the result (or cos/sin in the cache) may overflow
// and the kernel makes no claim. Either way claimed_error_bounds reports +inf: such an element is counted apart,
// never as a pass. Pass-through dims, gathers, T5 and Shaw indices and masked biases must be
// identical: B = 0.
#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <vector>

#include "precision/format_constants.hpp"
#include "backends/implementation.hpp"
#include "reference/reference.hpp"

namespace peconform {

// The relative error of a float32 angle fl(p) theta_f as the spec's recipe forms it, for pair
// `pair` (its place in the series theta_0, theta_1, ...) whose exact frequency is `frequency`.
// Each rounding of binary32 contributes a factor (1 + u), u = 2^-24; powf is charged one ulp
// (2u: glibc's is within 0.82 ulp, SLEEF's u10 and CUDA's within 1), and an exponent e or a
// base rounded by u moves base^e by exp(e |ln base| u) and exp(e u) (first order, bounded by
// the exponential itself):
//   exact  theta, p and their product each correctly rounded: (1+u)^3 - 1.
//   hf     Hugging Face's inv_freq = 1 / base^(2i/d) in float32 (modeling_rope_utils,
//   meta   _compute_default_rope_parameters) and Meta's llama precompute_freqs_cis, the same
//          operations: 2i/d rounds, pow, the reciprocal, linear's division by the factor (and the
//          factor itself) round; then p and the product: with e = 2i/d <= 1 and
//          e |ln base| = |ln theta_default|,
//          (1+u)^(3 [+2]) (1+2u) exp(u (|ln theta_default| (1+u) + (1+u)/(1-u))) - 1.
//   ggml   ggml's rope: theta_scale = powf(base, -2/n) (as above with e = 2/n; n = d/2 for each
//          axis of rope2d), theta starts at
//          fl(p) and is multiplied by theta_scale once per pair, rounding each time; linear
//          multiplies by fl(1/factor): (1+u)^(1 + i [+2]) (1 + eps_scale)^i - 1.
template <class Real> Real theta_recipe_error(const Spec& spec, int pair, const Real& frequency) {
  using std::abs, std::exp, std::ldexp, std::log, std::pow;
  const Real u = ldexp(Real(1), -24);
  const Real one_plus_u = 1 + u;
  const bool linear = spec.scaling.kind == PlanKind::linear;
  const Real factor = linear ? Real(spec.scaling.factor.to_double()) : Real(1);
  const Real log_base = abs(log(Real(spec.base.to_double())));
  const Real pow_error = 2 * u;
  const Real exponent_error = (1 + u) / (1 - u);
  switch (spec.theta) {
    case ThetaRecipe::exact: return pow(one_plus_u, 3) - 1;
    case ThetaRecipe::hf:
    case ThetaRecipe::meta: {
      const Real log_default = abs(log(frequency * factor));
      return pow(one_plus_u, linear ? 5 : 3) * (1 + pow_error) * exp(u * (log_default * one_plus_u + exponent_error)) - 1;
    }
    case ThetaRecipe::ggml: {
      // rope2d runs one product per axis over d/2 dims: theta_scale = base^(-4/d).
      const Real e = Real(2) / (spec.family == Family::rope2d ? spec.d / 2 : spec.rotary_dims());
      const Real scale_error = (1 + pow_error) * exp(u * e * (log_base * one_plus_u + exponent_error)) - 1;
      return pow(one_plus_u, 1 + pair + (linear ? 2 : 0)) * pow(1 + scale_error, pair) - 1;
    }
  }
  return Real(0);
}

// The bound of one element of a rotated pair, B = P (1 + final) + final |y_e| + store_absolute
// with P = A r relative + r per_norm + absolute, in the terms above. It holds while
// claim_scale max(r, 1) stays 2^-6 inside `largest`, and is +inf past it. Written once for any
// scalar: the properties evaluate it in binary128, the campaign's screening verifier in double
// (harness/rotary_verifier.cpp, which rounds it upward).
template <class Real> struct RotaryBoundTerms {
  Real relative, per_norm, absolute, final, store_absolute, largest;

  // Whether the bound says anything about a pair of any size: its part proportional to A r
  // (|y_e| <= A r) stays below A r.
  bool constrains() const { return relative * (1 + final) + final < 1; }

  Real bound(const Real& amplitude_norm, const Real& norm, const Real& element) const {
    using std::abs;
    const Real before_rounding = amplitude_norm * relative + norm * per_norm + absolute;
    return before_rounding * (1 + final) + final * abs(element) + store_absolute;
  }
};

// How the angle error grows with |phi| for pair `pair` of frequency `frequency` (theta): 2^-100
// for the classes that form p theta to 106 bits, the recipe's error under fp32-angle. It does not
// depend on the position, so callers form it once per pair.
template <class Real> Real angle_growth(const Spec& spec, int pair, const Real& frequency) {
  using std::ldexp;
  return spec.precision == PrecisionClass::fp32_angle ? theta_recipe_error<Real>(spec, pair, frequency)
                                                      : ldexp(Real(1), -100);
}

// `angle` is |p theta| before the sign; `log_xpos` is ln of the xPos factor (0 for others);
// `growth` is the pair's angle_growth.
template <class Real>
RotaryBoundTerms<Real> rotary_bound_terms(const Spec& spec, const Real& angle, const Real& log_xpos, const Real& growth) {
  using std::abs, std::ldexp;
  const FormatConstants compute = format_constants(compute_dtype(spec.dtype));
  const FormatConstants storage = format_constants(spec.dtype);
  const bool lowp = spec.precision == PrecisionClass::lowp_cache;
  const Real angle_error = ldexp(Real(1), -50) + abs(angle) * growth;
  const Real amplitude_error = (abs(log_xpos) + 4) * ldexp(Real(1), -52);
  const Real u_c(compute.unit), u_s(storage.unit), eta_c(compute.subnormal_spacing), eta_s(storage.subnormal_spacing);
  const Real final = u_s + (compute_dtype(spec.dtype) != spec.dtype ? u_c : Real(0));
  return {angle_error + amplitude_error + ldexp(Real(1), -51) + 4 * u_c + (lowp ? 2 * u_s : Real(0)),
          3 * ldexp(Real(1), -1074) + eta_c + (lowp ? eta_s : Real(0)),
          eta_c,
          final,
          eta_s,
          Real(storage.largest)};
}

// Whether a magnitude stays 2^-6 inside the storage range, where the kernels claim their bound.
template <class Real> bool within_claim(const Real& magnitude, const Real& largest) {
  return magnitude * (1 + std::ldexp(1.0, -6)) < largest;
}

// A sinusoid table entry's bound (a rotation of (0, 1)) at angle `angle`, for an entry of exact
// value `entry` (its sin or cos); +inf where the angle error alone reaches 1, the entries' scale.
template <class Real> Real sinusoid_bound(const Spec& spec, const Real& angle, const Real& entry) {
  using std::abs, std::ldexp;
  const FormatConstants compute = format_constants(compute_dtype(spec.dtype));
  const FormatConstants storage = format_constants(spec.dtype);
  const int growth = spec.precision == PrecisionClass::fp32_angle ? -22 : -100;
  const Real final = Real(storage.unit) + (compute_dtype(spec.dtype) != spec.dtype ? Real(compute.unit) : Real(0));
  const Real before_rounding = ldexp(Real(1), -50) + abs(angle) * ldexp(Real(1), growth) + ldexp(Real(1), -52);
  if (!(before_rounding < 1)) return std::numeric_limits<Real>::infinity();
  return before_rounding * (1 + final) + final * abs(entry) + Real(compute.subnormal_spacing) +
         Real(storage.subnormal_spacing);
}

// An ALiBi bias b's bound is |b| relative + absolute.
template <class Real> struct BiasBoundTerms {
  Real relative, absolute, largest;
};
template <class Real> BiasBoundTerms<Real> alibi_bound_terms(const Spec& spec) {
  using std::ldexp;
  const FormatConstants compute = format_constants(compute_dtype(spec.dtype));
  const FormatConstants storage = format_constants(spec.dtype);
  const Real relative = spec.precision == PrecisionClass::fp32_angle ? 4 * ldexp(Real(1), -24) + Real(storage.unit)
                                                                     : ldexp(Real(1), -51) + Real(compute.unit) + Real(storage.unit);
  return {relative, Real(compute.subnormal_spacing) + Real(storage.subnormal_spacing), Real(storage.largest)};
}

// The |phi| from which the spec's class stops constraining any rotated pair: where the angle
// term alone makes P reach A r, at the pair whose recipe error is largest (the last pair of
// ggml's running product; e = 1 for hf and meta); for a sinusoid table, where an entry's angle
// term reaches 1. +inf for the other families; for exact-angle it lies far past any position a
// kernel takes (about 2^100).
double angle_horizon(const Spec& spec);

std::vector<Wide> claimed_error_bounds(const Reference<FastReal>& reference, const Point& point, std::span<const Wide> input);

}  // namespace peconform
