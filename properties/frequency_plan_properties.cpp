// The frequency plans of Hugging Face's modeling_rope_utils, held to their defining identities:
// linear scaling is default RoPE at p/factor, YaRN at factor 1 and dynamic NTK within the
// original length are default RoPE, and llama3 is continuous at its band edges and keeps the
// frequencies decreasing (../shared/notes/variants.md section 3).
#include <boost/math/constants/constants.hpp>
#include <fmt/format.h>

#include "properties/property.hpp"
#include "properties/rotary_support.hpp"
#include "reference/real_types.hpp"

namespace peconform {
namespace {

Spec without_scaling(Spec spec) {
  spec.scaling = FrequencyPlan{};
  return spec;
}

// Evaluates `scaled` at `scaled_point` and its default-RoPE twin at `default_point` on one input.
void require_equal_to_default(const Implementation& implementation, const Spec& scaled, std::int64_t length,
                              const Point& scaled_point, const Point& default_point, const std::string& relation) {
  const Spec plain = without_scaling(scaled);
  const auto scaled_evaluator = implementation.prepare(scaled, length);
  const auto plain_evaluator = implementation.prepare(plain, length);
  const std::vector<Wide> x = finite_input(scaled, static_cast<std::size_t>(scaled.d));
  require_same_values(evaluate(*scaled_evaluator, scaled, scaled_point, x),
                      evaluate(*plain_evaluator, plain, default_point, x), relation);
}

void linear_scaling_equals_default_at_scaled_position(const Implementation& implementation) {
  Spec spec = *gen_rotary_spec({Family::rope, {PlanKind::linear}, Partial::sometimes});
  const int factor = *rc::gen::inRange(1, 17);
  spec.scaling.factor = Decimal(factor);  // an integer factor keeps p/factor a position
  const std::int64_t q = *gen_position(kLargestPosition / factor);
  RC_TAG(position_band(q));
  require_equal_to_default(implementation, spec, gen_sequence_length(), Point{{q * factor}}, Point{{q}},
                           "linear(factor=f) at f*q equals default RoPE at q");
}

void yarn_with_factor_one_is_default_rope(const Implementation& implementation) {
  Spec spec = *gen_rotary_spec({Family::rope, {PlanKind::yarn}, Partial::sometimes});
  spec.scaling.factor = Decimal(1);
  const std::int64_t length = gen_sequence_length();
  RC_TAG(length > spec.scaling.orig ? "length > orig" : "length <= orig");
  const Point point = *gen_point(spec);
  require_equal_to_default(implementation, spec, length, point, point, "yarn(factor=1) equals default RoPE");
}

void dynamic_ntk_is_default_within_the_original_length(const Implementation& implementation) {
  const Spec spec = *gen_rotary_spec({Family::rope, {PlanKind::dynamic}, Partial::sometimes});
  const std::int64_t length = *rc::gen::inRange<std::int64_t>(1, spec.scaling.orig + 1);
  const Point point = *gen_point(spec);
  require_equal_to_default(implementation, spec, length, point, point,
                           "dynamic(factor, orig) at sequence length <= orig equals default RoPE");
}

// llama3's bands, with the wavelength of pair i placed just either side of one band edge: the
// two specs differ in `low` (or `high`) by 2 eps relative, moving pair i between the divided
// (or kept) band and the smoothed one. With smooth = (orig/lambda - low)/(high - low) the
// frequency then moves by theta (1 - 1/factor) times at most 1.5 eps (low edge: eps e/(2e);
// high edge: eps e/(2e/3)); the property allows 2 eps theta, the rest covering the decimal text
// of the edges.
void llama3_frequencies_are_continuous_at_both_band_edges(const Implementation& implementation) {
  Spec spec = *gen_rotary_spec({Family::rope, {PlanKind::llama3}, Partial::sometimes});
  spec.scaling.factor = Decimal(*rc::gen::inRange(2, 33));
  const int pairs = spec.rotary_dims() / 2;
  const int pair = *rc::gen::inRange(0, pairs);
  const bool low_edge = *rc::gen::arbitrary<bool>();
  RC_TAG(low_edge ? "low edge" : "high edge");
  const Wide theta = pow(from_decimal<Wide>(spec.base), Wide(-2 * pair) / Wide(spec.rotary_dims()));
  const Wide edge = Wide(spec.scaling.orig) * theta / boost::math::constants::two_pi<Wide>();
  const Wide eps("1e-9");
  auto decimal = [](const Wide& value) { return Decimal::parse(to_decimal_string(value, 30)); };
  Spec outside = spec, inside = spec;
  if (low_edge) {
    outside.scaling.low = decimal(edge * (1 + eps));  // pair divided by the factor
    inside.scaling.low = decimal(edge * (1 - eps));   // pair smoothed
    outside.scaling.high = inside.scaling.high = decimal(edge * 3);
  } else {
    outside.scaling.high = decimal(edge * (1 - eps));  // pair kept
    inside.scaling.high = decimal(edge * (1 + eps));   // pair smoothed
    outside.scaling.low = inside.scaling.low = decimal(edge / 3);
  }
  const auto outside_evaluator = implementation.prepare(outside, 2);
  const auto inside_evaluator = implementation.prepare(inside, 2);
  std::vector<Wide> x(static_cast<std::size_t>(spec.d), Wide(0));
  const auto [a, b] = rotary_pairs(spec)[static_cast<std::size_t>(pair)];
  x[rotary_input_pairs(spec)[static_cast<std::size_t>(pair)].first] = 1;
  const Evaluation y_out = evaluate(*outside_evaluator, outside, Point{{1}}, x);
  const Evaluation y_in = evaluate(*inside_evaluator, inside, Point{{1}}, x);
  const Wide amplitude = pair_norm(y_out.values, a, b) + pair_bound(y_out, a, b);
  for (std::size_t e : {a, b})
    require_close(y_in.values[e], y_out.values[e], amplitude * 2 * eps * theta + y_in.bounds[e] + y_out.bounds[e], [&] {
      return Site{"llama3's frequency is continuous across a band edge", y_in.case_text() + " vs " + y_out.case_text(),
                  fmt::format("pair {}, element {}", pair, e), "(1, 0) on that pair", spec.dtype};
    });
}

void llama3_keeps_frequencies_decreasing(const Implementation& implementation) {
  const Spec spec = *gen_rotary_spec({Family::rope, {PlanKind::llama3}, Partial::sometimes});
  const auto evaluator = implementation.prepare(spec, 2);
  const PairAngles angles = pair_angles(*evaluator, spec, Point{{1}});
  for (std::size_t i = 1; i < angles.angle.size(); ++i) {
    const Wide previous = Wide(spec.sign) * angles.angle[i - 1], current = Wide(spec.sign) * angles.angle[i];
    require_at_most(current, previous + angles.tolerance[i - 1] + angles.tolerance[i], [&] {
      return Site{"llama3 frequencies decrease with the pair index", angles.evaluation.case_text(),
                  fmt::format("pairs {} and {}", i - 1, i), "(1, 0) on every pair", spec.dtype};
    });
  }
}

}  // namespace

std::vector<Property> frequency_plan_properties() {
  return {
      {"linearScalingEqualsDefaultAtScaledPosition", "rope linear", linear_scaling_equals_default_at_scaled_position},
      {"yarnWithFactorOneIsDefaultRope", "rope yarn", yarn_with_factor_one_is_default_rope},
      {"dynamicNtkIsDefaultWithinTheOriginalLength", "rope dynamic", dynamic_ntk_is_default_within_the_original_length},
      {"llama3FrequenciesAreContinuousAtBothBandEdges", "rope llama3", llama3_frequencies_are_continuous_at_both_band_edges},
      {"llama3KeepsFrequenciesDecreasing", "rope llama3", llama3_keeps_frequencies_decreasing},
  };
}

}  // namespace peconform
