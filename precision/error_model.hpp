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
//                  or cache=storage
//   products       u_c                                   a c and b s: |a c| + |b s| <= A r
//   second order   u_c                                   (math=storage: rotary_bound_terms)
//   final rounding u_f |y_e|                             the sum a c - b s rounds in the compute
//                                                        format, then the store into the storage
//                                                        format: u_f = u_s, plus u_c where the two differ
//
//   P = A r (d_phi + d_A + 2^-51 + 4 u_c [+ 2 u_s]) + r (3 eta_64 + eta_c [+ eta_s]) + eta_c
//   B(pair element e) = P (1 + u_f) + u_f |y_e| + eta_s
// (math=storage, the products rounded in the storage dtype, changes P: rotary_bound_terms.)
//
// The error of (c, s) as a vector, e, moves each output by at most r |e| (Cauchy-Schwarz),
// which is why those terms are multiples of A r; the final rounding is relative to the element
// itself, so an element much smaller than its pair still exposes an error in cos/sin. The eta
// terms cover roundings that underflow: the amplitude chain (exp, times the attention factor,
// times cos) rounds three times in double (eta_64 = 2^-1074) and once more into the compute
// format, each by at most half a spacing on each of c and s; then the products, and the store.
// A sinusoid entry y = sin or cos: B = d_phi + 2^-52 + u_f |y| + eta_c + eta_s.
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

// yarn under hf and meta: the relative error of the float32 frequency _compute_yarn_parameters
// forms from pos = powf(base, 2k/n), within the factor `inv` of 1/theta once inverted (inv_freq's
// factor), against the plan's exact frequency. In float32: the extrapolated 1/pos, the
// interpolated 1/(factor pos), the ramp r = clamp((k - low)/(high - low), 0, 1) from ends formed
// in Python floats (floored and ceiled unless truncate=false, then cast to float32), ext = 1 - r
// and the blend interpolated (1 - ext) + extrapolated ext, each operation one rounding. Where an
// end lies within the double computation's error (2^-40 relative, far above its own) of an
// integer, floor or ceil may go either way: every end the recipe can take is bounded, and the
// largest counts. A ramp value clamped whatever its rounding is exact, and so is 1 - r there.
template <class Real> Real yarn_theta_error(const Spec& spec, int index, const Real& inv) {
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
  const Real window = ldexp(Real(1), -40);
  // The ends the recipe may take, and the ones the plan takes (the first of each).
  const auto ends_of = [&](const Real& value, bool up) {
    const Real spread = window * abs(value);
    std::vector<Real> ends;
    for (const Real& v : {value, value - spread, value + spread}) {
      const Real end = plan.truncate ? (up ? ceil(v) : floor(v)) : v;
      if (std::find(ends.begin(), ends.end(), end) == ends.end()) ends.push_back(end);
    }
    return ends;
  };
  const auto share = [&](Real low, Real high, Real& unclamped) {  // the ramp r of pair `index`
    low = max(low, Real(0));
    high = min(high, Real(dims - 1));
    if (low == high) high += Real(0.001);
    unclamped = (Real(index) - low) / (high - low);
    return std::pair{low, high};
  };
  const Real factor_in = representable_in_float32(plan.factor) ? Real(1) : 1 / (1 - u);
  const Real e_extrapolated = inv - 1;
  const Real e_interpolated = (index == 0 ? Real(1) : inv) * (1 + u) * factor_in - 1;
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

// The relative error of a float32 angle as the spec's `theta` recipe forms it, for frequency
// `index` (k in theta_k = base^(-2k/n), n = d_rot, or d/2 for each axis of rope2d; linear
// divides by the factor), derived from the operations the recipe performs. A rounding to
// binary32 is a factor (1 + d) with |d| <= u = 2^-24; a value rounded on the way in and then
// divided by is a factor 1/(1 - u); powf is charged one ulp, 2u (glibc's is within 0.82 ulp,
// SLEEF's u10 and CUDA's within 1); an exponent e_f = e (1 + d_e) and a base b_f = b (1 + d_b)
// move b^e by the factor exp(psi), psi = e (d_e (|ln b| + l_b) + l_b) with l_b = |ln(1 + d_b)|
// <= u/(1 - u). A rounding that cannot happen is not charged: a base or factor float32 holds
// (representable_in_float32), an exponent 2k/n that float32 holds, pow(b, 0) = 1, the
// reciprocal of 1, a product by theta = 1. The position p is charged u (fl(p) rounds from 2^24).
//   exact  theta correctly rounded once (not theta_0 = 1 without a plan), then fl(fl(p) theta_f).
//   hf     Hugging Face's inv_freq = 1.0 / base ** (arange(0, n, 2).float() / n) in float32
//   meta   (modeling_rope_utils _compute_default_rope_parameters) and Meta's llama
//          precompute_freqs_cis, the same operations: 2k/n rounds, powf, the reciprocal; linear
//          divides by the factor cast to float32 (inv_freq /= factor), llama3 blends as
//          llama3_theta_error says, yarn as yarn_theta_error says, longrope multiplies the
//          power by its float32 factor before the reciprocal; then fl(fl(p) theta_f).
//   ggml   ggml_rope_cache_init: theta_scale = powf(base, -2.0f/n) (e = 2/n), theta starts at
//          fl(p) and is multiplied by theta_scale once per frequency, rounding each time: k
//          products; linear multiplies by freq_scale = 1.0f / (float)factor, a reciprocal of a
//          rounded factor, and rounds the product.
//   exp-log  sinusoid tables as the PyTorch tutorial, fairseq and tensor2tensor build them:
//          theta_k = exp(m_k c) with c = -ln(base)/D computed in double and cast to float32
//          (table_exponent gives m_k and D), the product m_k c_f rounded (exact where m_k is 0
//          or a power of two), expf charged one ulp (exp(0) = 1 exactly); then fl(fl(p) theta_f).
//          c_f = c (1 + g): ln of the double base within 2^-52 relative and 2^-53 absolute (the
//          decimal's rounding to double), the division 2^-53, the cast u; the exponent
//          x = m_k c is then off by |x| ((1 + g)(1 + d_m) - 1), which moves theta by exp of that.
template <class Real> Real theta_recipe_error(const Spec& spec, int index) {
  using std::abs, std::exp, std::ldexp, std::log, std::pow;
  const Real u = ldexp(Real(1), -24);
  const Real round = 1 + u;                       // one rounding that may happen
  const auto round_if = [&](bool rounds) { return rounds ? round : Real(1); };
  const bool linear = spec.scaling.kind == PlanKind::linear || spec.scaling.kind == PlanKind::proportional;
  const Real factor_in = linear && !representable_in_float32(spec.scaling.factor) ? 1 / (1 - u) : Real(1);
  const bool base_exact = representable_in_float32(spec.base);
  const Real log_base = abs(log(Real(spec.base.to_double())));
  const Real log_base_rounding = base_exact ? Real(0) : u / (1 - u);
  const int n = spec.family == Family::rope2d ? spec.d / 2 : spec.rotary_dims();
  // |e_f ln b_f - e ln b| for an exponent e = numerator/n formed in float32 by one division.
  const auto exponent_and_base = [&](int numerator) {
    const float rounded = static_cast<float>(numerator) / static_cast<float>(n);
    const bool exponent_exact = static_cast<double>(rounded) * n == numerator;  // exact in double: 24 bits times n < 2^29
    const Real e = Real(numerator) / Real(n);
    return exp(e * ((exponent_exact ? Real(0) : u) * (log_base + log_base_rounding) + log_base_rounding));
  };
  const Real position = round;
  // theta_0 = base^0 = 1 only without a plan: linear divides it, and the plans only the exact
  // recipe takes (custom, yarn, dynamic, ...) may move it.
  const bool unit_theta = index == 0 && spec.scaling.kind == PlanKind::none;
  switch (spec.theta) {
    case ThetaRecipe::exact: return position * round_if(!unit_theta) * round_if(!unit_theta) - 1;
    case ThetaRecipe::hf:
    case ThetaRecipe::meta: {
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
      const Real running = pow(round * scale, index);
      const Real scaled = linear ? factor_in * round * round : Real(1);
      return position * running * scaled - 1;
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
// for the classes that form p theta to 106 bits, the recipe's error under fp32-angle. It does not
// depend on the position, so callers form it once per frequency.
template <class Real> Real angle_growth(const Spec& spec, int index) {
  using std::ldexp;
  return spec.precision == PrecisionClass::fp32_angle ? theta_recipe_error<Real>(spec, index) : ldexp(Real(1), -100);
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

// `angle` is |p theta| before the sign; `log_xpos` is ln of the xPos factor (0 for others);
// `growth` is the pair's angle_growth.
//
// The held cos/sin vector H is within A E (+ r-free absolute terms) of A (cos phi, sin phi), with
// E = d_phi + d_A + 2^-51 + 2 u_c [+ 2 u_s under cache=storage or lowp-cache] [+ 2^-23 where
// attention_in_float32]. The products then round (math=):
//   compute  a c and b s each round in the compute format: r |H| u_c <= A r u_c (1 + E), charged
//            u_c plus u_c for the second order (E <= 1 wherever the bound constrains); the sum
//            rounds in the compute format and is stored: final = u_s (+ u_c).
//   storage  each product rounds into the storage dtype, through the compute format where the two
//            differ (a float32 cos times a bf16 x): p = u_s + u_c (1 + u_s), or u_s alone; the
//            error A r (E (1 + p) + p) with E's r-free terms times (1 + p) too, and each product's
//            underflow eta_c (1 + p) + eta_s. The sum of the two storage values rounds once more,
//            formed in the compute format where the two differ: final = u_s (+ u_c).
template <class Real>
RotaryBoundTerms<Real> rotary_bound_terms(const Spec& spec, const Real& angle, const Real& log_xpos, const Real& growth) {
  using std::abs, std::ldexp;
  const bool widened = compute_dtype(spec.dtype) != spec.dtype;
  const FormatConstants compute = format_constants(compute_dtype(spec.dtype));
  const FormatConstants storage = format_constants(spec.dtype);
  const bool held_in_storage = spec.cos_sin_in_storage();
  const Real angle_error = ldexp(Real(1), -50) + abs(angle) * growth;
  const Real amplitude_error = (abs(log_xpos) + 4) * ldexp(Real(1), -52);
  const Real u_c(compute.unit), u_s(storage.unit), eta_c(compute.subnormal_spacing), eta_s(storage.subnormal_spacing);
  const Real final = u_s + (widened ? u_c : Real(0));
  const Real held = angle_error + amplitude_error + ldexp(Real(1), -51) + 2 * u_c + (held_in_storage ? 2 * u_s : Real(0)) +
                    (attention_in_float32(spec) ? 2 * ldexp(Real(1), -24) : Real(0));
  const Real held_per_norm = 3 * ldexp(Real(1), -1074) + eta_c + (held_in_storage ? eta_s : Real(0));
  if (spec.math == RoundsIn::compute) return {held + 2 * u_c, held_per_norm, eta_c, final, eta_s, Real(storage.largest)};
  const Real product = u_s + (widened ? u_c * (1 + u_s) : Real(0));
  return {held * (1 + product) + product, held_per_norm * (1 + product), eta_c * (1 + product) + eta_s, final, eta_s,
          Real(storage.largest)};
}

// Whether a magnitude stays 2^-6 inside the storage range, where the kernels claim their bound.
template <class Real> bool within_claim(const Real& magnitude, const Real& largest) {
  return magnitude * (1 + std::ldexp(1.0, -6)) < largest;
}

// A sinusoid table entry's bound (a rotation of (0, 1)) at angle `angle`, for an entry of exact
// value `entry` (its sin or cos), whose frequency's angle error grows by `growth` (angle_growth);
// +inf where the angle error alone reaches 1, the entries' scale.
template <class Real> Real sinusoid_bound(const Spec& spec, const Real& angle, const Real& entry, const Real& growth) {
  using std::abs, std::ldexp;
  const FormatConstants compute = format_constants(compute_dtype(spec.dtype));
  const FormatConstants storage = format_constants(spec.dtype);
  const Real final = Real(storage.unit) + (compute_dtype(spec.dtype) != spec.dtype ? Real(compute.unit) : Real(0));
  const Real before_rounding = ldexp(Real(1), -50) + abs(angle) * growth + ldexp(Real(1), -52);
  if (!(before_rounding < 1)) return std::numeric_limits<Real>::infinity();
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
// The store into the storage format rounds once more, relative to the bias: u_s.
template <class Real> struct BiasBoundTerms {
  Real relative, absolute, largest;
};
template <class Real> BiasBoundTerms<Real> alibi_bound_terms(const Spec& spec, int head) {
  using std::ldexp, std::pow;
  const FormatConstants compute = format_constants(compute_dtype(spec.dtype));
  const FormatConstants storage = format_constants(spec.dtype);
  const Real absolute = Real(compute.subnormal_spacing) + Real(storage.subnormal_spacing);
  if (spec.precision != PrecisionClass::fp32_angle)
    return {ldexp(Real(1), -51) + Real(compute.unit) + Real(storage.unit), absolute, Real(storage.largest)};
  const Real u = ldexp(Real(1), -24);
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
  }
  const Real product = power_of_two ? Real(0) : u;
  const Real relative = (1 + slope) * (1 + u) * (1 + product) - 1;
  return {relative * (1 + Real(storage.unit)) + Real(storage.unit), absolute, Real(storage.largest)};
}

// The |phi| from which the spec's class stops constraining any rotated pair: where the angle
// term alone makes P reach A r, at the pair whose recipe error is largest (the last pair of
// ggml's running product; e = 1 for hf and meta); for a sinusoid table, where an entry's angle
// term reaches 1. +inf for the other families; for exact-angle it lies far past any position a
// kernel takes (about 2^100).
double angle_horizon(const Spec& spec);

std::vector<Wide> claimed_error_bounds(const Reference<FastReal>& reference, const Point& point, std::span<const Wide> input);

}  // namespace peconform
