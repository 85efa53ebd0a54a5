#pragma once
// The bound B the CPU kernels claim for each output element, per precision class (DESIGN.md
// section 2). With u_c, u_s the unit roundoffs of the compute and storage formats, eta_c,
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
#include <span>
#include <vector>

#include "backends/implementation.hpp"
#include "reference/reference.hpp"

namespace peconform::cpu {

std::vector<Wide> kernel_error_bounds(const Reference<FastReal>& reference, const Point& point, std::span<const Wide> input);

}  // namespace peconform::cpu
