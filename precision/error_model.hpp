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
//                  + exp(|n/s| e_z) - 1 + 2u (keys 4u)    fp32-angle xPos: zeta in float32 (e_z, below),
//                                                        raised by float32 pow (rotary_bound_terms)
//   sin/cos        2^-51                                 2^-52 each (precision/measured_constants.md)
//   cos/sin cache  2 u_c, plus 2 u_s under lowp-cache    A cos, A sin rounded to their format
//                  or cache=storage
//   products       u_c                                   a c and b s: |a c| + |b s| <= A r
//   second order   u_c                                   (math=storage: rotary_bound_terms)
//   final rounding u_f |y_e|                             the sum a c - b s rounds in the compute
//                                                        format, then the store into the storage
//                                                        format: u_f = u_s, plus u_c where the two differ
//
//   P = A r (d_phi + d_A + 2^-51 + 4 u_c [+ 2 u_s]) + r (3 eta_64 + eta_c [+ eta_s]) + eta_c [x an
//       xPos key's factor, which a kernel may multiply in after the products]
//   B(pair element e) = P (1 + u_f) + u_f |y_e| + eta_s
// (math=storage, the products rounded in the storage dtype, changes P: rotary_bound_terms.)
//
// The error of (c, s) as a vector, e, moves each output by at most r |e| (Cauchy-Schwarz),
// which is why those terms are multiples of A r; the final rounding is relative to the element
// itself, so an element much smaller than its pair still exposes an error in cos/sin. The eta
// terms cover roundings that underflow: the amplitude chain (exp, times the attention factor,
// times cos) rounds three times in double (eta_64 = 2^-1074) and once more into the compute
// format, each by at most half a spacing on each of c and s; then the products, and the store.
// A sinusoid entry y = sin or cos: B = d_phi + 2^-52 + u_f |y| + eta_c + eta_s; under
// fp64-angle (float64 tables) d_phi = 2^-50 + |phi| eps_64 (float64_table_theta_error) and the
// sine 2^-50 (NumPy's).
// A table scaled by amp A != 1 (sinusoidal, learned): the kernel holds its entry v in the
// compute format (error E: the sinusoid's before the store, 0 for a learned entry), multiplies
// by A rounded to the compute format through double (e_A, exact where A is representable), rounds
// the product there and stores it: B = A E + e_A A (|v| + E) + u_c P + eta_c [+ u_s (P (1 + u_c)
// + eta_c) + eta_s where the formats differ], P = A (1 + e_A)(|v| + E) (amplified_entry_bound).
// An ALiBi bias b: |b| (2^-51 + u_c + u_s) + eta_c + eta_s, or under fp32-angle |b| times the
// float32 slope recipe's error, the distance's and the product's roundings, plus u_s
// (alibi_bound_terms).
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
#include <bit>
#include <cmath>
#include <limits>
#include <span>
#include <type_traits>
#include <vector>

#include <boost/math/constants/constants.hpp>

#include "precision/float32_representable.hpp"
#include "precision/format_constants.hpp"
#include "backends/implementation.hpp"
#include "reference/reference.hpp"

namespace peconform {

// A sinusoid table's theta_k = base^(-multiple/divisor) = exp(multiple * (-ln(base)/divisor)):
// multiple 2k over 2 floor(d/2) (Vaswani, Transformer-XL; d itself for DistilBERT's odd
// interleaved table), or k over max(floor(d/2) - 1, 1) under freq=geometric (fairseq,
// tensor2tensor).
struct TableExponent {
  int multiple, divisor;
};
TableExponent table_exponent(const Spec& spec, int index);

// llama3 under hf and meta: the relative error of the float32 frequency that transformers'
// _compute_llama3_parameters (and Meta's apply_scaling, the same float32 operations) forms from
// an inv_freq within the factor `inv` of theta = base^(-2k/n), against the plan's exact frequency
// (reference/frequency_plans.hpp). Each float32 value is followed by a bound on its error, one
// rounding u per operation, a Python number cast to float32 charged where it rounds (2 pi, the
// band edges L/low and L/high, low, high - low, the factor):
//   wl = (1 / inv_f) * f32(2 pi)                    wavelength, relative e_wl
//   band: wl > f32(L/low) divides by the factor, wl < f32(L/high) keeps, else smooths:
//   s = ((1 / wl) * f32(L) - f32(low)) / f32(high - low),  smoothed = ((1 - s) inv) / f + s inv
// (`number / tensor` is torch's tensor.reciprocal() * number). A band whose edge lies within the
// wavelength's error may be either side: every band that can be taken is bounded, by its own
// float32 error plus its exact value's distance from the plan's, and the largest counts. llama3 is
// continuous at both edges, so that distance stays a few units of u.
template <class Real> Real llama3_theta_error(const Spec& spec, int index, const Real& inv) {
  using std::abs, std::ldexp, std::max, std::pow;
  const FrequencyPlan& plan = spec.scaling;
  const Real u = ldexp(Real(1), -24);
  const Real cast = (1 + u) * (1 + ldexp(Real(1), -53)) - 1;  // a decimal through a Python double to float32
  const auto cast_of = [&](const Decimal& value) { return representable_in_float32(value) ? Real(0) : cast; };
  const double high_minus_low = plan.high.to_double() - plan.low.to_double();
  const bool difference_exact = representable_in_float32(plan.high) && representable_in_float32(plan.low) &&
                                static_cast<double>(static_cast<float>(high_minus_low)) == high_minus_low;
  const Real theta = pow(Real(spec.base.to_double()), -Real(2 * index) / Real(spec.rotary_dims()));
  const Real orig(static_cast<double>(plan.orig)), factor(plan.factor.to_double());
  const Real low(plan.low.to_double()), high(plan.high.to_double());
  const Real e_inv = inv - 1;
  const Real factor_in = representable_in_float32(plan.factor) ? Real(1) : 1 / (1 - u);  // dividing by a rounded factor

  const Real wl = boost::math::constants::two_pi<Real>() / theta;
  const Real e_wl = (1 + u) * (1 + u) * (1 + cast) / (1 - e_inv) - 1;
  const Real low_edge = orig / low, high_edge = orig / high;
  const bool can_divide = wl * (1 + e_wl) > low_edge * (1 - cast);
  const bool can_keep = wl * (1 - e_wl) < high_edge * (1 + cast);
  const bool can_smooth = !(wl * (1 + e_wl) < high_edge * (1 - cast)) && !(wl * (1 - e_wl) > low_edge * (1 + cast));

  const Real s = (orig / wl - low) / (high - low);
  const Real divided = theta / factor, smoothed = theta * ((1 - s) / factor + s);
  const Real exact = wl > low_edge ? divided : wl < high_edge ? theta : smoothed;

  // The smoothed band, as an absolute error: s's, then the blend's four roundings and the sum's.
  const Real e_orig = orig < Real(16777216) ? Real(0) : u;
  const Real q = orig / wl;
  const Real e_q = (1 + u) * (1 + u) * (1 + e_orig) / (1 - e_wl) - 1;
  const Real t_error = (q * e_q + low * cast_of(plan.low)) * (1 + u) + u * abs(q - low);
  const Real e_difference = difference_exact ? Real(0) : cast;
  const Real s_error = t_error / (high - low) * (1 + u) / (1 - e_difference) + abs(s) * ((1 + u) / (1 - e_difference) - 1);
  const Real a = 1 - s, a_error = s_error + u * (abs(a) + s_error);
  const Real scaled = (1 + e_inv) * (1 + u) * (1 + u) * factor_in, product = (1 + e_inv) * (1 + u);
  const Real blend_error = (theta / factor * (a_error * scaled + abs(a) * (scaled - 1)) + theta * (s_error * product + abs(s) * (product - 1))) *
                               (1 + u) +
                           u * abs(smoothed);

  Real worst = 0;
  if (can_keep) worst = max(worst, abs(theta - exact) + e_inv * theta);
  if (can_divide) worst = max(worst, abs(divided - exact) + ((1 + e_inv) * (1 + u) * factor_in - 1) * divided);
  if (can_smooth) worst = max(worst, abs(smoothed - exact) + blend_error);
  return worst / exact;
}

// YaRN's float32 blend of the extrapolated value X (theta_k, or ggml's angle) and the
// interpolated one X/factor, against the plan's exact X (interpolated r + X (1 - r)): the
// relative error of the result when X arrives within `e_extrapolated` and X/factor within
// `e_interpolated` (relative, before the blend's roundings). In float32: the ramp
// r = clamp((k - low)/(high - low), 0, 1) from ends cast to float32 (exact where they are
// integers: floored and ceiled), ext = 1 - r and the blend interpolated (1 - ext) + extrapolated
// ext, each operation one rounding. The ends are formed by a recipe that can be off its exact
// correction dimension by `end_spread(value)`: where an end lies that close to an integer, floor
// or ceil may go either way, every end the recipe can take is bounded, and the largest counts.
// A ramp value clamped whatever its rounding is exact, and so is 1 - r there. +inf where the
// spread is not finite. `ggml_ramp`: the recipe divides by max(0.001, high - low) (rope_yarn_ramp)
// rather than moving high 0.001 past an equal low, which differs where the ends cross.
template <class Real, class EndSpread>
Real yarn_blend_error(const Spec& spec, int index, const Real& e_extrapolated, const Real& e_interpolated, EndSpread end_spread,
                      bool ggml_ramp = false) {
  using std::abs, std::ceil, std::floor, std::ldexp, std::log, std::max, std::min, std::pow;
  const FrequencyPlan& plan = spec.scaling;
  const int dims = spec.rotary_dims();
  const Real u = ldexp(Real(1), -24);
  const Real cast = (1 + u) * (1 + ldexp(Real(1), -53)) - 1;
  const Real base(spec.base.to_double()), factor(plan.factor.to_double()), orig(static_cast<double>(plan.orig));
  const Real theta = pow(base, -Real(2 * index) / Real(dims)), interpolated = theta / factor;
  const auto correction = [&](const Decimal& beta) {
    return Real(dims) * log(orig / (Real(beta.to_double()) * boost::math::constants::two_pi<Real>())) / (2 * log(base));
  };
  const Real low_value = correction(plan.beta_fast), high_value = correction(plan.beta_slow);
  // The ends the recipe may take, and the ones the plan takes (the first of each).
  const auto ends_of = [&](const Real& value, bool up) {
    const Real spread = end_spread(value);
    std::vector<Real> ends;
    for (const Real& v : {value, value - spread, value + spread}) {
      const Real end = plan.truncate ? (up ? ceil(v) : floor(v)) : v;
      if (std::find(ends.begin(), ends.end(), end) == ends.end()) ends.push_back(end);
    }
    return ends;
  };
  if (!(abs(end_spread(low_value)) < 1 && abs(end_spread(high_value)) < 1)) return std::numeric_limits<Real>::infinity();
  const auto share = [&](Real low, Real high, Real& unclamped) {  // the ramp r of pair `index`
    low = max(low, Real(0));
    high = min(high, Real(dims - 1));
    if (ggml_ramp ? high - low < Real(0.001) : low == high) high = low + Real(0.001);
    unclamped = (Real(index) - low) / (high - low);
    return std::pair{low, high};
  };
  const Real extrapolated_rounding = (1 + e_extrapolated) * (1 + u), interpolated_rounding = (1 + e_interpolated) * (1 + u);

  Real plan_unclamped = 0;
  share(ends_of(low_value, false).front(), ends_of(high_value, true).front(), plan_unclamped);
  const Real plan_ramp = std::clamp(plan_unclamped, Real(0), Real(1));
  const Real exact = interpolated * plan_ramp + theta * (1 - plan_ramp);
  Real worst = 0;
  for (const Real& low_end : ends_of(low_value, false))
    for (const Real& high_end : ends_of(high_value, true)) {
      Real unclamped = 0;
      const auto [low, high] = share(low_end, high_end, unclamped);
      const Real ramp = std::clamp(unclamped, Real(0), Real(1));
      const Real value = interpolated * ramp + theta * (1 - ramp);
      // r in float32: k - f32(low), over f32(high - low), each cast exact where it holds an integer.
      const bool integral = plan.truncate && floor(low) == low && floor(high) == high;
      const Real e_low = integral ? Real(0) : cast, e_width = integral ? Real(0) : cast;
      const Real numerator_error = abs(low) * e_low * (1 + u) + u * abs(Real(index) - low);
      Real ramp_error = numerator_error / (high - low) * (1 + u) / (1 - e_width) + abs(unclamped) * ((1 + u) / (1 - e_width) - 1);
      const bool clamped = unclamped + ramp_error < 0 || unclamped - ramp_error > 1;
      if (clamped) ramp_error = 0;
      const Real extrapolation_error = clamped ? Real(0) : ramp_error + u * (abs(1 - ramp) + ramp_error);
      const Real share_error = clamped ? Real(0) : extrapolation_error + u * (abs(ramp) + extrapolation_error);
      const Real blend_error = interpolated * (share_error * interpolated_rounding + ramp * (interpolated_rounding - 1)) +
                               theta * (extrapolation_error * extrapolated_rounding + (1 - ramp) * (extrapolated_rounding - 1));
      worst = max(worst, abs(value - exact) + blend_error + u * (value + blend_error));
    }
  // 0.001 as a double where the plan's is a decimal: 2^-60 of theta covers the difference.
  return worst / exact + ldexp(Real(1), -60);
}

// yarn under hf and meta: the relative error of the float32 frequency _compute_yarn_parameters
// forms from pos = powf(base, 2k/n), within the factor `inv` of 1/theta once inverted (inv_freq's
// factor): the extrapolated 1/pos within inv, the interpolated 1/(factor pos) one rounding more
// (and the factor's cast), blended as yarn_blend_error says. The ends are formed in Python floats
// (floored and ceiled unless truncate=false): within 2^-40 relative of the exact ends, far above
// the double computation's own error.
template <class Real> Real yarn_theta_error(const Spec& spec, int index, const Real& inv) {
  using std::abs, std::ldexp;
  const Real u = ldexp(Real(1), -24);
  const Real factor_in = representable_in_float32(spec.scaling.factor) ? Real(1) : 1 / (1 - u);
  const Real e_interpolated = (index == 0 ? Real(1) : inv) * (1 + u) * factor_in - 1;
  return yarn_blend_error<Real>(spec, index, inv - 1, e_interpolated, [](const Real& value) { return ldexp(Real(1), -40) * abs(value); });
}

// yarn under ggml: the relative error of rope_yarn's float32 angle, whose extrapolated angle is
// the running product (within `running` of p theta_k, the position's rounding included) and whose
// interpolated angle is fl(freq_scale x), freq_scale = fl(1.0f / (float)factor), blended as
// yarn_blend_error says with no rounding after it. The ends are ggml_rope_yarn_corr_dims' float32
// c = n logf(L0 / (beta 2 (float)pi)) / (2 logf(base)), floored and ceiled: the argument x of the
// first logf rounds m times (pi's cast, the product, the division, beta's and L0's casts where
// they round), so |ln x_f - ln x| <= m u/(1 - u); each logf is charged 2u relative; n ln x_f and
// the quotient round once each; |ln b_f - ln b| <= u/(1 - u) where the base rounds. The spread
// is then (n e_num (1 + u) + u |N| + |c| 2 e_den) / (|D| - 2 e_den), plus u (|c| + that), with
// N = n ln x, D = 2 ln b, e_num and e_den the two logarithms' absolute errors.
template <class Real> Real ggml_yarn_angle_error(const Spec& spec, int index, const Real& running) {
  using std::abs, std::ldexp, std::log;
  const FrequencyPlan& plan = spec.scaling;
  const Real u = ldexp(Real(1), -24);
  const Real n(spec.rotary_dims());
  const Real factor_in = representable_in_float32(plan.factor) ? Real(1) : 1 / (1 - u);
  const Real e_interpolated = running * factor_in * (1 + u) * (1 + u) - 1;
  const Real log_base = abs(log(Real(spec.base.to_double())));
  const Real base_log_rounding = representable_in_float32(spec.base) ? Real(0) : u / (1 - u);
  const Real e_denominator = base_log_rounding + 2 * u * (log_base + base_log_rounding);
  const auto spread = [&](const Real& value) {
    const Real log_x = value * 2 * log_base / n;  // ln(L0 / (2 pi beta)), recovered from c
    const bool rounds_orig = plan.orig >= (std::int64_t{1} << 24);
    // Which beta this end is: the spread is taken for either, so charge the one that rounds.
    const bool rounds_beta = !representable_in_float32(plan.beta_fast) || !representable_in_float32(plan.beta_slow);
    const Real m = 3 + (rounds_beta ? 1 : 0) + (rounds_orig ? 1 : 0);
    const Real x_log_error = m * u / (1 - u);
    const Real e_numerator = x_log_error + 2 * u * (abs(log_x) + x_log_error);
    const Real denominator = 2 * log_base - 2 * e_denominator;
    if (!(denominator > 0)) return std::numeric_limits<Real>::infinity();
    const Real q = (n * e_numerator * (1 + u) + u * n * abs(log_x) + abs(value) * 2 * e_denominator) / denominator;
    return q + u * (abs(value) + q);
  };
  return yarn_blend_error<Real>(spec, index, running - 1, e_interpolated, spread, /*ggml_ramp=*/true);
}

// Dynamic NTK's float32 base under hf (backends/cpu/theta_recipe.cpp dynamic_base): b' =
// base y^e, y = factor L / orig - (factor - 1) >= 1, e = d/(d - 2), for any length L (an int64):
// returns |ln b'|'s largest value (L = 2^63) and |ln(b'_f / b')|'s largest. Past orig: factor L
// rounds m times (factor's and L's casts, the product), the division once more (and orig's
// cast), so x = factor L / orig within r = (1 + u)^m - 1; factor - 1 is a double cast to
// float32, within u |f - 1| + 2^-52 f; the subtraction rounds: y within
// eta = (r max(f, 1) + u |f - 1| + 2^-52 f)(1 + u) + u relative (x / y <= max(f, 1), y >= 1);
// the double pow rounds to float32 (u, and 2^-52 for the double's own), the base's cast and
// the product u each. At orig the Python floats give base (1 + e f 2^-50) at most, cast once.
template <class Real> std::pair<Real, Real> dynamic_base_error(const Spec& spec) {
  using std::abs, std::ldexp, std::log, std::max, std::pow;
  const FrequencyPlan& plan = spec.scaling;
  const Real u = ldexp(Real(1), -24), u_in = u / (1 - u);
  const Real factor(plan.factor.to_double()), orig(static_cast<double>(plan.orig));
  const Real e = Real(spec.rotary_dims()) / Real(spec.rotary_dims() - 2);
  const Real stretch = max(factor, Real(1));
  const Real largest_log_base = abs(log(Real(spec.base.to_double()))) + e * log(1 + stretch * ldexp(Real(1), 63) / orig);
  const int roundings = 3 + (representable_in_float32(plan.factor) ? 0 : 1) + (plan.orig >= (std::int64_t{1} << 24) ? 1 : 0);
  const Real r = pow(1 + u, roundings) - 1;
  const Real eta = (r * stretch + u * abs(factor - 1) + ldexp(Real(1), -52) * factor) * (1 + u) + u;
  const Real base_cast = representable_in_float32(spec.base) ? Real(0) : u_in;
  const Real past_orig = e * -log(1 - eta) + 2 * u_in + ldexp(Real(1), -51) + base_cast;
  const Real at_orig = u_in + e * factor * ldexp(Real(1), -50);
  return {largest_log_base, max(past_orig, at_orig)};
}

// The relative error of a float32 angle as the spec's `theta` recipe forms it, for frequency
// `index` (k in theta_k = base^(-2k/n), n = d_rot, or d/2 for each axis of rope2d; linear
// divides by the factor), derived from the operations the recipe performs. A rounding to
// binary32 is a factor (1 + d) with |d| <= u = 2^-24; a value rounded on the way in and then
// divided by is a factor 1/(1 - u); powf is charged one ulp, 2u (glibc's is within 0.82 ulp,
// SLEEF's u10 and CUDA's within 1); an exponent e_f = e (1 + d_e) and a base b_f = b (1 + d_b)
// move b^e by the factor exp(psi), psi = e (d_e (|ln b| + l_b) + l_b) with l_b = |ln(1 + d_b)|
// <= u/(1 - u). A rounding that cannot happen is not charged: a base or factor float32 holds
// (representable_in_float32), an exponent 2k/n that float32 holds, pow(b, 0) = 1, the
// reciprocal of 1, a product by theta = 1. The position p is charged u (fl(p) rounds from 2^24),
// or under position=fp32-sum 2u + u^2: fl(fl(a) + fl(b)) with a + b = p, a, b >= 0, is off by
// u a + u b + u (fl(a) + fl(b)) <= u p + u (1 + u) p (torchtune's vision RoPE: a float32 patch
// index plus 1).
//   exact  theta correctly rounded once (not theta_0 = 1 without a plan), then fl(fl(p) theta_f).
//   hf     Hugging Face's inv_freq = 1.0 / base ** (arange(0, n, 2).float() / n) in float32
//   meta   (modeling_rope_utils _compute_default_rope_parameters) and Meta's llama
//          precompute_freqs_cis, the same operations: 2k/n rounds, powf, the reciprocal; linear
//          divides by the factor cast to float32 (inv_freq /= factor), llama3 blends as
//          llama3_theta_error says, yarn as yarn_theta_error says, longrope multiplies the
//          power by its float32 factor before the reciprocal, dynamic forms its base as
//          dynamic_base_error says; then fl(fl(p) theta_f).
//   ggml   ggml_rope_cache_init: theta_scale = powf(base, -2.0f/n) (e = 2/n), theta starts at
//          fl(p) and is multiplied by theta_scale once per frequency, rounding each time: k
//          products; custom(factors=...) divides by the float32 factor (one rounding, and the
//          factor's cast); linear multiplies by freq_scale = 1.0f / (float)factor, a reciprocal
//          of a rounded factor, and rounds the product; yarn blends as ggml_yarn_angle_error says.
//   mlx    mlx's fast.rope without freqs, as its CPU build forms it (the fallback in mlx/fast.cpp):
//          exp(arange(0, -h, -1) * array(logf(base) / h)) with h = n/2, all float32. logf is
//          charged one ulp; the division by h rounds unless h is a power of two, the product by
//          -k unless k is 0 or a power of two. mlx's exp (mlx/backend/cpu/simd/math.h) takes
//          y = fl(x * 1.442695f), a constant log2(e) (1 + lambda) with lambda computed here,
//          n = floor(y + 0.5) in double, and 2^f for f = y - n in [-1/2, 1/2] by a polynomial
//          of fused multiply-adds, measured within 1.35u of 2^f over every float32 f there and
//          charged one ulp as expf is; 2^n times it is exact. theta_0 = exp(0) = 1 exactly.
//   exp-log  sinusoid tables as the PyTorch tutorial, fairseq and tensor2tensor build them:
//          theta_k = exp(m_k c) with c = -ln(base)/D computed in double and cast to float32
//          (table_exponent gives m_k and D), the product m_k c_f rounded (exact where m_k is 0
//          or a power of two), expf charged one ulp (exp(0) = 1 exactly); then fl(fl(p) theta_f).
//          c_f = c (1 + g): ln of the double base within 2^-52 relative and 2^-53 absolute (the
//          decimal's rounding to double), the division 2^-53, the cast u; the exponent
//          x = m_k c is then off by |x| ((1 + g)(1 + d_m) - 1), which moves theta by exp of that.
// How far powf's operands move b^e, as the factor exp(|e_f ln b_f - e ln b|): the exponent
// e = numerator/divisor formed in float32 by one division (exact where float32 holds it), the
// base off by log_base_rounding in ln (|ln b| = log_base).
template <class Real> Real powf_operands_error(int numerator, int divisor, const Real& log_base, const Real& log_base_rounding) {
  using std::exp, std::ldexp;
  const Real u = ldexp(Real(1), -24);
  const float rounded = static_cast<float>(numerator) / static_cast<float>(divisor);
  const bool exponent_exact = static_cast<double>(rounded) * divisor == numerator;  // exact in double: 24 bits times divisor < 2^29
  const Real e = Real(numerator) / Real(divisor);
  return exp(e * ((exponent_exact ? Real(0) : u) * (log_base + log_base_rounding) + log_base_rounding));
}

// Sinusoid and xl tables under hf: theta_k = 1 / powf(b_f, fl(m_k / D)) (table_exponent gives m_k
// and D), then fl(fl(p) theta_f); timm's build_sincos2d_pos_embed forms each axis so. The bound
// also holds tables that take powf of a float32 1/base with no reciprocal (keras-hub's
// SinePositionEncoding) or powf(b_f, -fl(m_k / D)) (x-transformers' ScaledSinusoidalEmbedding):
// the base's rounding is charged whatever the base, at u + 2^-52 (a double 1/base, itself off by
// 2^-53 and by the decimal's rounding to double, cast to float32), the exponent's division u
// where float32 does not hold m_k/D, powf one ulp, the reciprocal u. theta_0 = b^0 = 1 exactly.
template <class Real> Real pow_table_theta_error(const Spec& spec, int index) {
  using std::abs, std::exp, std::ldexp, std::log;
  const Real u = ldexp(Real(1), -24);
  const Real position = 1 + u;
  const TableExponent exponent = table_exponent(spec, index);
  if (exponent.multiple == 0) return position - 1;
  const Real log_base = abs(log(Real(spec.base.to_double())));
  const Real base_rounding = (u + ldexp(Real(1), -52)) / (1 - u);
  const Real power = powf_operands_error(exponent.multiple, exponent.divisor, log_base, base_rounding) / (1 - 2 * u);
  return position * power * (1 + u) * (1 + u) - 1;
}

// Sinusoid and xl tables under fp64-angle, as NumPy builds them (transformers' DistilBERT
// create_sinusoidal_embeddings and Marian's create_weight: pos / np.power(base, 2 (j // 2) / d),
// then np.sin and np.cos, cast to float32): theta_k's relative error in float64, u = 2^-53. The
// power form b^(-e), e = m_k / D: the exponent's division (relative error e ln(b) u in theta),
// the base's conversion from its decimal (e u), pow (one ulp, 2u), the division or reciprocal
// (u). It also holds the exp-log form exp(m_k (-ln(b) / D)): ln(b) one ulp, the division and the
// product (4 e ln(b) u between them), exp one ulp. The angle's product or division rounds once
// more (u). theta_0 = b^0 = 1: the angle p is exact.
template <class Real> Real float64_table_theta_error(const Spec& spec, int index) {
  using std::abs, std::exp, std::ldexp, std::log;
  const TableExponent exponent = table_exponent(spec, index);
  if (exponent.multiple == 0) return Real(0);
  const Real u = ldexp(Real(1), -53);
  const Real e = Real(exponent.multiple) / Real(exponent.divisor);
  const Real x = e * abs(log(Real(spec.base.to_double())));
  return exp(4 * x * u + e * u) * (1 + 2 * u) * (1 + u) * (1 + u) - 1;
}

// Sinusoid tables under theta=mlx, as mlx.nn.SinusoidalPositionalEncoding(dims, min_freq=1/base,
// max_freq=1) forms them (mlx/nn/layers/positional_encoding.py; freq=geometric, h = d/2 pairs):
//   one_zero = 1 - fl(k / (h - 1)), sigma = exp(fl(fl(one_zero * C_f) + L_f))
// with L = ln(min_freq) a Python float (min_freq the double nearest 1/base, ln within 2^-52),
// C = ln(max_freq) - L = -L exactly, each cast to float32 (C_f = -L_f), and mlx's exp charged one
// ulp (2u) as under the rotary mlx recipe. The exponent's error is absolute, not relative to it:
// with t = k / (h - 1) and Lambda = ln(base), |one_zero - (1 - t)| <= u (1 + u) (the quotient's
// rounding and, below 1/2, the difference's), |C_f - Lambda| <= dC = Lambda (u + 2^-52)(1 + u) +
// 2^-53 (1 + u) (min_freq's rounding moves ln by 2^-53), and the exponent -t Lambda is missed by
//   A = (one_zero C_f) u + u (1 + u) C_f + t dC   before its sum rounds,  then (1 + u) A + u t Lambda.
// sigma is off by the factor exp(that) (1 + 2u); the angle fl(fl(p) sigma_f) adds two roundings.
// sigma_0 = exp(fl(C_f + L_f)) = exp(0) = 1 exactly: the angle is fl(p).
template <class Real> Real mlx_table_theta_error(const Spec& spec, int index) {
  using std::abs, std::exp, std::ldexp, std::log;
  const Real u = ldexp(Real(1), -24);
  const Real position = 1 + u;
  const int pairs = spec.d / 2;
  if (index == 0 || pairs < 2) return position - 1;
  const Real t = Real(index) / Real(pairs - 1);
  const Real lambda = abs(log(Real(spec.base.to_double())));
  const Real span_error = lambda * (u + ldexp(Real(1), -52)) * (1 + u) + ldexp(Real(1), -53) * (1 + u);
  const Real span = lambda + span_error;  // C_f at most
  const Real one_zero = 1 - t + u * (1 + u);
  const Real before_sum = one_zero * span * u + u * (1 + u) * span + t * span_error;
  const Real exponent_error = (1 + u) * before_sum + u * t * lambda;
  return position * exp(exponent_error) * (1 + 2 * u) * (1 + u) - 1;
}

template <class Real> Real theta_recipe_error(const Spec& spec, int index) {
  using std::abs, std::exp, std::ldexp, std::log, std::pow;
  const Real u = ldexp(Real(1), -24);
  const Real round = 1 + u;                       // one rounding that may happen
  const auto round_if = [&](bool rounds) { return rounds ? round : Real(1); };
  const bool linear = spec.scaling.kind == PlanKind::linear || spec.scaling.kind == PlanKind::proportional;
  const Real factor_in = linear && !representable_in_float32(spec.scaling.factor) ? 1 / (1 - u) : Real(1);
  const bool base_exact = representable_in_float32(spec.base);
  // Dynamic NTK under hf forms its own float32 base, whatever the length (dynamic_base_error).
  const bool dynamic = spec.scaling.kind == PlanKind::dynamic && spec.theta == ThetaRecipe::hf;
  const std::pair<Real, Real> dynamic_base = dynamic ? dynamic_base_error<Real>(spec) : std::pair<Real, Real>{};
  const Real log_base = dynamic ? dynamic_base.first : abs(log(Real(spec.base.to_double())));
  const Real log_base_rounding = dynamic ? dynamic_base.second : base_exact ? Real(0) : u / (1 - u);
  const int n = spec.family == Family::rope2d ? spec.d / 2 : spec.rotary_dims();
  // For an exponent numerator/n.
  const auto exponent_and_base = [&](int numerator) { return powf_operands_error(numerator, n, log_base, log_base_rounding); };
  const Real position = spec.position == PositionRecipe::fp32_sum ? round * round : round;
  // theta_0 = base^0 = 1 only without a plan: linear divides it, and the plans only the exact
  // recipe takes (custom, yarn, dynamic, ...) may move it.
  const bool unit_theta = index == 0 && spec.scaling.kind == PlanKind::none;
  switch (spec.theta) {
    case ThetaRecipe::exact: return position * round_if(!unit_theta) * round_if(!unit_theta) - 1;
    case ThetaRecipe::hf:
    case ThetaRecipe::meta: {
      if (spec.family == Family::sinusoidal || spec.family == Family::xl) return pow_table_theta_error<Real>(spec, index);
      // theta_0 = 1 / powf(b, 0) = 1 exactly; the others: powf, then the reciprocal.
      const Real inv_freq = index == 0 ? Real(1) : round * exponent_and_base(2 * index) / (1 - 2 * u);
      if (spec.scaling.kind == PlanKind::llama3) {
        // theta_0 = 1 kept where no other band can be taken: the angle fl(p) * 1 is exact.
        const Real blended = llama3_theta_error<Real>(spec, index, inv_freq);
        return position * (1 + blended) * round_if(blended != 0) - 1;
      }
      if (spec.scaling.kind == PlanKind::yarn) return position * (1 + yarn_theta_error<Real>(spec, index, inv_freq)) * round - 1;
      if (spec.scaling.kind == PlanKind::longrope) {
        // _compute_longrope_parameters: 1.0 / (ext_factors * base ** (...)), the factors a float32
        // tensor: the factor's cast (either list's, whichever the length picks), the product (exact
        // at k = 0, where the power is 1), the reciprocal (in inv_freq's factor for k > 0).
        const auto k = static_cast<std::size_t>(index);
        const bool factors_exact = representable_in_float32(spec.scaling.short_factors.at(k)) &&
                                   representable_in_float32(spec.scaling.long_factors.at(k));
        const Real extension = (factors_exact ? Real(1) : 1 / (1 - u)) * round;
        return position * inv_freq * extension * round - 1;
      }
      const Real scaled = linear ? inv_freq * factor_in * round : inv_freq;
      return position * scaled * round_if(!unit_theta) - 1;
    }
    case ThetaRecipe::ggml: {
      const Real scale = (1 + 2 * u) * exponent_and_base(2);
      const Real running = position * pow(round * scale, index);
      if (spec.scaling.kind == PlanKind::yarn) return ggml_yarn_angle_error<Real>(spec, index, running);
      // custom(factors=...): theta / ff, the factor's cast (where it rounds) and the division.
      const auto k = static_cast<std::size_t>(index);
      const Real divided = spec.scaling.factors.empty() ? Real(1)
                           : (representable_in_float32(spec.scaling.factors.at(k)) ? Real(1) : 1 / (1 - u)) * round;
      const Real scaled = linear ? factor_in * round * round : Real(1);
      return running * divided * scaled - 1;
    }
    case ThetaRecipe::mlx: {
      if (spec.family == Family::sinusoidal) return mlx_table_theta_error<Real>(spec, index);
      if (index == 0) return position - 1;
      const int half = n / 2;
      const Real step = Real(index) / Real(half);  // x = -step ln(base)
      const Real formed = (1 + 2 * u) * round_if(!std::has_single_bit(static_cast<unsigned>(half))) *
                          round_if(!std::has_single_bit(static_cast<unsigned>(index)));
      const Real x = step * log_base;
      const Real x_error = x * (formed - 1) + step * log_base_rounding * formed;
      const Real log2e = Real(1.442695f) * log(Real(2));  // 1.442695f / log2(e)
      const Real scaled = (1 + abs(log2e - 1)) * round;
      const Real theta = exp(x_error * scaled + x * (scaled - 1)) * (1 + 2 * u);
      return position * theta * round - 1;
    }
    case ThetaRecipe::exp_log: {
      const TableExponent exponent = table_exponent(spec, index);
      // exp(0) = 1, and c = -ln(1) = 0 makes every theta 1: the angle is fl(p).
      if (exponent.multiple == 0 || log_base == 0) return position - 1;
      const Real double_ulp = ldexp(Real(1), -53);
      const Real step_error = round * (1 + 2 * double_ulp) * (1 + double_ulp) * (1 + 2 * double_ulp / log_base);
      const bool product_exact = std::has_single_bit(static_cast<unsigned>(exponent.multiple));
      const Real x = Real(exponent.multiple) * log_base / Real(exponent.divisor);
      const Real theta = exp(x * (step_error * round_if(!product_exact) - 1)) * (1 + 2 * u);
      return position * theta * round - 1;
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

// Each term rounded to nearest double, as the double screens take binary128's terms.
template <class Real> RotaryBoundTerms<double> rounded_to_double(const RotaryBoundTerms<Real>& terms) {
  return {static_cast<double>(terms.relative), static_cast<double>(terms.per_norm), static_cast<double>(terms.absolute),
          static_cast<double>(terms.final),    static_cast<double>(terms.store_absolute), static_cast<double>(terms.largest)};
}

// How the angle error grows with |phi| for frequency `index` (rotary_frequency_index): 2^-100
// for the classes that form p theta to 106 bits, the recipe's error under fp32-angle, float64's
// under fp64-angle. It does not depend on the position, so callers form it once per frequency.
template <class Real> Real angle_growth(const Spec& spec, int index) {
  using std::ldexp;
  switch (spec.precision) {
    case PrecisionClass::fp32_angle: return theta_recipe_error<Real>(spec, index);
    case PrecisionClass::fp64_angle: return float64_table_theta_error<Real>(spec, index);
    case PrecisionClass::exact_angle:
    case PrecisionClass::lowp_cache: break;
  }
  return ldexp(Real(1), -100);
}

// The error of a table entry's sine or cosine evaluation, absolute (|y| <= 1): 2^-52 for ours and
// glibc's (precision/measured_constants.md); under fp64-angle NumPy's float64 np.sin and np.cos,
// whose SIMD loops claim 4 ulps (numpy/numpy#23399), 2^-50.
template <class Real> Real table_sin_cos_error(const Spec& spec) {
  using std::ldexp;
  return ldexp(Real(1), spec.precision == PrecisionClass::fp64_angle ? -50 : -52);
}

// Whether cos and sin are multiplied by a float32 attention factor before anything else rounds
// them: transformers' `cos = emb.cos() * self.attention_scaling` on float32 tensors, under the hf
// and meta recipes for a plan whose factor is not 1 (LongRoPE's sqrt(1 + ln f / ln L0) and YaRN's
// mscale past factor 1, or the one the config gives). The factor's cast and the product: two float32
// roundings of each, whatever the storage dtype.
inline bool attention_in_float32(const Spec& spec) {
  const FrequencyPlan& plan = spec.scaling;
  if (spec.precision != PrecisionClass::fp32_angle || (spec.theta != ThetaRecipe::hf && spec.theta != ThetaRecipe::meta) ||
      (plan.kind != PlanKind::longrope && plan.kind != PlanKind::yarn))
    return false;
  if (plan.attention) return plan.attention->to_double() != 1.0;
  // YaRN's get_mscale(f, mscale) / get_mscale(f, mscale_all_dim) is exactly 1 where the two agree.
  if (plan.kind == PlanKind::yarn && plan.mscale && plan.mscale_all_dim && *plan.mscale == *plan.mscale_all_dim) return false;
  return plan.factor.to_double() > 1.0;
}

// The relative error of the attention factor a kernel multiplies into cos and sin, against the
// plan's exact one: 2^-23 where attention_in_float32 (the factor's cast and the product); under
// ggml's YaRN, rope_yarn's mscale = fl(1 + fl(0.1f logf(fl(1 / freq_scale)))) and the product
// cosf(theta) * mscale. There 1/freq_scale = fl(1/fl(1/f_f)) is within |ln| <= j u/(1 - u) of f (j
// roundings: two, and the factor's cast where it rounds); logf adds 2u relative; 0.1f (within u
// of 0.1) and the product 2 roundings; the sum u; the product by cos u. 0 where nothing rounds.
template <class Real> Real attention_error(const Spec& spec) {
  using std::abs, std::ldexp, std::log;
  const Real u = ldexp(Real(1), -24);
  if (attention_in_float32(spec)) return 2 * u;
  const FrequencyPlan& plan = spec.scaling;
  if (spec.precision != PrecisionClass::fp32_angle || spec.theta != ThetaRecipe::ggml || plan.kind != PlanKind::yarn ||
      plan.factor.to_double() == 1.0)
    return Real(0);
  const Real log_factor = log(Real(plan.factor.to_double()));
  const Real roundings = representable_in_float32(plan.factor) ? Real(2) : Real(3);
  const Real e_reciprocal = roundings * u / (1 - u);
  const Real e_log = e_reciprocal + 2 * u * (abs(log_factor) + e_reciprocal);
  const Real e_tenth = Real(0.1) * (e_log + (abs(log_factor) + e_log) * ((1 + u) * (1 + u) - 1));
  const Real mscale = 1 + Real(0.1) * log_factor;
  return (e_tenth + u * (mscale + e_tenth)) / mscale * (1 + u) + u;
}

// Under fp32-angle an xPos kernel forms its amplitude in float32, as x-transformers and
// rotary-embedding-torch do: zeta = (arange(0, d, 2) + 0.4 d) / (1.4 d), 0.4 d and 1.4 d Python
// doubles (2^-53 each) cast to float32 (u each), the sum and the quotient rounded (u each), so
// zeta_f = zeta (1 + e_z) with |e_z| < 4u + 2^-52 (first order; the rest is far below), charged
// as 5u; then zeta_f ** (n/s) through float32 pow, its exponent exact (n below 2^24, s a power of
// two or a float32 quotient the reference forms alike): zeta^(n/s) (1 + e_z)^(n/s), within
// exp(|n/s| 5u (1 + 5u)) - 1, and pow's own ulp, 2u; keys take scale ** -1, a second pow: 2u more.
// Otherwise d_A: the attention factor and zeta^(n/s) in double.
template <class Real> Real amplitude_error(const Spec& spec, const Real& log_xpos, const Real& xpos_power) {
  using std::abs, std::exp, std::ldexp;
  Real error = (abs(log_xpos) + 4) * ldexp(Real(1), -52);
  if (spec.family == Family::xpos && spec.precision == PrecisionClass::fp32_angle) {
    const Real u = ldexp(Real(1), -24), zeta_error = 5 * u;
    // exp(x) - 1 (binary128 has no expm1 here): what it loses for a tiny x is far below the 2u beside it.
    error += exp(abs(xpos_power) * zeta_error * (1 + zeta_error)) - 1 + (spec.role == XposRole::key ? 4 : 2) * u;
  }
  return error;
}

// `angle` is |p theta| before the sign; `log_xpos` is ln of the xPos factor (0 for others);
// `growth` is the pair's angle_growth; `xpos_power` is the xPos exponent's magnitude |n| / s.
//
// The held cos/sin vector H is within A E (+ r-free absolute terms) of A (cos phi, sin phi), with
// E = d_phi + d_A + 2^-51 + 2 u_c [+ 2 u_s under cache=storage or lowp-cache] [+ attention_error,
// where a kernel rounds the attention factor]. The products then round (math=):
//   compute  a c and b s each round in the compute format: r |H| u_c <= A r u_c (1 + E), charged
//            u_c plus u_c for the second order (E <= 1 wherever the bound constrains); the sum
//            rounds in the compute format and is stored: final = u_s (+ u_c).
//   storage  each product rounds into the storage dtype, through the compute format where the two
//            differ (a float32 cos times a bf16 x): p = u_s + u_c (1 + u_s), or u_s alone; the
//            error A r (E (1 + p) + p) with E's r-free terms times (1 + p) too, and each product's
//            underflow eta_c (1 + p) + eta_s. The sum of the two storage values rounds once more,
//            formed in the compute format where the two differ: final = u_s (+ u_c).
template <class Real>
RotaryBoundTerms<Real> rotary_bound_terms(const Spec& spec, const Real& angle, const Real& log_xpos, const Real& growth,
                                          const Real& xpos_power = Real(0)) {
  using std::abs, std::exp, std::ldexp;
  const bool widened = compute_dtype(spec.dtype) != spec.dtype;
  const FormatConstants compute = format_constants(compute_dtype(spec.dtype));
  const FormatConstants storage = format_constants(spec.dtype);
  const bool held_in_storage = spec.cos_sin_in_storage();
  const Real angle_error = ldexp(Real(1), -50) + abs(angle) * growth;
  const Real u_c(compute.unit), u_s(storage.unit), eta_c(compute.subnormal_spacing), eta_s(storage.subnormal_spacing);
  const Real final = u_s + (widened ? u_c : Real(0));
  const Real held = angle_error + amplitude_error(spec, log_xpos, xpos_power) + ldexp(Real(1), -51) + 2 * u_c + (held_in_storage ? 2 * u_s : Real(0)) +
                    attention_error<Real>(spec);
  const Real held_per_norm = 3 * ldexp(Real(1), -1074) + eta_c + (held_in_storage ? eta_s : Real(0));
  // The products' underflow, eta_c, where the kernel multiplies by A before them; an xPos kernel
  // may multiply by its factor after them instead (x-transformers' and rotary-embedding-torch's
  // (t * cos) * scale), which magnifies that underflow by the factor: keys, whose factor
  // zeta^(-n/s) grows past 1, are charged eta_c times it.
  const Real magnified = log_xpos > 0 ? exp(log_xpos) : Real(1);
  const Real underflow = eta_c * magnified;
  if (spec.math == RoundsIn::compute) return {held + 2 * u_c, held_per_norm, underflow, final, eta_s, Real(storage.largest)};
  const Real product = u_s + (widened ? u_c * (1 + u_s) : Real(0));
  return {held * (1 + product) + product, held_per_norm * (1 + product), underflow * (1 + product) + eta_s, final, eta_s,
          Real(storage.largest)};
}

// amp as Real: exact in binary128; in double (the screening verifiers) the double nearest it,
// 2^-53 off, which amplitude_rounding charges.
template <class Real> Real amplitude_of(const Spec& spec) {
  if constexpr (std::is_same_v<Real, double>) return spec.amp.to_double();
  else return from_decimal<Real>(spec.amp);
}

// amp's relative error as a kernel holds it: the double nearest A (the ABI's pec_spec.amp, a Python
// float) rounded to the compute format; 0 where A is representable there (but for the 2^-52 a
// double amplitude_of adds).
template <class Real> Real amplitude_rounding(const Spec& spec) {
  const double nearest = spec.amp.to_double();
  const Real held = compute_dtype(spec.dtype) == Dtype::fp64 ? Real(nearest) : Real(static_cast<float>(nearest));
  const Real exact = amplitude_of<Real>(spec);
  return abs(held - exact) / exact + (std::is_same_v<Real, double> ? std::ldexp(1.0, -52) : 0.0);
}

// The bound of a table entry of exact value A v that a kernel forms as the product of its entry v,
// held in the compute format with error at most `held_error`, by amp A (the model above).
template <class Real> Real amplified_entry_bound(const Spec& spec, const Real& entry, const Real& held_error) {
  using std::abs;
  const FormatConstants compute = format_constants(compute_dtype(spec.dtype));
  const FormatConstants storage = format_constants(spec.dtype);
  const Real amplitude = amplitude_of<Real>(spec), e_a = amplitude_rounding<Real>(spec);
  const Real held = abs(entry) / amplitude + held_error;  // at least |v̂|
  const Real product = amplitude * (1 + e_a) * held;
  const Real u_c(compute.unit), eta_c(compute.subnormal_spacing);
  const Real in_compute = amplitude * held_error + e_a * amplitude * held + u_c * product + eta_c;
  if (compute_dtype(spec.dtype) == spec.dtype) return in_compute;
  return in_compute + Real(storage.unit) * (product * (1 + u_c) + eta_c) + Real(storage.subnormal_spacing);
}

// Whether a magnitude stays 2^-6 inside the storage range, where the kernels claim their bound.
template <class Real> bool within_claim(const Real& magnitude, const Real& largest) {
  return magnitude * (1 + std::ldexp(1.0, -6)) < largest;
}

// A sinusoid table entry's bound (a rotation of (0, 1), times amp) at angle `angle`, for an entry
// of exact value `entry` (its sin or cos times amp), whose frequency's angle error grows by
// `growth` (angle_growth); +inf where the angle error alone reaches 1, the entries' scale.
template <class Real> Real sinusoid_bound(const Spec& spec, const Real& angle, const Real& entry, const Real& growth) {
  using std::abs, std::ldexp;
  const FormatConstants compute = format_constants(compute_dtype(spec.dtype));
  const FormatConstants storage = format_constants(spec.dtype);
  const Real before_rounding = ldexp(Real(1), -50) + abs(angle) * growth + table_sin_cos_error<Real>(spec);
  if (!(before_rounding < 1)) return std::numeric_limits<Real>::infinity();
  if (spec.amp != Decimal(1)) {
    const Real amplitude = amplitude_of<Real>(spec);
    // Entries of magnitude up to A near the storage's largest value may overflow: no claim.
    if (!within_claim<Real>(amplitude, Real(storage.largest))) return std::numeric_limits<Real>::infinity();
    // sin or cos held in the compute format before the product: its error and that rounding.
    const Real u_c(compute.unit), sine = abs(entry) / amplitude;
    return amplified_entry_bound<Real>(spec, entry, before_rounding * (1 + u_c) + u_c * sine + Real(compute.subnormal_spacing));
  }
  const Real final = Real(storage.unit) + (compute_dtype(spec.dtype) != spec.dtype ? Real(compute.unit) : Real(0));
  return before_rounding * (1 + final) + final * abs(entry) + Real(compute.subnormal_spacing) +
         Real(storage.subnormal_spacing);
}

// An ALiBi bias b's bound is |b| relative + absolute, for head `head` (0-based). Under
// exact-angle the slope is within 2^-51 and the product rounds in the compute format. Under
// fp32-angle the slope m is formed by the spec's `slopes` recipe, the distance is cast to float32
// (charged u: it rounds from 2^24) and the product rounds in float32:
//   exact  m correctly rounded (exact where m is a power of two, and then so is the product).
//   bloom  transformers' build_alibi_tensor: base = 2^(-8/c) (c the largest power of two <= n,
//          then 2^(-4/c) for the rest) in double, cast to float32 (exact where c <= 8, or 4
//          for the rest; else u plus the double's 2^-52), then torch.pow(base, k) in float32
//          (k = h + 1, then 2(h - c) + 1), charged one ulp: m (1 + d_b)^k (1 + 2u).
//   mpt    transformers' build_mpt_alibi_tensor: the exponent k (8 / n') is exact in float32
//          (n' = 2c, or n for a power of two; its slope order is the paper's), torch.pow(2, e)
//          is charged one ulp and 1 / that rounds: m (1 + 2u)(1 + u), exact where e is whole.
// The distance is |i - j|, or under mode=key and last-key |j - anchor|, an integer either way.
// The store into the storage format rounds once more, relative to the bias: u_s.
// math=storage (Falcon's `slopes.bfloat16() * positions`): the slope rounds to the storage
// dtype (u_s), the integer distance converts to it through float32, the compute format (u, then
// u_s), and the product of the two, exact in float32, rounds once to the storage dtype (u_s),
// which is the store; in fp32 and fp64 the storage is the compute format and nothing changes.
// math=bf16 (Falcon's bias in a model of any dtype): the same three roundings in bf16, then the
// store of the bf16 product, exact into fp32 and fp64 and rounded once more into fp16.
template <class Real> struct BiasBoundTerms {
  Real relative, absolute, largest;
};
template <class Real> BiasBoundTerms<Real> alibi_bound_terms(const Spec& spec, int head) {
  using std::ldexp, std::pow;
  const FormatConstants compute = format_constants(compute_dtype(spec.dtype));
  const FormatConstants storage = format_constants(spec.dtype);
  const Real u = ldexp(Real(1), -24), u_s(storage.unit);
  const bool bf16_math = spec.math == RoundsIn::bf16;
  const bool storage_math = (spec.math == RoundsIn::storage && compute_dtype(spec.dtype) != spec.dtype) || bf16_math;
  // The format the slope, the distance and their product round to under math=storage or bf16.
  const FormatConstants math = bf16_math ? format_constants(Dtype::bf16) : storage;
  const Real u_m(math.unit);
  const Real absolute = Real(compute.subnormal_spacing) + Real(storage.subnormal_spacing) +
                        (bf16_math ? Real(math.subnormal_spacing) : Real(0));
  // A bf16 product stored into fp16 rounds once more; into fp32 and fp64 it is exact.
  const Real store = bf16_math && spec.dtype == Dtype::fp16 ? u_s : Real(0);
  // The slope's error and the distance's before math=storage (or bf16) rounds them to its format.
  const auto in_storage = [&](const Real& slope, const Real& distance) {
    const Real rounded = (1 + slope) * (1 + u_m) * (1 + distance) * (1 + u_m) * (1 + u_m) - 1;
    return BiasBoundTerms<Real>{rounded * (1 + store) + store, absolute, Real(storage.largest)};
  };
  if (spec.precision != PrecisionClass::fp32_angle) {
    if (storage_math) return in_storage(ldexp(Real(1), -51), u);
    return {ldexp(Real(1), -51) + Real(compute.unit) + u_s, absolute, Real(storage.largest)};
  }
  const int c = static_cast<int>(std::bit_floor(static_cast<unsigned>(spec.heads)));
  const bool extra = head >= c;
  const int series = extra ? 2 * c : c;                // the slope is 2^(-8 k / series)
  const int k = extra ? 2 * (head - c) + 1 : head + 1;
  Real slope = 0;
  bool power_of_two = false;
  switch (spec.slopes) {
    case SlopeRecipe::exact:
      power_of_two = 8 * k % series == 0;
      slope = power_of_two ? Real(0) : u;
      break;
    case SlopeRecipe::bloom: {
      const Real base = 8 % series == 0 ? Real(0) : (1 + u) * (1 + ldexp(Real(1), -52)) - 1;
      slope = pow(1 + base, k) * (1 + 2 * u) - 1;
      break;
    }
    case SlopeRecipe::mpt:
      power_of_two = 8 * k % series == 0;
      slope = power_of_two ? Real(0) : (1 + 2 * u) * (1 + u) - 1;
      break;
  }
  if (storage_math) return in_storage(slope, u);
  const Real product = power_of_two ? Real(0) : u;
  const Real relative = (1 + slope) * (1 + u) * (1 + product) - 1;
  return {relative * (1 + u_s) + u_s, absolute, Real(storage.largest)};
}

// The |phi| from which the spec's class stops constraining any rotated pair: where the angle
// term alone makes P reach A r, at the pair whose recipe error is largest (the last pair of
// ggml's running product; e = 1 for hf and meta); for a sinusoid table, where an entry's angle
// term reaches 1. +inf for the other families; for exact-angle it lies far past any position a
// kernel takes (about 2^100).
double angle_horizon(const Spec& spec);

std::vector<Wide> claimed_error_bounds(const Reference<FastReal>& reference, const Point& point, std::span<const Wide> input);

}  // namespace peconform
