#include "reference/tier_bounds.hpp"

#include <algorithm>
#include <boost/math/constants/constants.hpp>
#include <cmath>
#include <fmt/format.h>
#include <limits>

#include "reference/element_scales.hpp"
#include "reference/tier_conversion.hpp"

namespace peconform {
namespace {

// The relative error of a fast-tier frequency theta, in units of u, is at most
// weight |ln theta| + 16 + extra (precision/measured_constants.md counts the roundings): the
// power rule base^(-2i/d) gives weight 1; these plans magnify roundings further.
template <class Real> struct FrequencyError {
  Real weight = Real(1);     // multiplies |ln theta|
  Real extra = Real(0);      // added to the angle's allowance 16
  Real amplitude = Real(0);  // added to the allowance 20, for an attention factor that needs more
};

// YaRN's 1 + 0.1 m ln(factor): 0.1, m, ln (4u, and u/ln f from the factor's own rounding), two
// products and the sum round; t / (1 + t) of t's error reaches the result, t = 0.1 m ln f.
template <class Real> Real yarn_mscale_error(const Decimal& mscale) { return 9 + abs(from_decimal<Real>(mscale)) / 10; }

// Where a factor divides or multiplies theta, |ln| of the unscaled frequency, which the rounding
// of the exponent multiplies, exceeds |ln theta| by at most |ln factor|.
template <class Real> Real largest_log(const std::vector<Decimal>& factors) {
  Real out(0);
  for (const Decimal& factor : factors) out = std::max(out, abs(log(from_decimal<Real>(factor))));
  return out;
}

// A weight mixed as (1 - w) theta / f + w theta, with w off by `weight_error` u, moves theta by
// up to (f - 1) weight_error u relatively (theta / f is the smallest the mix can be).
template <class Real> Real mixing_error(const Real& factor, const Real& weight_error) {
  return abs(factor - 1) * (weight_error + 2) + 3;
}

template <class Real> FrequencyError<Real> frequency_error(const Spec& spec) {
  FrequencyError<Real> out;
  if (spec.family == Family::sinusoidal && spec.freq == FrequencyRule::geometric) {
    // exp(-i ln(base) / (n - 1)): log (2 ulps = 4u), the product and the quotient each put
    // their rounding on the exponent, whose absolute error is theta's relative one.
    out.weight = Real(6);
    return out;
  }
  const bool rotary_plan = spec.family == Family::rope || spec.family == Family::xpos || spec.family == Family::mrope;
  if (!rotary_plan) return out;
  const FrequencyPlan& plan = spec.scaling;
  const Real factor = from_decimal<Real>(plan.factor);
  switch (plan.kind) {
    case PlanKind::none:
      break;
    case PlanKind::linear:
    case PlanKind::proportional:  // linear's on its rotating pairs; its others have no angle
      out.extra = abs(log(factor));
      break;
    case PlanKind::custom:
      out.extra = largest_log<Real>(plan.factors);
      break;
    case PlanKind::longrope:
      out.extra = std::max(largest_log<Real>(plan.short_factors), largest_log<Real>(plan.long_factors));
      break;
    case PlanKind::dynamic:
      // q = f L / orig - (f - 1) cancels down to 1 at L = orig: its roundings, of f L / orig,
      // reach 2 f u + 2 u of q, which theta inherits (|exponent| d / (d - 2) <= 1); the rounding
      // of d / (d - 2) adds up to |ln theta| more.
      out.weight = Real(2);
      out.extra = 2 * abs(factor) + 2;
      break;
    case PlanKind::yarn: {
      // The ratio of two mscales: both errors and the quotient, then the product with amp.
      if (!plan.attention && plan.mscale && plan.mscale_all_dim)
        out.amplitude = yarn_mscale_error<Real>(*plan.mscale) + yarn_mscale_error<Real>(*plan.mscale_all_dim) + 2;
      out.extra = abs(log(factor));
      if (plan.truncate) {  // floor and ceil leave integers: the ramp rounds once, in its quotient
        out.extra += mixing_error(factor, Real(1));
        break;
      }
      // The ramp (i - low) / (high - low) carries the errors of low and high, each
      // d ln(orig / (beta 2 pi)) / (2 ln base): about (d / (2 ln base)) (10 |ln x| + 4) u.
      const int dims = spec.rotary_dims();
      const Real base = from_decimal<Real>(spec.base);
      const Real scale = Real(dims) / (2 * log(base));
      auto dim_error = [&](const Decimal& rotations) {
        const Real ln_x = abs(log(Real(plan.orig) / (from_decimal<Real>(rotations) * 2 * boost::math::constants::pi<Real>())));
        return scale * ((10 + 1 / log(base)) * ln_x + 4);
      };
      const auto [low, high] = yarn_correction_range<Real>(spec);
      const Real width = std::max(high - low, Real("0.001"));
      out.extra += mixing_error(factor, (2 * dim_error(plan.beta_fast) + dim_error(plan.beta_slow)) / width + 3);
      break;
    }
    case PlanKind::llama3: {
      out.extra = abs(log(factor));
      // smooth = (orig / wavelength - low) / (high - low), orig / wavelength <= high in the
      // smoothed band and off by (|ln theta_0| + 8) u with |ln theta_0| <= ln base.
      const Real low = from_decimal<Real>(plan.low), high = from_decimal<Real>(plan.high);
      const Real ln_base = abs(log(from_decimal<Real>(spec.base)));
      out.extra += mixing_error(factor, (high * (ln_base + 8) + low + high) / (high - low) + 3);
      break;
    }
  }
  return out;
}

// Every element's bound: its scale (A r for a rotated pair, A for a table entry, |b| for an
// ALiBi bias, |A w| for a learned entry under amp, 0 for what must be identical) times `unit`,
// times, where the tier's angles carry rounding (`angles_rounded`), the growth of that rounding
// through the angle and amplitude.
template <class Real>
std::vector<Real> model_bounds(const Reference<Real>& reference, const Point& point, std::span<const Real> input,
                               const Real& unit, bool angles_rounded) {
  // Per unit of |phi|, the roundings of theta and p theta (precision/measured_constants.md: at
  // most 13, plus what a plan adds); on their own, sin/cos, the amplitude and the final products
  // (at most 19.8, YaRN's default attention factor the largest; its ratio of mscales adds more).
  const Real angle_allowance(16), allowance(20);
  const FrequencyError<Real> theta_error = frequency_error<Real>(reference.spec());
  auto growth = [&](const Real& angle, const Real& frequency, const Real& amplitude_growth) {
    if (!angles_rounded) return Real(1);
    // A frequency of 0 (a proportional plan's still pairs) gives the angle 0 exactly, whatever
    // |ln theta| would say.
    const Real angle_part =
        frequency == 0 ? Real(0)
                       : abs(angle) * (theta_error.weight * abs(log(frequency)) + angle_allowance + theta_error.extra);
    return angle_part + allowance + theta_error.amplitude + amplitude_growth;
  };
  const Spec& spec = reference.spec();
  std::vector<Real> bounds(reference.output_size(), Real(0));
  switch (spec.family) {
    case Family::rope:
    case Family::xpos:
    case Family::mrope:
    case Family::rope2d:
      for (const RotaryPairScale<Real>& pair : rotary_pair_scales(reference, point, input)) {
        Real amplitude_growth(0);
        if (spec.family == Family::xpos)
          // zeta = (2i + 0.4 d)/(1.4 d) rounds up to 6 times; pow raises that error to n/scale_base.
          // The exponent n/scale_base rounds twice (scale_base, the quotient), each magnified by
          // |ln zeta^(n/scale_base)|.
          amplitude_growth =
              2 * abs(log(pair.xpos)) + Real(6) * abs(Real(point.c[0]) / from_decimal<Real>(spec.scale_base));
        bounds[pair.a] = bounds[pair.b] =
            pair.attention * pair.xpos * pair.norm * unit * growth(pair.angle, pair.frequency, amplitude_growth);
      }
      break;
    case Family::sinusoidal:
    case Family::xl:
      for (const TablePairScale<Real>& pair : table_pair_scales(reference, point))
        bounds[pair.first] = bounds[pair.second] =
            reference.frequencies().attention * unit * growth(pair.angle, pair.frequency, Real(0));
      break;
    case Family::alibi: {
      const std::vector<Real> bias = reference.evaluate(point, input);
      for (std::size_t h = 0; h < bias.size(); ++h) {
        if (isinf(bias[h])) continue;
        const Real& slope = reference.alibi_slopes()[h];
        bounds[h] = abs(bias[h]) * unit * (angles_rounded ? abs(log(slope)) + angle_allowance : Real(1));
      }
      break;
    }
    case Family::learned: {
      // Under amp the entry is a product, rounded once by a tier; at amp = 1 it is the table's own.
      if (spec.amp == Decimal(1)) break;
      const std::vector<Real> entries = reference.evaluate(point, input);
      for (std::size_t e = 0; e < entries.size(); ++e) bounds[e] = abs(entries[e]) * unit;
      break;
    }
    case Family::t5:
    case Family::shaw:
      break;
  }
  return bounds;
}

}  // namespace

std::int64_t xpos_position_limit(const Spec& spec) {
  const double headroom = 11356.0 - 710.0 - 16.0;  // ln of binary128's and fp64's largest values
  const double limit = headroom / std::log(3.5) * spec.scale_base.to_double();
  return std::min<std::int64_t>(std::int64_t{1} << 20, static_cast<std::int64_t>(limit));
}

template <class Real>
std::vector<Real> fast_tier_bounds(const Reference<Real>& reference, const Point& point, std::span<const Real> input) {
  return model_bounds(reference, point, input, ldexp(Real(1), -113), true);
}

template <class Real>
std::vector<Real> exact_tier_bounds(const Reference<Real>& reference, const Point& point, std::span<const Real> input) {
  return model_bounds(reference, point, input, ldexp(Real(1), -100), false);
}

template std::vector<ExactReal> fast_tier_bounds(const Reference<ExactReal>&, const Point&, std::span<const ExactReal>);
template std::vector<FastReal> fast_tier_bounds(const Reference<FastReal>&, const Point&, std::span<const FastReal>);
template std::vector<ExactReal> exact_tier_bounds(const Reference<ExactReal>&, const Point&, std::span<const ExactReal>);

TierComparison compare_tiers(const Spec& spec, std::span<const Point> points, std::span<const double> input) {
  const std::int64_t length = sequence_length_for(spec, points);
  const Reference<ExactReal> exact(spec, length);
  const Reference<FastReal> fast(spec, length);
  const std::vector<ExactReal> exact_input(input.begin(), input.end());
  std::vector<FastReal> fast_input;
  for (double value : input) fast_input.emplace_back(value);

  TierComparison out;
  for (const Point& point : points) {
    const std::vector<ExactReal> expected = exact.evaluate(point, exact_input);
    const std::vector<FastReal> actual = fast.evaluate(point, fast_input);
    const std::vector<ExactReal> bounds = fast_tier_bounds<ExactReal>(exact, point, exact_input);
    for (std::size_t e = 0; e < expected.size(); ++e) {
      const ExactReal got = to_exact_tier(actual[e]);
      const bool same = got == expected[e] || (isinf(got) && isinf(expected[e]) && signbit(got) == signbit(expected[e]));
      const ExactReal error = same ? ExactReal(0) : abs(got - expected[e]);
      double ratio = 0.0;
      if (!same) ratio = bounds[e] > 0 ? static_cast<double>(error / bounds[e]) : std::numeric_limits<double>::infinity();
      if (out.worst_detail.empty() || ratio > out.worst_ratio) {
        out.worst_ratio = ratio;
        out.worst_detail = fmt::format("element {} at {}: exact {} fast {} error {} bound {}", e,
                                       format_point(spec.family, point), to_decimal_string(expected[e], 25),
                                       to_decimal_string(got, 25), to_decimal_string(error, 3),
                                       to_decimal_string(bounds[e], 3));
      }
    }
  }
  return out;
}

}  // namespace peconform
