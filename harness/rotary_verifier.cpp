// The verifier for the rotary families (rope, xpos, mrope, rope2d): per token, cos and sin of
// every pair once (screened_cos_sin), shared by every head of every operand.
#include <algorithm>
#include <array>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <optional>
#include <tuple>
#include <omp.h>
#include <vector>

#include "precision/error_model.hpp"
#include "harness/element_tally.hpp"
#include "harness/escalation.hpp"
#include "harness/family_verifiers.hpp"
#include "harness/parallel_work.hpp"
#include "harness/reduced_angles.hpp"
#include "harness/rotary_row_screen.hpp"
#include "harness/screened_cos_sin.hpp"
#include "harness/tiny_pair_screen.hpp"
#include "harness/typed_access.hpp"
#include "harness/xpos_factor.hpp"
#include "reference/rotary.hpp"

namespace peconform::harness {
namespace {

struct PairConstants {
  std::size_t a = 0, b = 0;        // where the pair is written
  std::size_t in_a = 0, in_b = 0;  // where it is read (rotary_pair_inputs)
  int axis = 0;
  SplitFrequency frequency;
  Wide log_zeta = 0;  // xPos: ln(zeta_i) / scale_base, signed by role
  SplitWide log_zeta_parts;  // the same as three doubles (xpos_factor.hpp)
  Wide growth;        // the angle error's growth with |phi| (precision/error_model.hpp angle_growth)
  double growth_bound = 0;  // growth in double, raised by kBoundRounding (for rotary_bound_terms<double>)
};

// What every head at one token needs of one pair.
struct TokenPair {
  double cos = 0, sin = 0;  // with the amplitude and the sign folded in
  double amplitude = 0;
  RotaryBoundTerms<double> terms;
  double claim_scale = 0;
  double reference_relative = 0;  // the screen's own error, relative to A r
  // Where A is so small that double's subnormals would swamp the bound (xPos keys far out),
  // the reference is formed in binary128 instead, from these.
  bool in_binary128 = false;
  Wide cos_wide, sin_wide, amplitude_wide;
  // xPos queries far out leave the values above, and the amplitude and claim scale, to be formed
  // on first need (form_deferred_amplitude): most of their pairs are written as zeros that pass
  // without them. cos and sin of the angle, unscaled, are kept for that.
  bool amplitude_deferred = false;
  double unit_cos = 0, unit_sin = 0;
  // xPos keys far out: outside the claim whatever the input, so that nothing else is formed.
  bool never_claimed = false;
  // Whether a pair written as two zeros passes with a ratio and ULPs below kNegligible, whatever
  // its finite inputs (token_pair says why), so that only the tallies' maxima need the exact values.
  bool zeros_pass_negligibly = false;
  double angle = 0, log_xpos = 0;  // |p theta| and ln of the xPos factor, for the binary128 bound
  double xpos_power = 0;           // |n| / s, the xPos exponent (rotary_bound_terms)
  Wide growth;
  // Where the bound constrains nothing (past the horizon): its terms without the angle's growth,
  // for the norm check (norm_bound).
  RotaryBoundTerms<double> angle_free;
  // Both in binary128, formed by the first pair of the token checked there and kept for the
  // token's other heads (wide_terms_of, wide_angle_free_of).
  std::optional<RotaryBoundTerms<Wide>> wide_terms, wide_angle_free;
  // wide_terms rounded to double, for the tiny pairs' screen (tiny_pair_screen.hpp).
  std::optional<RotaryBoundTerms<double>> rounded_wide_terms;
};

const RotaryBoundTerms<Wide>& wide_terms_of(const Spec& spec, TokenPair& t) {
  if (!t.wide_terms) t.wide_terms = rotary_bound_terms<Wide>(spec, Wide(t.angle), Wide(t.log_xpos), t.growth, Wide(t.xpos_power));
  return *t.wide_terms;
}

const RotaryBoundTerms<double>& rounded_wide_terms_of(const Spec& spec, TokenPair& t) {
  if (!t.rounded_wide_terms) t.rounded_wide_terms = rounded_to_double(wide_terms_of(spec, t));
  return *t.rounded_wide_terms;
}

const RotaryBoundTerms<Wide>& wide_angle_free_of(const Spec& spec, TokenPair& t) {
  if (!t.wide_angle_free)
    t.wide_angle_free = rotary_bound_terms<Wide>(spec, Wide(0), Wide(t.log_xpos), Wide(0), Wide(t.xpos_power));
  return *t.wide_angle_free;
}

// The fast path's view of one token's pairs (rotary_row_screen.hpp), in padded arrays.
struct FastToken {
  explicit FastToken(std::size_t pairs)
      : cos(padded_pairs(pairs)), sin(cos.size()), amplitude(cos.size()), relative(cos.size()), reference_relative(cos.size()),
        claim_scale(cos.size()) {}
  std::vector<double> cos, sin, amplitude, relative, reference_relative, claim_scale;
  RowScreenPairs view() const {
    return {cos.data(), sin.data(), amplitude.data(), relative.data(), reference_relative.data(), claim_scale.data()};
  }
};

// One row's values for the fast path and what it returns, in padded arrays (one set per thread).
struct FastRow {
  FastRow(std::size_t pairs, std::int64_t d)
      : xa(padded_pairs(pairs)), xb(xa.size()), ya(xa.size()), yb(xa.size()), ratio_a(xa.size()), ratio_b(xa.size()),
        x_row(static_cast<std::size_t>(d)), y_row(x_row.size()) {}
  std::vector<double> xa, xb, ya, yb, ratio_a, ratio_b;
  std::vector<double> x_row, y_row;  // a dense row's inputs and outputs, widened whole (gather_pairs)
};

std::vector<PairConstants> pair_constants(const KernelCall& call, const Reference<FastReal>& reference) {
  const Spec& spec = call.spec;
  const auto [start, dims] = rotary_slice(spec);
  std::vector<PairConstants> out;
  for (int pair = 0; pair < dims / 2; ++pair) {
    const auto [a, b] = rotary_pair_elements(spec.layout, start, dims, pair);
    const auto [in_a, in_b] = rotary_pair_inputs(spec.layout, start, dims, pair);
    const Wide frequency = reference.frequencies().inv_freq[rotary_frequency_index(spec, pair)];
    const int frequency_index = static_cast<int>(rotary_frequency_index(spec, pair));
    const Wide growth = angle_growth<Wide>(spec, frequency_index);
    PairConstants c{a, b, in_a, in_b, rotary_axis(spec, pair), split_frequency(frequency), 0, {}, growth,
                    static_cast<double>(growth) * kBoundRounding};
    if (spec.family == Family::xpos) {
      const Wide log_zeta = log(xpos_zeta<Wide>(spec, pair)) / from_decimal<Wide>(spec.scale_base);
      c.log_zeta = spec.role == XposRole::query ? log_zeta : -log_zeta;
      c.log_zeta_parts = split_wide(c.log_zeta);
    }
    out.push_back(c);
  }
  return out;
}

// The attention factor (YaRN's mscale, else 1) in both precisions, once per call.
struct Attention {
  Wide wide;
  double rounded = 0;
  SplitWide parts;
};

// xPos's factor in binary128: ln, the factor and A times it, the first two rounded to double.
struct WideXposFactor {
  double log_factor = 0, factor = 0;
  Wide amplitude;
};

WideXposFactor wide_xpos_factor(const PairConstants& pair, const Point& point, const Attention& attention) {
  const Wide log_factor = Wide(point.c[0]) * pair.log_zeta;
  const Wide factor = exp(log_factor);
  return {static_cast<double>(log_factor), static_cast<double>(factor), attention.wide * factor};
}

// The amplitude's values in binary128, for a pair checked there.
void set_wide_amplitude(TokenPair& t, const Wide& amplitude_wide) {
  t.amplitude_wide = amplitude_wide;
  t.cos_wide = Wide(t.unit_cos) * amplitude_wide;
  t.sin_wide = Wide(t.unit_sin) * amplitude_wide;
}

void form_deferred_amplitude(TokenPair& t, const PairConstants& pair, const Point& point, const Attention& attention) {
  const WideXposFactor factor = wide_xpos_factor(pair, point, attention);
  t.amplitude = static_cast<double>(factor.amplitude);
  t.claim_scale = std::max(t.amplitude, factor.factor);
  set_wide_amplitude(t, factor.amplitude);
  t.amplitude_deferred = false;
}

TokenPair token_pair(const Spec& spec, const PairConstants& pair, const Point& point, const Attention& attention,
                     const ReducedAngle& angle) {
  const ScreenedCosSin cs = screened_cos_sin(point.c[static_cast<std::size_t>(pair.axis)], pair.frequency, angle);
  TokenPair t;
  t.unit_cos = cs.cos;
  t.unit_sin = spec.sign * cs.sin;
  double log_xpos = 0, xpos = 1;
  Wide amplitude_wide = attention.wide;
  t.amplitude = attention.rounded;
  // xPos's factor: the screen's amplitude is the binary128 one rounded once to double. In
  // double-double where that gives the same double (xpos_factor.hpp), else in binary128, as are
  // the amplitudes so small that the pair is checked in binary128. Where ln of the factor is below
  // -700, A <= 2^8 e^-700 < 2^-1000 (rounded_xpos_factor forms nothing for A above 2^8): the pair
  // is checked in binary128, and the values that takes wait until a pair needs them.
  const RoundedXposFactor factor = spec.family == Family::xpos
                                       ? rounded_xpos_factor(point.c[0], pair.log_zeta_parts, attention.parts)
                                       : RoundedXposFactor{};
  if (factor.formed && factor.amplitude >= kSmallestScreenedAmplitude) {
    log_xpos = factor.log_factor;
    xpos = factor.factor;
    t.amplitude = factor.amplitude;
  } else if (factor.log_formed && factor.log_factor < -700) {
    log_xpos = factor.log_factor;
    t.amplitude_deferred = true;
    t.amplitude = 0;  // with the rest, by form_deferred_amplitude
  } else if (factor.log_formed && (factor.log_factor > 710 || (factor.log_factor > 700 && spec.dtype != Dtype::fp64))) {
    // The claim scale is at least the factor rounded to double: past e^700 > 2^1009 it is, times
    // max(r, 1), past the largest value of fp32, bf16 and fp16 (below 2^128) for any input, and
    // past e^710 it is +inf (double's largest is below e^709.8), outside any dtype's claim.
    t.never_claimed = true;
    t.claim_scale = std::numeric_limits<double>::infinity();
    return t;
  } else if (spec.family == Family::xpos) {
    const WideXposFactor wide = wide_xpos_factor(pair, point, attention);
    log_xpos = wide.log_factor;
    xpos = wide.factor;
    amplitude_wide = wide.amplitude;
    t.amplitude = static_cast<double>(amplitude_wide);
  }
  t.cos = t.unit_cos * t.amplitude;
  t.sin = t.unit_sin * t.amplitude;
  t.angle = cs.magnitude;
  t.xpos_power = spec.family == Family::xpos ? std::abs(static_cast<double>(point.c[0])) / spec.scale_base.to_double() : 0.0;
  t.terms = rotary_bound_terms<double>(spec, t.angle, log_xpos, pair.growth_bound, t.xpos_power);
  t.claim_scale = spec.family == Family::xpos ? std::max(t.amplitude, xpos) : t.amplitude;
  // cos and sin off by e each move a pair element by at most |x_a| e + |x_b| e <= sqrt(2) r e;
  // the amplitude rounds once to double, then c A, s A, two products and a sum round once each.
  t.reference_relative = 1.4143 * cs.error + 6 * 0x1p-53;
  t.log_xpos = log_xpos;
  t.growth = pair.growth;
  if (!t.terms.constrains()) t.angle_free = rotary_bound_terms<double>(spec, 0.0, log_xpos, 0.0, t.xpos_power);
  if (t.amplitude_deferred || t.amplitude < kSmallestScreenedAmplitude) {
    t.in_binary128 = true;
    if (!t.amplitude_deferred) set_wide_amplitude(t, amplitude_wide);
    t.reference_relative = 1.4143 * cs.error + 0x1p-100;  // binary128's roundings, generously
    // xPos queries far out. A <= 2^-900 here (A rounded to double is below it), and a finite
    // input of fp32, bf16 or fp16 is below 2^128, so the binary128 reference of each element,
    // |x_a c A - x_b s A| (1 + 2^-111), is below 2^129 2^-899 = 2^-770. The bound is at least
    // the storage's subnormal spacing eta_s >= 2^-149 (rotary_bound_terms' store_absolute), so
    // a zero output's ratio is below 2^-621, and its ULPs, |reference| / 2^-149 at most, too.
    // Such a pair passes (undecided would need an error within the screen's reach of the bound),
    // lands in the histogram's bin 0, and moves no maximum at least 2^-600 already. With the claim
    // scale below 2^-200 and r < 2^129 the pair is inside the claim; past the horizon (loose) the
    // norm check needs the values, so those pairs are left to it. fp64 outputs can hold such values.
    // A deferred amplitude's claim scale is below 2^8 e^-700 (token_pair's xPos factor above).
    t.zeros_pass_negligibly =
        spec.dtype != Dtype::fp64 && t.terms.constrains() && (t.amplitude_deferred || t.claim_scale <= 0x1p-200);
  }
  return t;
}

void set_fast_pair(FastToken& fast, std::size_t j, const TokenPair& t) {
  // The claim test becomes claim_scale max(r, 1) < largest / (1 + 2^-6); the scale grows by
  // 2^-50 to cover that division's rounding, so the fast path stays inside the claim.
  // A pair whose bound constrains nothing goes to the full check, which counts it unconstrained,
  // and so does one formed in binary128 (claim_scale +inf: never decided).
  const bool screened = !t.in_binary128 && !t.never_claimed && t.terms.constrains();
  fast.cos[j] = t.cos;
  fast.sin[j] = t.sin;
  fast.amplitude[j] = t.amplitude;
  fast.relative[j] = t.terms.relative;
  fast.reference_relative[j] = t.reference_relative;
  fast.claim_scale[j] = screened ? t.claim_scale * (1 + 0x1p-50) : std::numeric_limits<double>::infinity();
}

// Past the horizon the bound reaches A r and says nothing of the angle; it still says something
// of the norm. Whatever angle phi' a kernel forms, its pair is y = A R(phi') x + err, and
// |A R(phi') x| = A r exactly: a rotation keeps the norm, and cos^2 + sin^2 = 1 whatever the
// angle. err gathers every error source of precision/error_model.hpp but the angle: the
// amplitude (d_A), sin/cos evaluation, the cos/sin cache, the products, the subnormal terms and
// the final rounding; element by element it is at most the model's bound with d_phi dropped,
//   N_e = P0 (1 + u_f) + u_f |y'_e| + eta_s,   P0 = A r relative0 + r per_norm + absolute,
// where y' = A R(phi') x is the element the final rounding is relative to (as y_e is in B) and
// relative0 is the class's relative term at |phi| = 0 (rotary_bound_terms(spec, 0, ln a, 0):
// it keeps d_phi's constant 2^-50, the reduction of p theta by pi/2, looser by 2^-50 A r only).
// Then | |y| - A r | <= |err| <= |(N_a, N_b)|, and with (N_a, N_b) =
// (P0 (1 + u_f) + eta_s) (1, 1) + u_f (|y'_a|, |y'_b|) and |y'| = A r,
//   | |y| - A r | <= sqrt(2) (P0 (1 + u_f) + eta_s) + u_f A r.
// A kernel that writes zeros past the horizon, or one whose sin and cos drift apart there (fast
// intrinsics such as __sinf at large arguments), breaks it; a correct fp32-angle kernel cannot.
constexpr double kSqrtTwoAbove = 0x1.6a09e667f3bcdp+0;  // sqrt(2) rounded to nearest lies above it

template <class Real> Real norm_bound(const RotaryBoundTerms<Real>& angle_free, const Real& amplitude_norm, const Real& norm) {
  const Real spread = (amplitude_norm * angle_free.relative + norm * angle_free.per_norm + angle_free.absolute) *
                          (1 + angle_free.final) +
                      angle_free.store_absolute;
  return Real(kSqrtTwoAbove) * spread + angle_free.final * amplitude_norm;
}

// A pair's norm r and its scale A r in binary128, for the pairs checked there.
struct WideScale {
  Wide r, scale;
};

WideScale wide_scale_of(const TokenPair& t, double xa, double xb) {
  const Wide r = sqrt(Wide(xa) * Wide(xa) + Wide(xb) * Wide(xb));
  return {r, (t.in_binary128 ? t.amplitude_wide : Wide(t.amplitude)) * r};
}

// |y| against A r for one pair, within norm_bound; ratio > 1 fails.
struct NormCheck {
  double actual = 0, expected = 0, bound = 0, ratio = 0;
};

// In double where the pair was formed in double and that decides it, else in binary128. In
// double, A (one rounding from binary128), r (two squares, a sum, a root: 2.5 ulps), their
// product (one more) and |y| (2.5 ulps) put the computed | |y| - A r | within
// 8 2^-53 (A r + |y|) of the exact one. In binary128 the few roundings lie far below
// 2^-100 (A r + |y|), and that much goes to the kernel.
NormCheck check_norm(const Spec& spec, TokenPair& t, double xa, double xb, double ya, double yb, bool wide, double scale,
                     double r) {
  if (!wide) {
    // Squares past double's range, or below 2^-1000, where they lose bits to underflow (an xPos
    // query far out: A r near 2^-791 has squares near 2^-1582, which summed to 0 and failed a
    // correct kernel's pair as `norm`), are left to hypot, which scales: within 1 ulp.
    const double squares = ya * ya + yb * yb;
    const double norm = std::isfinite(squares) && squares >= 0x1p-1000 ? std::sqrt(squares) : std::hypot(ya, yb);
    const double bound = norm_bound(t.angle_free, scale, r) * kBoundRounding;
    const double error = std::abs(norm - scale), screen = 8 * 0x1p-53 * (scale + norm);
    if (error + screen <= bound || error - screen > bound) return {norm, scale, bound, error / bound};
  }
  const RotaryBoundTerms<Wide>& terms = wide_angle_free_of(spec, t);
  const WideScale w = wide_scale_of(t, xa, xb);
  const Wide& r_wide = w.r;
  const Wide& wide_scale = w.scale;
  const Wide norm = sqrt(Wide(ya) * Wide(ya) + Wide(yb) * Wide(yb));
  const Wide bound = norm_bound(terms, wide_scale, r_wide);
  const Wide error = abs(norm - wide_scale), screen = ldexp(Wide(1), -100) * (wide_scale + norm);
  const Wide ratio = (error > screen ? error - screen : Wide(0)) / bound;
  return {static_cast<double>(norm), static_cast<double>(wide_scale), static_cast<double>(bound), static_cast<double>(ratio)};
}

// Each pair's inputs and outputs as doubles, pair j at index j of values.xa, xb, ya and yb.
template <class Access, class T>
void gather_pairs(const std::vector<PairConstants>& pairs, const T* x, std::int64_t in_step, const T* y, std::int64_t out_step,
                  FastRow& values) {
  if constexpr (Access::kWidensRows) {
    if (in_step == 1 && out_step == 1) {
      Access::load_row(x, values.x_row.size(), values.x_row.data());
      Access::load_row(y, values.y_row.size(), values.y_row.data());
      for (std::size_t j = 0; j < pairs.size(); ++j) {
        const PairConstants& pair = pairs[j];
        values.xa[j] = values.x_row[pair.in_a];
        values.xb[j] = values.x_row[pair.in_b];
        values.ya[j] = values.y_row[pair.a];
        values.yb[j] = values.y_row[pair.b];
      }
      return;
    }
  }
  for (std::size_t j = 0; j < pairs.size(); ++j) {
    const PairConstants& pair = pairs[j];
    values.xa[j] = Access::load(x, static_cast<std::int64_t>(pair.in_a) * in_step);
    values.xb[j] = Access::load(x, static_cast<std::int64_t>(pair.in_b) * in_step);
    values.ya[j] = Access::load(y, static_cast<std::int64_t>(pair.a) * out_step);
    values.yb[j] = Access::load(y, static_cast<std::int64_t>(pair.b) * out_step);
  }
}

// A ratio or ULP count this small lands in the histogram's bin 0 (below 2^-24).
constexpr double kNegligible = 0x1p-600;

template <class Access>
void check_token(const KernelCall& call, const std::vector<PairConstants>& pairs, const std::vector<std::size_t>& pass_through,
                 std::vector<TokenPair>& token, const FastToken& fast, FastRow& values, std::int64_t b, std::int64_t s,
                 const Point& point, const Attention& attention, Escalation& escalation, std::vector<std::size_t>& slow,
                 ElementTally& tally) {
  const Spec& spec = call.spec;
  const ElementType type = element_type(spec.dtype);
  const int bin = position_bin(point.c[0]);
  const UlpFormat format = ulp_format(type);
  // Terms that depend on the spec alone.
  const RotaryBoundTerms<double> constant = rotary_bound_terms<double>(spec, 0.0, 0.0, 0.0);
  const RowScreenConstants screen_constants{constant.per_norm,       constant.absolute, constant.final,
                                            constant.store_absolute, constant.largest / (1 + 0x1p-6), format.mantissa_bits,
                                            format.min_exponent};
  std::array<std::uint64_t, kRatioBins>& histogram = tally.stats.ratio_histogram;
  for (std::size_t o = 0; o < call.outputs.size(); ++o) {
    const Buffer& in = call.inputs[o];
    const Buffer& out = call.outputs[o];
    const std::int64_t heads = out.shape[2];
    for (std::int64_t h = 0; h < heads; ++h) {
      std::size_t slow_count = 0;
      const std::int64_t row = ((b * out.shape[1] + s) * heads + h) * spec.d;
      // The failure of element e, stored at `at` in the output.
      auto describe = [&](std::string_view kind, std::size_t e, std::string input, double reference, std::int64_t at,
                          double ratio, double bound) {
        const double actual = Access::value(out, at);
        return ElementFailure{std::string(kind), o == 0 ? "q" : "k", row + static_cast<std::int64_t>(e),
                              {b, s, h, static_cast<std::int64_t>(e)}, format_point(spec.family, point), std::move(input),
                              hex_and_decimal(reference), element_text(call, out, Access::bits(out, at), actual),
                              ulps_between(actual, reference, type), ratio, hex_and_decimal(bound)};
      };
      for (const std::size_t e : pass_through) {
        const std::int64_t at = out.offset_of(b, s, h, static_cast<std::int64_t>(e));
        const std::int64_t from = in.offset_of(b, s, h, static_cast<std::int64_t>(e));
        if (Access::bits(out, at) == Access::bits(in, from)) {
          tally.identical();
          continue;
        }
        const std::string_view held = Access::sentinel_held(out, at, Access::value(out, at));
        if (held.empty() && std::isnan(Access::value(out, at)) && std::isnan(Access::value(in, from))) {
          tally.identical();
          continue;
        }
        tally.fail({o, row + static_cast<std::int64_t>(e)}, [&] {
          const double x = Access::value(in, from);
          return describe(held.empty() ? "mismatch" : held, e, hex_and_decimal(x), x, at, INFINITY, 0);
        });
      }
      // The fast path (rotary_row_screen.hpp): every pair whose two elements the screen decides
      // as passes is tallied from the vectorised screen; anything else goes to the full check below.
      const std::int64_t in_base = in.offset_of(b, s, h, 0), out_base = out.offset_of(b, s, h, 0);
      const std::int64_t in_step = in.stride[3], out_step = out.stride[3];
      const auto* const x = Access::pointer(in) + in_base;
      const auto* const y = Access::pointer(out) + out_base;
      gather_pairs<Access>(pairs, x, in_step, y, out_step, values);
      const RowScreenSummary screened =
          screen_rotary_row(fast.view(), {values.xa.data(), values.xb.data(), values.ya.data(), values.yb.data()}, pairs.size(),
                            screen_constants, {values.ratio_a.data(), values.ratio_b.data()});
      for (std::size_t j = 0; j < pairs.size(); ++j) {
        if (values.ratio_a[j] < 0) {
          slow[slow_count++] = j;
          continue;
        }
        ++histogram[static_cast<std::size_t>(ratio_bin(values.ratio_a[j]))];
        ++histogram[static_cast<std::size_t>(ratio_bin(values.ratio_b[j]))];
      }
      const std::uint64_t decided_elements = 2 * screened.decided_pairs;
      tally.stats.elements += decided_elements;
      tally.stats.bounded_elements += decided_elements;
      tally.stats.worst_ratio = std::max(tally.stats.worst_ratio, screened.worst_ratio);
      tally.stats.max_ulp = std::max(tally.stats.max_ulp, screened.most_ulps);
      double& at_position = tally.stats.worst_ratio_by_position[static_cast<std::size_t>(bin)];
      at_position = std::max(at_position, screened.worst_ratio);
      for (std::size_t k = 0; k < slow_count; ++k) {
        const std::size_t j = slow[k];
        const PairConstants& pair = pairs[j];
        TokenPair& t = token[j];
        const std::int64_t ia = in.offset_of(b, s, h, static_cast<std::int64_t>(pair.in_a));
        const std::int64_t ib = in.offset_of(b, s, h, static_cast<std::int64_t>(pair.in_b));
        const double xa = Access::value(in, ia), xb = Access::value(in, ib);
        const std::int64_t oa = out.offset_of(b, s, h, static_cast<std::int64_t>(pair.a));
        const std::int64_t ob = out.offset_of(b, s, h, static_cast<std::int64_t>(pair.b));
        const double ya = Access::value(out, oa), yb = Access::value(out, ob);
        auto input_text = [&] { return fmt::format("x[{}]={}, x[{}]={}", pair.in_a, hex_and_decimal(xa), pair.in_b, hex_and_decimal(xb)); };
        if (std::isnan(xa) || std::isnan(xb)) {
          // The propagation policy: a NaN in a pair makes both of its outputs NaN.
          for (const auto& [e, stored, y] : {std::tuple{pair.a, oa, ya}, std::tuple{pair.b, ob, yb}}) {
            const std::string_view held = Access::sentinel_held(out, stored, y);
            if (held.empty() && std::isnan(y)) {
              tally.identical();
            } else {
              tally.fail({o, row + static_cast<std::int64_t>(e)}, [&, e = e, stored = stored] {
                return describe(held.empty() ? "nan" : held, e, input_text(), NAN, stored, INFINITY, 0);
              });
            }
          }
          continue;
        }
        // Two zeros where they pass negligibly (zeros_pass_negligibly): when the tallies' maxima
        // are already past anything the pair could give, they are counted without forming the
        // pair in binary128; the report is what that would give, bit for bit.
        if (t.zeros_pass_negligibly && ya == 0 && yb == 0 && std::isfinite(xa) && std::isfinite(xb) &&
            at_position >= kNegligible && tally.stats.max_ulp >= kNegligible) {
          tally.bounded_in_bin(0);
          tally.bounded_in_bin(0);
          continue;
        }
        // Outside the claim (near the dtype's overflow) only an unwritten element is wrong; a
        // bound that reaches the pair's scale (A r) still rejects what lies past it, but what
        // lies within it is counted unconstrained, never as a pass.
        auto count_unclaimed = [&] {
          for (const auto& [e, stored, y] : {std::tuple{pair.a, oa, ya}, std::tuple{pair.b, ob, yb}}) {
            const std::string_view held = Access::sentinel_held(out, stored, y);
            if (!held.empty())
              tally.fail({o, row + static_cast<std::int64_t>(e)}, [&, e = e, stored = stored] {
                return describe(held, e, input_text(), NAN, stored, INFINITY, INFINITY);
              });
            else
              tally.unconstrained();
          }
        };
        if (t.never_claimed) {
          count_unclaimed();
          continue;
        }
        if (t.amplitude_deferred) form_deferred_amplitude(t, pair, point, attention);
        // Near double's subnormals (tiny inputs, or a tiny amplitude) r, the bound, the reference
        // and the error would round by as much as the kernel's own subnormal allowance: those
        // pairs are checked in binary128, where nothing underflows; the rest in double.
        const double r2 = xa * xa + xb * xb;
        const bool wide = t.in_binary128 || !(r2 > 0x1p-900) || t.amplitude * std::sqrt(r2) < kSmallestScreenedAmplitude;
        // Most such pairs cannot show in the report (tiny_pair_screen.hpp): they are tallied as
        // binary128 would tally them, without it. r2 < 1/2 keeps r below 1, so that the claim
        // test below takes max(r, 1) as 1.
        if (wide && !t.in_binary128 && t.terms.constrains() && r2 < 0.5 && within_claim<double>(t.claim_scale, t.terms.largest)) {
          const NeutralPair neutral =
              screen_tiny_pair({xa, xb, ya, yb, t.cos, t.sin, t.amplitude, t.reference_relative}, rounded_wide_terms_of(spec, t),
                               format, {tally.stats.worst_ratio, at_position, tally.stats.max_ulp});
          if (neutral.neutral) {
            tally.bounded_in_bin(neutral.bins[0]);
            tally.bounded_in_bin(neutral.bins[1]);
            continue;
          }
        }
        // binary128 arithmetic costs a hundred times double's: only the wide pairs pay for it.
        const WideScale w = wide ? wide_scale_of(t, xa, xb) : WideScale{};
        const Wide& r_wide = w.r;
        const Wide& wide_scale = w.scale;
        // Squares past double's range (inputs near 1e154 and up) take hypot, which does not overflow.
        const double r = wide ? static_cast<double>(r_wide) : (std::isfinite(r2) ? std::sqrt(r2) : std::hypot(xa, xb));
        const bool claimed = within_claim<double>(t.claim_scale * std::max(r, 1.0), t.terms.largest);
        const double scale = wide ? static_cast<double>(wide_scale) : t.amplitude * r;
        if (!claimed) {
          count_unclaimed();
          continue;
        }
        const bool loose = !t.terms.constrains();
        const double screen_error = scale * t.reference_relative;
        Wide wide_reference[2];
        if (wide) {
          const Wide c = t.in_binary128 ? t.cos_wide : Wide(t.cos), sn = t.in_binary128 ? t.sin_wide : Wide(t.sin);
          wide_reference[0] = Wide(xa) * c - Wide(xb) * sn;
          wide_reference[1] = Wide(xa) * sn + Wide(xb) * c;
        }
        const double reference[2] = {wide ? static_cast<double>(wide_reference[0]) : xa * t.cos - xb * t.sin,
                                     wide ? static_cast<double>(wide_reference[1]) : xa * t.sin + xb * t.cos};
        // Each element's bound, its final rounding taken on |reference| + the screen's error.
        Wide wide_bounds[2];
        double bounds[2];
        for (int k = 0; k < 2; ++k) {
          if (wide) {
            const Wide magnitude = abs(wide_reference[k]) + wide_scale * Wide(t.reference_relative);
            wide_bounds[k] = wide_terms_of(spec, t).bound(wide_scale, r_wide, magnitude) * Wide(kBoundRounding);
            bounds[k] = static_cast<double>(wide_bounds[k]);
          } else {
            bounds[k] = t.terms.bound(scale, r, std::abs(reference[k]) + screen_error) * kBoundRounding;
          }
        }
        const double actual[2] = {ya, yb};
        const std::int64_t stored[2] = {oa, ob};
        const std::size_t element[2] = {pair.a, pair.b};
        bool failed[2] = {false, false}, numbers = true;
        for (int k = 0; k < 2; ++k) {
          const double y = actual[k], expected = reference[k], bound = bounds[k];
          const std::size_t e = element[k];
          const std::int64_t key = row + static_cast<std::int64_t>(e);
          std::string_view kind = Access::sentinel_held(out, stored[k], y);
          if (kind.empty() && std::isnan(y)) kind = "nan";
          else if (kind.empty() && std::isinf(y)) kind = "inf";
          if (!kind.empty()) {
            tally.fail({o, key}, [&] { return describe(kind, e, input_text(), expected, stored[k], INFINITY, bound); });
            failed[k] = true;
            numbers = false;
            continue;
          }
          // The decision in the precision the pair was formed in: err + e <= B passes, err - e > B
          // fails, anything between goes to the exact tier.
          double ratio = 0;
          bool undecided = false;
          if (wide) {
            const Wide wide_error = abs(Wide(y) - wide_reference[k]), wide_screen = wide_scale * Wide(t.reference_relative);
            ratio = static_cast<double>(wide_error / wide_bounds[k]);
            undecided = wide_error + wide_screen > wide_bounds[k] && wide_error - wide_screen <= wide_bounds[k];
          } else {
            const double error = std::abs(y - expected);
            ratio = error / bound;
            undecided = error + screen_error > bound && error - screen_error <= bound;
          }
          if (undecided) {
            ++tally.stats.escalations;
            const std::vector<Wide> input = input_values(call, o, b, s, h);
            const Escalation::Decision decision = escalation.decide(point, input, e, y);
            ratio = decision.ratio;
          }
          if (ratio <= 1 && loose)
            tally.unconstrained();
          else
            tally.bounded_ratio(ratio, ulps_between(y, expected, type), bin);
          if (ratio > 1) {
            const bool flipped = y != 0 && expected != 0 && std::signbit(y) != std::signbit(expected) && std::abs(expected) > bound;
            tally.fail({o, key}, [&] { return describe(flipped ? "sign" : "numeric", e, input_text(), expected, stored[k], ratio, bound); });
            failed[k] = true;
          }
        }
        if (!loose || !numbers) continue;
        // Past the horizon the angle is free, but the pair's norm is not (norm_bound).
        ++tally.stats.norm_checked_pairs;
        const NormCheck norm = check_norm(spec, t, xa, xb, ya, yb, wide, scale, r);
        if (norm.ratio <= 1) continue;
        for (int k = 0; k < 2; ++k) {
          if (failed[k]) continue;
          tally.fail({o, row + static_cast<std::int64_t>(element[k])}, [&] {
            const std::string input = fmt::format("{}; y[{}]={}, y[{}]={}", input_text(), pair.a, hex_and_decimal(ya), pair.b,
                                                  hex_and_decimal(yb));
            return ElementFailure{"norm", o == 0 ? "q" : "k", row + static_cast<std::int64_t>(element[k]),
                                  {b, s, h, static_cast<std::int64_t>(element[k])}, format_point(spec.family, point), input,
                                  hex_and_decimal(norm.expected), hex_and_decimal(norm.actual),
                                  ulps_between(norm.actual, norm.expected, type), norm.ratio, hex_and_decimal(norm.bound)};
          });
        }
      }
    }
  }
}

}  // namespace

ElementTally verify_rotary(const KernelCall& call) {
  const Spec& spec = call.spec;
  const Reference<FastReal> reference(spec, call.sequence_length);
  const Wide attention_factor = reference.frequencies().attention;
  const Attention attention{attention_factor, static_cast<double>(attention_factor), split_wide(attention_factor)};
  const std::vector<PairConstants> pairs = pair_constants(call, reference);
  std::vector<SplitFrequency> pair_frequencies;
  for (const PairConstants& pair : pairs) pair_frequencies.push_back(pair.frequency);
  std::vector<std::size_t> pass_through;
  const auto [start, dims] = rotary_slice(spec);
  for (int e = 0; e < spec.d; ++e)
    if (e < start || e >= start + dims) pass_through.push_back(static_cast<std::size_t>(e));
  Escalation escalation(call);
  const std::int64_t batch = call.outputs[0].shape[0], seq = call.outputs[0].shape[1];
  std::vector<ElementTally> tallies(static_cast<std::size_t>(omp_get_max_threads()));
  std::int64_t elements = 0;
  for (const Buffer& out : call.outputs) elements += out.shape[0] * out.shape[1] * out.shape[2] * out.shape[3];
#pragma omp parallel if (worth_a_team(elements))
  {
    ElementTally& tally = tallies[static_cast<std::size_t>(omp_get_thread_num())];
    std::vector<TokenPair> token(pairs.size());
    PairAngles angles(pair_frequencies);
    std::vector<std::int64_t> positions(pairs.size());
    FastToken fast(pairs.size());
    FastRow values(pairs.size(), call.spec.d);
    std::vector<std::size_t> slow(pairs.size());  // the pairs of one row the fast path left
    std::optional<Point> formed;  // the point `token` and `fast` hold
    // Sequence-major, batch rows inner: rows whose ids repeat the same positions (run-mode ids)
    // follow each other and share one forming of their pairs, the binary128 part of the check.
#pragma omp for schedule(static)
    for (std::int64_t t = 0; t < batch * seq; ++t) {
      const std::int64_t b = t % batch, s = t / batch;
      const Point point = token_point(call, b, s);
      if (point != formed) {
        for (std::size_t j = 0; j < pairs.size(); ++j) positions[j] = point.c[static_cast<std::size_t>(pairs[j].axis)];
        angles.reduce(positions);
        for (std::size_t j = 0; j < pairs.size(); ++j) {
          token[j] = token_pair(spec, pairs[j], point, attention, angles.of(j));
          set_fast_pair(fast, j, token[j]);
        }
        formed = point;
      }
      with_typed_access(spec.dtype, [&](auto access) {
        check_token<decltype(access)>(call, pairs, pass_through, token, fast, values, b, s, point, attention, escalation, slow,
                                      tally);
      });
    }
  }
  ElementTally total;
  for (const ElementTally& tally : tallies) total.merge(tally);
  total.escalation_seconds = escalation.seconds();
  return total;
}

}  // namespace peconform::harness
