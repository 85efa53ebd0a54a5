#pragma once
// The bound B a kernel of each precision class claims for each output element (DESIGN.md
// section 2): every backend is held to it, ours, plugins and GPU kernels alike. With u_c, u_s the unit roundoffs of the compute and storage formats, eta_c,
// eta_s their subnormal spacings, A the amplitude, r = |x_pair| and phi the exact angle:
//
//   angle error    d_phi = 2^-50 + |phi| 2^-100          exact-angle, lowp-cache: p theta to 106 bits,
//                                                        reduced by pi/2 to a few units of 2^-53
//                  d_phi = 2^-50 + |phi| 2^-22           fp32-angle: float theta, float p and
//                                                        their product round once each (3 u_32)
//   amplitude      d_A   = (|ln a_xpos| + 4) 2^-52       attention factor and zeta^(n/s) in double
//   sin/cos        2^-51                                 sin_cos() in angle.hpp, 2^-52 each (0.69 x 2^-52 the
//                                                        worst over 2e6 angles up to 2^31 rad)
//   cos/sin cache  2 u_c, plus 2 u_s under lowp-cache    A cos, A sin rounded to their format
//   arithmetic     2 u_c                                 a c - b s: |a c| + |b s| <= A r
//   second order   u_c
//   final store    u_s
//
//   B(pair element) = A r (d_phi + d_A + 2^-51 + 5 u_c + u_s [+ 2 u_s])
//                     + r (3 eta_64 + eta_c [+ eta_s]) + eta_c + eta_s
//
// The error of (c, s) as a vector, e, moves each output by at most r |e| (Cauchy-Schwarz),
// which is why every term is a multiple of A r. The eta terms cover roundings that underflow:
// the amplitude chain (exp, times the attention factor, times cos) rounds three times in
// double (eta_64 = 2^-1074) and once more into the compute format, each by at most half a
// spacing on each of c and s; then the products, and the final store.
// A sinusoid entry is a rotation of (0, 1): B = d_phi + 2^-52 + u_c + u_s + eta_c + eta_s.
// An ALiBi bias b: |b| (2^-51 + u_c + u_s) + eta_c + eta_s, or |b| (4 u_32 + u_s) + ... under
// fp32-angle (float slope, float distance, float product).
//
// Where A max(r, 1) (or zeta^(n/s) max(r, 1), which the kernel forms first) or |b| comes within 2^-6 of the storage format's largest value, the result
// (or cos/sin in the cache) may overflow; the kernels make no claim there and B is +inf.
// Pass-through dims, gathers, T5 and Shaw indices and masked biases must be identical: B = 0.
#include <algorithm>
#include <cmath>
#include <span>
#include <vector>

#include "precision/format_constants.hpp"
#include "backends/implementation.hpp"
#include "reference/reference.hpp"

namespace peconform {

// The bound of one element of a rotated pair, B = A r relative + r per_norm + absolute, in the
// terms above. It holds while claim_scale max(r, 1) stays 2^-6 inside `largest`, and is +inf
// past it. Written once for any scalar: the properties evaluate it in binary128, the
// campaign's screening verifier in double (harness/verifier.cpp, which rounds it upward).
template <class Real> struct RotaryBoundTerms {
  Real relative, per_norm, absolute, largest;
};

// `angle` is |p theta| before the sign; `log_xpos` is ln of the xPos factor (0 for others).
template <class Real> RotaryBoundTerms<Real> rotary_bound_terms(const Spec& spec, const Real& angle, const Real& log_xpos) {
  using std::abs, std::ldexp;
  const FormatConstants compute = format_constants(compute_dtype(spec.dtype));
  const FormatConstants storage = format_constants(spec.dtype);
  const bool lowp = spec.precision == PrecisionClass::lowp_cache;
  const int growth = spec.precision == PrecisionClass::fp32_angle ? -22 : -100;
  const Real angle_error = ldexp(Real(1), -50) + abs(angle) * ldexp(Real(1), growth);
  const Real amplitude_error = (abs(log_xpos) + 4) * ldexp(Real(1), -52);
  const Real u_c(compute.unit), u_s(storage.unit), eta_c(compute.subnormal_spacing), eta_s(storage.subnormal_spacing);
  return {angle_error + amplitude_error + ldexp(Real(1), -51) + 5 * u_c + u_s + (lowp ? 2 * u_s : Real(0)),
          3 * ldexp(Real(1), -1074) + eta_c + (lowp ? eta_s : Real(0)), eta_c + eta_s, Real(storage.largest)};
}

// Whether a magnitude stays 2^-6 inside the storage range, where the kernels claim their bound.
template <class Real> bool within_claim(const Real& magnitude, const Real& largest) {
  return magnitude * (1 + std::ldexp(1.0, -6)) < largest;
}

// A sinusoid table entry's bound (a rotation of (0, 1)) at angle `angle`.
template <class Real> Real sinusoid_bound(const Spec& spec, const Real& angle) {
  using std::abs, std::ldexp;
  const FormatConstants compute = format_constants(compute_dtype(spec.dtype));
  const FormatConstants storage = format_constants(spec.dtype);
  const int growth = spec.precision == PrecisionClass::fp32_angle ? -22 : -100;
  return ldexp(Real(1), -50) + abs(angle) * ldexp(Real(1), growth) + ldexp(Real(1), -52) + Real(compute.unit) +
         Real(storage.unit) + Real(compute.subnormal_spacing) + Real(storage.subnormal_spacing);
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

std::vector<Wide> claimed_error_bounds(const Reference<FastReal>& reference, const Point& point, std::span<const Wide> input);

}  // namespace peconform
