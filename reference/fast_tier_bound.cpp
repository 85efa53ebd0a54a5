#include "reference/fast_tier_bound.hpp"

#include <cmath>
#include <fmt/format.h>
#include <limits>

#include "reference/rotary.hpp"
#include "reference/sinusoidal.hpp"

namespace peconform {
namespace {

const ExactReal kUnitRoundoff = ldexp(ExactReal(1), -113);
const ExactReal kRoundingAllowance(16);

ExactReal angle_bound(const ExactReal& angle, const ExactReal& frequency) {
  return abs(angle) * (abs(log(frequency)) + kRoundingAllowance) + kRoundingAllowance;
}

}  // namespace

std::vector<ExactReal> fast_tier_bounds(const Reference<ExactReal>& exact, const Point& point,
                                        std::span<const ExactReal> input) {
  const Spec& spec = exact.spec();
  const std::vector<ExactReal>& inv = exact.frequencies().inv_freq;
  std::vector<ExactReal> bounds(exact.output_size(), ExactReal(0));
  switch (spec.family) {
    case Family::rope:
    case Family::xpos:
    case Family::mrope:
    case Family::rope2d: {
      const auto [start, dims] = rotary_slice(spec);
      for (int pair = 0; pair < dims / 2; ++pair) {
        const auto [a, b] = rotary_pair_elements(spec.layout, start, dims, pair);
        const ExactReal angle = rotary_angle(spec, inv, point, pair);
        const ExactReal& frequency = inv[rotary_frequency_index(spec, pair)];
        ExactReal amplitude = exact.frequencies().attention;
        ExactReal growth(0);
        if (spec.family == Family::xpos) {
          const ExactReal xpos = xpos_amplitude<ExactReal>(spec, point.c[0], pair);
          amplitude *= xpos;
          growth = abs(log(xpos));
        }
        const ExactReal norm = sqrt(input[a] * input[a] + input[b] * input[b]);
        bounds[a] = bounds[b] = amplitude * norm * kUnitRoundoff * (angle_bound(angle, frequency) + growth);
      }
      break;
    }
    case Family::sinusoidal:
    case Family::xl: {
      const int n = spec.d / 2;
      const std::int64_t distance =
          spec.family == Family::xl ? xl_distance(spec, point.c[0], point.c[1]) : point.c[0] + spec.offset;
      const bool interleaved = spec.family == Family::sinusoidal && spec.layout == Layout::interleaved;
      for (int i = 0; i < n; ++i) {
        const ExactReal bound =
            kUnitRoundoff * angle_bound(ExactReal(distance) * inv[static_cast<std::size_t>(i)], inv[static_cast<std::size_t>(i)]);
        bounds[static_cast<std::size_t>(interleaved ? 2 * i : i)] = bound;
        bounds[static_cast<std::size_t>(interleaved ? 2 * i + 1 : i + n)] = bound;
      }
      break;
    }
    case Family::alibi: {
      const std::vector<ExactReal> bias = exact.evaluate(point, input);
      for (std::size_t h = 0; h < bias.size(); ++h) {
        if (isinf(bias[h])) continue;
        const ExactReal& slope = exact.alibi_slopes()[h];
        bounds[h] = abs(bias[h]) * kUnitRoundoff * (abs(log(slope)) + kRoundingAllowance);
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
    const std::vector<ExactReal> bounds = fast_tier_bounds(exact, point, exact_input);
    for (std::size_t e = 0; e < expected.size(); ++e) {
      const ExactReal got(actual[e]);
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
