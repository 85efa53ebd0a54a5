#include "reference/tier_bounds.hpp"

#include <cmath>
#include <fmt/format.h>
#include <limits>

#include "reference/element_scales.hpp"
#include "reference/tier_conversion.hpp"

namespace peconform {
namespace {

// The relative error, in units of u, that llama3's smoothing adds to the frequency theta' of
// rotated pair `pair` beyond the roundings the allowance covers (0 outside the smoothed band).
// The smoothing weight s = (L/lambda - low)/(high - low), lambda = 2 pi/theta, subtracts two
// numbers up to `high`: L/lambda carries theta's error (|ln theta| + 16) u and three roundings
// (2 pi, 2 pi/theta, L/lambda), so s is off by up to high (|ln theta| + 19) u/(high - low),
// plus 2 u of its own subtraction and division. theta' = theta ((1 - s)/f + s) then moves by
// theta (1 - 1/f) ds, which relative to theta' >= theta/f is (f - 1) ds: near s = 0 the
// subtraction's error is amplified by (f - 1) high/(high - low). theta' lies between theta/f
// and theta, so |ln theta| <= |ln theta'| + ln f.
// `bands` is llama3_bands(spec), or empty for other plans.
template <class Real>
Real llama3_smoothing_error(const Spec& spec, const std::vector<Llama3Band>& bands, int pair, const Real& smoothed_frequency) {
  if (bands.empty() || bands[static_cast<std::size_t>(rotary_frequency_index(spec, pair))] != Llama3Band::smoothed) return Real(0);
  const FrequencyPlan& plan = spec.scaling;
  const Real factor = from_decimal<Real>(plan.factor), low = from_decimal<Real>(plan.low), high = from_decimal<Real>(plan.high);
  const Real log_theta = abs(log(smoothed_frequency)) + log(factor);
  return (factor - 1) * (high * (log_theta + 19) / (high - low) + 2);
}

// Every element's bound: its scale (A r for a rotated pair, 1 for a table entry, |b| for an
// ALiBi bias, 0 for what must be identical) times `unit`, times, where the tier's angles carry
// rounding (`angles_rounded`), the growth of that rounding through the angle and amplitude.
template <class Real>
std::vector<Real> model_bounds(const Reference<Real>& reference, const Point& point, std::span<const Real> input,
                               const Real& unit, bool angles_rounded) {
  const Real allowance(16);
  auto growth = [&](const Real& angle, const Real& frequency, const Real& amplitude_growth) {
    if (!angles_rounded) return Real(1);
    return abs(angle) * (abs(log(frequency)) + allowance) + allowance + amplitude_growth;
  };
  const Spec& spec = reference.spec();
  std::vector<Real> bounds(reference.output_size(), Real(0));
  switch (spec.family) {
    case Family::rope:
    case Family::xpos:
    case Family::mrope:
    case Family::rope2d: {
      const std::vector<RotaryPairScale<Real>> pairs = rotary_pair_scales(reference, point, input);
      const std::vector<Llama3Band> bands =
          angles_rounded && spec.scaling.kind == PlanKind::llama3 ? llama3_bands<Real>(spec) : std::vector<Llama3Band>{};
      for (std::size_t i = 0; i < pairs.size(); ++i) {
        const RotaryPairScale<Real>& pair = pairs[i];
        Real amplitude_growth(0);
        if (spec.family == Family::xpos)
          // zeta = (2i + 0.4 d)/(1.4 d) rounds up to 6 times; pow raises that error to n/scale_base.
          amplitude_growth = abs(log(pair.xpos)) + Real(6) * abs(Real(point.c[0]) / from_decimal<Real>(spec.scale_base));
        const Real smoothing = angles_rounded ? abs(pair.angle) * llama3_smoothing_error(spec, bands, static_cast<int>(i), pair.frequency)
                                              : Real(0);
        bounds[pair.a] = bounds[pair.b] =
            pair.attention * pair.xpos * pair.norm * unit * (growth(pair.angle, pair.frequency, amplitude_growth) + smoothing);
      }
      break;
    }
    case Family::sinusoidal:
    case Family::xl:
      for (const TablePairScale<Real>& pair : table_pair_scales(reference, point))
        bounds[pair.first] = bounds[pair.second] = unit * growth(pair.angle, pair.frequency, Real(0));
      break;
    case Family::alibi: {
      const std::vector<Real> bias = reference.evaluate(point, input);
      for (std::size_t h = 0; h < bias.size(); ++h) {
        if (isinf(bias[h])) continue;
        const Real& slope = reference.alibi_slopes()[h];
        bounds[h] = abs(bias[h]) * unit * (angles_rounded ? abs(log(slope)) + allowance : Real(1));
      }
      break;
    }
    case Family::learned:
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
