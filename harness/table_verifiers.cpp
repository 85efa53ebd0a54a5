// The verifiers for outputs that are tables of the position alone: sinusoidal and
// Transformer-XL rows (screened cos/sin per entry), ALiBi biases (slope times distance).
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <omp.h>
#include <span>

#include "precision/error_model.hpp"
#include "harness/escalation.hpp"
#include "harness/family_verifiers.hpp"
#include "harness/parallel_work.hpp"
#include "harness/reduced_angles.hpp"
#include "harness/screened_cos_sin.hpp"
#include "harness/typed_access.hpp"
#include "reference/element_scales.hpp"

namespace peconform::harness {
namespace {

constexpr double kBoundRounding = 1 + 0x1p-40;

// One screened element: classify, screen, escalate if undecided, tally.
struct Screened {
  double actual, expected, bound, screen_error;
  std::string_view held;  // the sentinel's failure kind where it holds one (sentinel_kind)
  bool loose;  // the bound reaches the element's scale: within it is unconstrained, past it fails
};

// A failing bias's input: its head's slope, and under last-key the anchor the point does not print.
std::string alibi_input_text(const Spec& spec, double slope, const Point& point) {
  std::string text = fmt::format("slope {}", hex_and_decimal(slope));
  if (spec.mode == AlibiMode::last_key) text += fmt::format(", last key {}", point.c[2]);
  return text;
}

template <class Describe>
void check_screened(const Screened& x, FailureKey key, std::int64_t position, ElementType type, Escalation& escalation,
                    const Point& point, std::size_t element, ElementTally& tally, Describe&& describe) {
  std::string_view kind = x.held;
  if (kind.empty() && std::isnan(x.actual)) kind = "nan";
  else if (kind.empty() && std::isinf(x.actual)) kind = "inf";
  if (!kind.empty()) {
    tally.fail(key, [&] { return describe(std::string(kind), x.expected, x.actual, INFINITY); });
    return;
  }
  double error = std::abs(x.actual - x.expected), ratio = error / x.bound;
  if (error + x.screen_error > x.bound && error - x.screen_error <= x.bound) {
    ++tally.stats.escalations;
    ratio = escalation.decide(point, {}, element, x.actual).ratio;
    error = ratio * x.bound;
  }
  if (ratio <= 1 && x.loose)
    tally.unconstrained();
  else
    tally.bounded(error, x.bound, ulps_between(x.actual, x.expected, type), position_bin(position));
  if (ratio > 1) {
    const bool flipped = x.actual != 0 && x.expected != 0 && std::signbit(x.actual) != std::signbit(x.expected) &&
                         std::abs(x.expected) > x.bound;
    tally.fail(key, [&] { return describe(flipped ? "sign" : "numeric", x.expected, x.actual, ratio); });
  }
}

}  // namespace

ElementTally verify_sinusoid(const KernelCall& call) {
  const Spec& spec = call.spec;
  const Reference<FastReal> reference(spec, call.sequence_length);
  const Buffer& out = call.outputs[0];
  const ElementType type = out.type;
  const bool sine_second = spec.family == Family::sinusoidal && spec.order == SinusoidalOrder::cos_sin;
  Escalation escalation(call);
  // Each pair's elements and frequency, its frequency split for the double-double angle and its
  // angle error growth, once per call (the lone column's follows the pairs'); only the angle
  // depends on the row.
  const std::vector<TablePairScale<Wide>> pairs = table_pair_scales(reference, Point{});
  std::vector<SplitFrequency> frequencies;
  for (const TablePairScale<Wide>& pair : pairs) frequencies.push_back(split_frequency(pair.frequency));
  std::vector<double> growth;
  for (int index = 0; index <= spec.d / 2; ++index) growth.push_back(angle_growth<double>(spec, index));
  // amp scales every entry (xl has none: 1). The double nearest it and the product in double
  // are each off by 2^-53 relative, which the screen's error takes in.
  const double amplitude = spec.amp.to_double();
  const double amplitude_screen = amplitude == 1 ? 0 : 0x1p-51;
  std::vector<ElementTally> tallies(static_cast<std::size_t>(omp_get_max_threads()));
#pragma omp parallel if (worth_a_team(call.rows * spec.d))
  {
    ElementTally& tally = tallies[static_cast<std::size_t>(omp_get_thread_num())];
    PairAngles angles(frequencies);
    std::vector<std::int64_t> distances(frequencies.size());
#pragma omp for schedule(static)
    for (std::int64_t row = 0; row < call.rows; ++row) {
      const Point point = row_point(call, row, 0);
      const std::int64_t position = point.c[0] + (spec.family == Family::sinusoidal ? spec.offset : 0);
      const std::int64_t distance = table_distance(spec, point);
      std::fill(distances.begin(), distances.end(), distance);
      angles.reduce(distances);
      std::vector<bool> paired(static_cast<std::size_t>(spec.d), false);
      with_typed_access(spec.dtype, [&](auto access) {
        using Access = decltype(access);
        for (std::size_t index = 0; index < pairs.size(); ++index) {
          const TablePairScale<Wide>& pair = pairs[index];
          const double pair_growth = growth[index];
          const ScreenedCosSin cs = screened_cos_sin(distance, frequencies[index], angles.of(index));
          const double angle = cs.magnitude;
          const std::size_t sine = sine_second ? pair.second : pair.first, cosine = sine_second ? pair.first : pair.second;
          // A lone column holds only the first member: the sine, or under cos-sin the cosine.
          const std::pair<std::size_t, double> both[2] = {{sine, amplitude * cs.sin}, {cosine, amplitude * cs.cos}};
          const std::pair<std::size_t, double> lone{pair.first, amplitude * (sine_second ? cs.cos : cs.sin)};
          const double screen_error = amplitude * cs.error + amplitude_screen * amplitude;
          for (const auto& [e, expected] : pair.lone ? std::span(&lone, 1) : std::span(both)) {
            paired[e] = true;
            // The final rounding is relative to the entry; |entry| <= |screened value| + its error.
            const double bound = sinusoid_bound<double>(spec, angle, std::abs(expected) + screen_error, pair_growth) * kBoundRounding;
            const std::int64_t at = out.offset_of(0, row, 0, static_cast<std::int64_t>(e));
            const double actual = Access::value(out, at);
            const Screened x{actual, expected, bound, screen_error, Access::sentinel_held(out, at, actual), bound >= amplitude};
            check_screened(x, {0, row * spec.d + static_cast<std::int64_t>(e)}, position, type, escalation, point, e, tally,
                           [&, e = e](std::string kind, double ref, double actual, double ratio) {
                             return ElementFailure{kind, "table", row * spec.d + static_cast<std::int64_t>(e),
                                                   {0, row, 0, static_cast<std::int64_t>(e)}, format_point(spec.family, point),
                                                   fmt::format("angle {:.17g}", angle), hex_and_decimal(ref),
                                                   element_text(call, out, Access::bits(out, at), actual),
                                                   ulps_between(actual, ref, type), ratio,
                                                   hex_and_decimal(bound)};
                           });
          }
        }
        // Odd d under half: the column no pair fills is zero, a computed value, so -0 is as good
        // as +0 (as it is for every other entry, compared as a number).
        for (std::size_t e = 0; e < paired.size(); ++e) {
          if (paired[e]) continue;
          const std::int64_t at = out.offset_of(0, row, 0, static_cast<std::int64_t>(e));
          if (Access::value(out, at) == 0) {
            tally.identical();
            continue;
          }
          tally.fail({0, row * spec.d + static_cast<std::int64_t>(e)}, [&] {
            const std::string_view held = sentinel_kind(out, Access::bits(out, at));
            return ElementFailure{std::string(held.empty() ? "mismatch" : held), "table",
                                  row * spec.d + static_cast<std::int64_t>(e), {0, row, 0, static_cast<std::int64_t>(e)},
                                  format_point(spec.family, point), "zero column", hex_and_decimal(0.0),
                                  element_text(call, out, Access::bits(out, at), Access::value(out, at)), INFINITY,
                                  INFINITY, hex_and_decimal(0.0)};
          });
        }
      });
    }
  }
  ElementTally total;
  for (const ElementTally& tally : tallies) total.merge(tally);
  total.escalation_seconds = escalation.seconds();
  return total;
}

ElementTally verify_alibi(const KernelCall& call) {
  const Spec& spec = call.spec;
  const Reference<FastReal> reference(spec, call.sequence_length);
  std::vector<double> slopes;
  for (const Wide& slope : reference.alibi_slopes()) slopes.push_back(static_cast<double>(slope));
  std::vector<BiasBoundTerms<double>> head_terms;
  for (int h = 0; h < spec.heads; ++h) head_terms.push_back(alibi_bound_terms<double>(spec, h));
  const Buffer& out = call.outputs[0];
  const ElementType type = out.type;
  Escalation escalation(call);
  std::vector<ElementTally> tallies(static_cast<std::size_t>(omp_get_max_threads()));
  const std::int64_t heads = out.shape[1];
#pragma omp parallel if (worth_a_team(heads * call.rows * call.keys))
  {
    ElementTally& tally = tallies[static_cast<std::size_t>(omp_get_thread_num())];
#pragma omp for collapse(2) schedule(static)
    for (std::int64_t h = 0; h < heads; ++h)
      for (std::int64_t q = 0; q < call.rows; ++q) {
        const double slope = slopes[static_cast<std::size_t>(h)];
        const BiasBoundTerms<double>& terms = head_terms[static_cast<std::size_t>(h)];
        with_typed_access(spec.dtype, [&](auto access) {
          using Access = decltype(access);
          for (std::int64_t k = 0; k < call.keys; ++k) {
            const Point point = row_point(call, q, k);
            const std::int64_t i = point.c[0], j = point.c[1];
            const std::int64_t at = out.offset_of(0, h, q, k);
            const std::int64_t flat = (h * call.rows + q) * call.keys + k;
            const double actual = Access::value(out, at);
            auto describe = [&](std::string kind, double ref, double got, double ratio, double bound) {
              return ElementFailure{kind, "bias", flat, {h, q, k, 0}, format_point(spec.family, point),
                                    alibi_input_text(spec, slope, point), hex_and_decimal(ref),
                                    element_text(call, out, Access::bits(out, at), got), ulps_between(got, ref, type), ratio,
                                    hex_and_decimal(bound)};
            };
            const std::string_view held = Access::sentinel_held(out, at, actual);
            if (spec.mode == AlibiMode::causal && j > i) {
              if (actual == -INFINITY) {
                tally.identical();
              } else {
                tally.fail({0, flat}, [&] { return describe(std::string(held.empty() ? "mismatch" : held), -INFINITY, actual, INFINITY, 0); });
              }
              continue;
            }
            // The bias is -m times this: i - j (symmetric: |i - j|), or anchor - j under key
            // and last-key, whose bias m(j - anchor) no query changes.
            const std::int64_t behind = measures_the_key(spec.mode) ? point.c[2] - j : i - j;
            const double distance = static_cast<double>(spec.mode == AlibiMode::symmetric && behind < 0 ? -behind : behind);
            const double expected = -slope * distance;
            const double magnitude = std::abs(expected);
            const double bound = within_claim<double>(magnitude, terms.largest)
                                     ? (magnitude * terms.relative + terms.absolute) * kBoundRounding
                                     : INFINITY;
            if (!std::isfinite(bound)) {  // outside the claim: only a sentinel is wrong
              if (held.empty())
                tally.unconstrained();
              else
                tally.fail({0, flat}, [&] { return describe(std::string(held), expected, actual, INFINITY, bound); });
              continue;
            }
            const Screened x{actual, expected, bound, magnitude * 0x1p-51, held, magnitude > 0 && bound >= magnitude};
            check_screened(x, {0, flat}, behind, type, escalation, point, static_cast<std::size_t>(h), tally,
                           [&](std::string kind, double ref, double got, double ratio) {
                             return describe(kind, ref, got, ratio, bound);
                           });
          }
        });
      }
  }
  ElementTally total;
  for (const ElementTally& tally : tallies) total.merge(tally);
  total.escalation_seconds = escalation.seconds();
  return total;
}

}  // namespace peconform::harness
