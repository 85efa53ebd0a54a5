// The frequency plans of Hugging Face's modeling_rope_utils, held to their defining identities:
// linear scaling is default RoPE at p/factor, YaRN at factor 1 and dynamic NTK within the
// original length are default RoPE, and llama3 is continuous at its band edges and keeps the
// frequencies decreasing; past the degenerate regimes, YaRN's frequencies follow its ramp and
// its attention factor scales every pair, dynamic NTK is default RoPE with the grown base,
// llama3's outer bands are default and linear RoPE at every position, and LongRoPE switches
// from its short to its long factors only past the original length
// (../shared/notes/variants.md section 3).
#include <boost/math/constants/constants.hpp>
#include <fmt/format.h>

#include <algorithm>

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

// A decimal with two places in [lo, hi) hundredths.
Decimal gen_hundredths(int lo, int hi) {
  const int hundredths = *rc::gen::inRange(lo, hi);
  return Decimal::parse(fmt::format("{}.{:02d}", hundredths / 100, hundredths % 100));
}

// A scaling factor above 1, where YaRN leaves the default frequencies.
Decimal gen_factor_above_one() { return gen_hundredths(101, 4000); }

Spec with_linear_scaling(const Spec& spec, const Decimal& factor) {
  Spec linear = without_scaling(spec);
  linear.scaling.kind = PlanKind::linear;
  linear.scaling.factor = factor;
  return linear;
}

// YaRN's ramp ends (low, high) in pair indices, as transformers' _compute_yarn_parameters forms
// them: find_correction_dim(r) = d ln(L0/(2 pi r)) / (2 ln base) for beta_fast and beta_slow
// full turns, floored and ceiled unless `truncate` is false, clamped to [0, d-1], and high moved
// 0.001 past low when the two meet (linear_ramp_factor).
std::pair<Wide, Wide> yarn_ramp_ends(const Spec& spec) {
  const FrequencyPlan& plan = spec.scaling;
  const Wide dims(spec.rotary_dims());
  const Wide log_base = log(from_decimal<Wide>(spec.base));
  auto correction_dim = [&](const Decimal& rotations) {
    return dims * log(Wide(plan.orig) / (from_decimal<Wide>(rotations) * boost::math::constants::two_pi<Wide>())) /
           (2 * log_base);
  };
  Wide low = correction_dim(plan.beta_fast), high = correction_dim(plan.beta_slow);
  if (plan.truncate) {
    low = floor(low);
    high = ceil(high);
  }
  low = std::max(low, Wide(0));
  high = std::min(high, dims - 1);
  if (low == high) high += Wide("0.001");
  return {low, high};
}

// transformers' get_mscale(s, m): 1 for s <= 1, else 0.1 m ln s + 1.
Wide yarn_get_mscale(const Wide& scale, const Wide& mscale) {
  return scale <= 1 ? Wide(1) : Wide("0.1") * mscale * log(scale) + 1;
}

// YaRN's frequency for pair i is inv_interp (1 - ext) + inv_extrap ext with ext = 1 - ramp_i,
// ramp_i = clamp((i - low)/(high - low), 0, 1): the default frequency below `low`, the linear
// one (default/factor) above `high`, and between them a blend whose weight is linear in i
// (transformers' _compute_yarn_parameters). Read at p = 1, where each angle is the frequency.
void yarn_frequencies_follow_the_ramp_from_default_to_linear(const Implementation& implementation) {
  Spec spec = *gen_rotary_spec({Family::rope, {PlanKind::yarn}, Partial::sometimes});
  spec.scaling.factor = gen_factor_above_one();
  const Spec plain = without_scaling(spec), linear = with_linear_scaling(spec, spec.scaling.factor);
  const std::pair<Wide, Wide> ramp_ends = yarn_ramp_ends(spec);
  const Wide low = ramp_ends.first, high = ramp_ends.second;
  const auto yarn_evaluator = implementation.prepare(spec, 2);
  const auto plain_evaluator = implementation.prepare(plain, 2);
  const auto linear_evaluator = implementation.prepare(linear, 2);
  const PairAngles yarn = pair_angles(*yarn_evaluator, spec, Point{{1}});
  const PairAngles extrapolated = pair_angles(*plain_evaluator, plain, Point{{1}});
  const PairAngles interpolated = pair_angles(*linear_evaluator, linear, Point{{1}});
  bool blended = false;
  for (std::size_t i = 0; i < yarn.angle.size(); ++i) {
    const Wide ramp = std::clamp((Wide(static_cast<int>(i)) - low) / (high - low), Wide(0), Wide(1));
    blended = blended || (ramp > 0 && ramp < 1);
    const Wide expected = extrapolated.angle[i] * (1 - ramp) + interpolated.angle[i] * ramp;
    const Wide tolerance = yarn.tolerance[i] + (1 - ramp) * extrapolated.tolerance[i] + ramp * interpolated.tolerance[i] +
                           check_rounding(abs(extrapolated.angle[i]), 8);
    require_close(yarn.angle[i], expected, tolerance, [&] {
      return Site{fmt::format("yarn's frequency is default (1 - ramp) + default/factor ramp, ramp = clamp((i - {})/({} - {}), 0, 1)",
                              static_cast<double>(low), static_cast<double>(high), static_cast<double>(low)),
                  yarn.evaluation.case_text() + " vs " + extrapolated.evaluation.case_text() + " and " +
                      interpolated.evaluation.case_text(),
                  fmt::format("pair {} (ramp {})", i, static_cast<double>(ramp)), "(1, 0) on every pair", spec.dtype};
    });
  }
  RC_TAG(blended ? "pairs inside the ramp" : "no pair inside the ramp");
}

// transformers' _compute_yarn_parameters returns attention_factor: the configured one, else
// get_mscale(s, mscale)/get_mscale(s, mscale_all_dim) when both are set (DeepSeek), else
// get_mscale(s) = 0.1 ln s + 1; the rotary module multiplies cos and sin by it, so every
// rotated pair's norm is amp * attention_factor * |x_pair|.
void yarn_scales_every_pair_by_its_attention_factor(const Implementation& implementation) {
  Spec spec = *gen_rotary_spec({Family::rope, {PlanKind::yarn}, Partial::sometimes});
  spec.scaling.factor = gen_factor_above_one();
  FrequencyPlan& plan = spec.scaling;
  const Wide factor = from_decimal<Wide>(plan.factor);
  Wide attention = yarn_get_mscale(factor, Wide(1));
  switch (*uniform_in(0, 3)) {  // each form in a third of the cases
    case 0: RC_TAG("0.1 ln s + 1"); break;
    case 1:
      // Positive: transformers tests `if mscale and mscale_all_dim`, so a zero falls back to get_mscale(s).
      plan.mscale = gen_hundredths(1, 200);
      plan.mscale_all_dim = gen_hundredths(1, 200);
      attention = yarn_get_mscale(factor, from_decimal<Wide>(*plan.mscale)) /
                  yarn_get_mscale(factor, from_decimal<Wide>(*plan.mscale_all_dim));
      RC_TAG("mscale / mscale_all_dim");
      break;
    default:
      plan.attention = gen_hundredths(1, 300);
      attention = from_decimal<Wide>(*plan.attention);
      RC_TAG("configured attention_factor");
  }
  const Wide amplitude = from_decimal<Wide>(spec.amp) * attention;
  const auto evaluator = implementation.prepare(spec, gen_sequence_length());
  const Point point = *gen_point(spec);
  RC_TAG(position_band(point.c[0]));
  const std::vector<Wide> x = finite_input(spec, static_cast<std::size_t>(spec.d));
  const Evaluation y = evaluate(*evaluator, spec, point, x);
  const auto pairs = rotary_pairs(spec), read = rotary_input_pairs(spec);
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const std::size_t a = pairs[i].first, b = pairs[i].second;
    const std::size_t xa = read[i].first, xb = read[i].second;
    const Wide expected = amplitude * pair_norm(x, xa, xb);
    require_close(pair_norm(y.values, a, b), expected, pair_bound(y, a, b) + check_rounding(expected, 16), [&] {
      return Site{fmt::format("|R(p)x| on each pair is amp * attention_factor ({}) * |x|", static_cast<double>(attention)),
                  y.case_text(), fmt::format("pair {} (elements {}, {})", i, a, b), input_text(y, xa, xb), spec.dtype};
    });
  }
}

// transformers' _compute_dynamic_ntk_parameters: past the original length L0 the base grows to
// base' = base ((factor L/L0) - (factor - 1))^(d/(d-2)) for a sequence of length L, and the
// frequencies are the default ones of base'. base' is irrational, so the default twin takes it
// as 36 significant digits of its binary128 value, off by a relative delta: the rounding terms
// below (each u = 2^-113) carried through x = a - b, x^e and base x^e, plus the decimal text
// (0.5e-35, below u). A base off by delta turns pair i's frequency by (2i/d) delta theta_i <= delta
// theta_i, so its angle at p by at most p theta_i delta, and the pair's elements by A r p
// theta_i delta (a rotation moves a vector of norm A r by at most A r times the angle).
void dynamic_ntk_past_the_original_length_is_default_rope_with_the_grown_base(const Implementation& implementation) {
  const Spec spec = *gen_rotary_spec({Family::rope, {PlanKind::dynamic}, Partial::sometimes});
  RC_PRE(spec.scaling.kind == PlanKind::dynamic);  // the generator drops the plan where d_rot = 2 makes d/(d-2) infinite
  const std::int64_t orig = spec.scaling.orig;
  const std::int64_t length = orig + 1 + *gen_position(kLargestPosition - orig);
  RC_TAG(position_band(length));
  const int dims = spec.rotary_dims();
  const Wide factor = from_decimal<Wide>(spec.scaling.factor), base = from_decimal<Wide>(spec.base);
  const Wide a = factor * Wide(length) / Wide(orig), b = factor - 1, x = a - b;
  const Wide exponent = Wide(dims) / Wide(dims - 2);
  const Wide grown = base * pow(x, exponent);
  // To first order in u: a carries factor's conversion and 2 roundings, b = factor - 1 the
  // conversion (u factor = u (b + 1)) and its own, x one more; e's rounding moves x^e by
  // e |ln x| u; then base's conversion, pow (2u), the product and the text.
  const Wide x_error = kCheckUnit * (3 * a + 2 * b + 1 + x) / x;
  const Wide delta = exponent * (x_error + abs(log(x)) * kCheckUnit) + 5 * kCheckUnit;
  Spec plain = without_scaling(spec);
  plain.base = Decimal::parse(to_decimal_string(grown, 36));
  const auto dynamic_evaluator = implementation.prepare(spec, length);
  const auto plain_evaluator = implementation.prepare(plain, length);
  const Point point = *gen_point(spec, length - 1);
  const std::vector<Wide> input = finite_input(spec, static_cast<std::size_t>(spec.d));
  const Evaluation y = evaluate(*dynamic_evaluator, spec, point, input);
  const Evaluation twin = evaluate(*plain_evaluator, plain, point, input);
  const Wide amp = from_decimal<Wide>(spec.amp);
  const auto pairs = rotary_pairs(spec), read = rotary_input_pairs(spec);
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const std::size_t ea = pairs[i].first, eb = pairs[i].second;
    const std::size_t xa = read[i].first, xb = read[i].second;
    const Wide theta = pow(grown, Wide(-2 * static_cast<int>(i)) / Wide(dims));
    const Wide base_rounding = amp * pair_norm(input, xa, xb) * Wide(point.c[0]) * theta * delta;
    for (std::size_t e : {ea, eb})
      require_close(y.values[e], twin.values[e],
                    y.bounds[e] + twin.bounds[e] + base_rounding + check_rounding(abs(twin.values[e]), 2), [&] {
                      return Site{"dynamic(factor, orig) at length L > orig is default RoPE with base ((factor L/orig) - "
                                  "(factor - 1))^(d/(d-2)) times base",
                                  y.case_text() + " vs " + twin.case_text(), element_text(e), input_text(y, xa, xb), spec.dtype};
                    });
  }
  for (std::size_t e : pass_through_elements(spec))
    require_identical(y.values[e], twin.values[e], [&] {
      return Site{"dynamic NTK passes the non-rotary dims through", y.case_text(), element_text(e), input_text(y, e, e),
                  spec.dtype};
    });
}

enum class Llama3Region { kept, smoothed, divided };

// transformers' _compute_llama3_parameters: with wavelength 2 pi/theta_i, pairs shorter than
// L_old/high_freq_factor keep theta_i, pairs longer than L_old/low_freq_factor take
// theta_i/factor, and only the band between is smoothed.
std::vector<Llama3Region> llama3_regions(const Spec& spec) {
  const Wide orig(spec.scaling.orig), base = from_decimal<Wide>(spec.base);
  const Wide low_wavelength = orig / from_decimal<Wide>(spec.scaling.low);
  const Wide high_wavelength = orig / from_decimal<Wide>(spec.scaling.high);
  std::vector<Llama3Region> bands;
  for (int i = 0; i < spec.rotary_dims() / 2; ++i) {
    const Wide wavelength = boost::math::constants::two_pi<Wide>() / pow(base, Wide(-2 * i) / Wide(spec.rotary_dims()));
    bands.push_back(wavelength < high_wavelength  ? Llama3Region::kept
                    : wavelength > low_wavelength ? Llama3Region::divided
                                                  : Llama3Region::smoothed);
  }
  return bands;
}

// At every position, not only p = 1: llama3's kept pairs are default RoPE's and its divided
// pairs are linear(factor) RoPE's, element for element, on the same input.
void llama3_outer_bands_are_default_and_linear_rope_at_every_position(const Implementation& implementation) {
  const Spec spec = *gen_rotary_spec({Family::rope, {PlanKind::llama3}, Partial::sometimes});
  const Spec plain = without_scaling(spec), linear = with_linear_scaling(spec, spec.scaling.factor);
  const std::vector<Llama3Region> bands = llama3_regions(spec);
  const bool any_kept = std::count(bands.begin(), bands.end(), Llama3Region::kept) > 0;
  const bool any_divided = std::count(bands.begin(), bands.end(), Llama3Region::divided) > 0;
  RC_TAG(any_kept && any_divided ? "kept and divided pairs"
         : any_kept               ? "kept pairs, no divided ones"
         : any_divided            ? "divided pairs, no kept ones"
                                  : "smoothed pairs only");
  const Point point = *gen_point(spec);
  RC_TAG(position_band(point.c[0]));
  const std::vector<Wide> x = finite_input(spec, static_cast<std::size_t>(spec.d));
  const Evaluation y = evaluate(*implementation.prepare(spec, 2), spec, point, x);
  // A twin is evaluated only where some pair is held to it.
  auto twin_of = [&](const Spec& twin, bool needed) {
    return needed ? evaluate(*implementation.prepare(twin, 2), twin, point, x) : Evaluation{};
  };
  const Evaluation kept = twin_of(plain, any_kept), divided = twin_of(linear, any_divided);
  const auto pairs = rotary_pairs(spec), read = rotary_input_pairs(spec);
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    if (bands[i] == Llama3Region::smoothed) continue;
    const Evaluation& twin = bands[i] == Llama3Region::kept ? kept : divided;
    for (std::size_t e : {pairs[i].first, pairs[i].second})
      require_close(y.values[e], twin.values[e], y.bounds[e] + twin.bounds[e] + check_rounding(abs(twin.values[e]), 2), [&] {
        return Site{bands[i] == Llama3Region::kept ? "llama3's pairs with wavelength < orig/high are default RoPE's"
                                                 : "llama3's pairs with wavelength > orig/low are linear(factor) RoPE's",
                    y.case_text() + " vs " + twin.case_text(), fmt::format("pair {}, element {}", i, e),
                    input_text(y, read[i].first, read[i].second), spec.dtype};
      });
  }
}

// transformers' _compute_longrope_parameters (and Phi-3's Phi3LongRoPEScaledRotaryEmbedding)
// take long_factor when seq_len > original_max_position_embeddings, seq_len = max(position_ids)
// + 1, and short_factor otherwise: a call of length orig still uses the short factors. Either
// way theta_i = default theta_i / ext_i, and cos and sin carry attention_factor (configured, or
// sqrt(1 + ln factor / ln orig) for factor > 1, else 1). So LongRoPE at length L is the custom
// plan of those factors times the attention factor, checked at L = orig - 1, orig, orig + 1.
void longrope_switches_to_long_factors_only_past_the_original_length(const Implementation& implementation) {
  const Spec spec = *gen_rotary_spec({Family::rope, {PlanKind::longrope}, Partial::sometimes});
  const FrequencyPlan& plan = spec.scaling;
  const std::int64_t length = plan.orig + *rc::gen::inRange(-1, 2);
  const bool long_factors = length > plan.orig;
  RC_TAG(length < plan.orig ? "orig - 1" : length == plan.orig ? "orig" : "orig + 1");
  Spec twin = without_scaling(spec);
  twin.scaling.kind = PlanKind::custom;
  twin.scaling.factors = long_factors ? plan.long_factors : plan.short_factors;
  // A custom plan takes the exact float32 recipe alone; each side is held to its own bound.
  twin.theta = ThetaRecipe::exact;
  const Wide factor = from_decimal<Wide>(plan.factor);
  const Wide attention = plan.attention ? from_decimal<Wide>(*plan.attention)
                         : factor > 1   ? sqrt(1 + log(factor) / log(Wide(plan.orig)))
                                        : Wide(1);
  const Point point = *gen_point(spec, length - 1);
  const std::vector<Wide> x = finite_input(spec, static_cast<std::size_t>(spec.d));
  const Evaluation y = evaluate(*implementation.prepare(spec, length), spec, point, x);
  const Evaluation custom = evaluate(*implementation.prepare(twin, length), twin, point, x);
  const auto pairs = rotary_pairs(spec), read = rotary_input_pairs(spec);
  for (std::size_t i = 0; i < pairs.size(); ++i)
    for (std::size_t e : {pairs[i].first, pairs[i].second}) {
      const Wide expected = attention * custom.values[e];
      require_close(y.values[e], expected, y.bounds[e] + attention * custom.bounds[e] + check_rounding(abs(expected), 16), [&] {
        return Site{fmt::format("longrope at length {} (orig {}) is custom(factors = {}) times attention {}", length,
                                plan.orig, long_factors ? "long_factor" : "short_factor", static_cast<double>(attention)),
                    y.case_text() + " vs " + custom.case_text(), element_text(e), input_text(y, read[i].first, read[i].second),
                    spec.dtype};
      });
    }
  for (std::size_t e : pass_through_elements(spec))
    require_identical(y.values[e], x[e], [&] {
      return Site{"longrope passes the non-rotary dims through", y.case_text(), element_text(e), input_text(y, e, e),
                  spec.dtype};
    });
}

}  // namespace

std::vector<Property> frequency_plan_properties() {
  return {
      {"linearScalingEqualsDefaultAtScaledPosition", "rope linear", linear_scaling_equals_default_at_scaled_position},
      {"yarnWithFactorOneIsDefaultRope", "rope yarn", yarn_with_factor_one_is_default_rope},
      {"dynamicNtkIsDefaultWithinTheOriginalLength", "rope dynamic", dynamic_ntk_is_default_within_the_original_length},
      {"llama3FrequenciesAreContinuousAtBothBandEdges", "rope llama3", llama3_frequencies_are_continuous_at_both_band_edges},
      {"llama3KeepsFrequenciesDecreasing", "rope llama3", llama3_keeps_frequencies_decreasing},
      {"yarnFrequenciesFollowTheRampFromDefaultToLinear", "rope yarn (factor > 1)",
       with_verdicts<yarn_frequencies_follow_the_ramp_from_default_to_linear>},
      {"yarnScalesEveryPairByItsAttentionFactor", "rope yarn (factor > 1; every attention_factor form)",
       with_verdicts<yarn_scales_every_pair_by_its_attention_factor>},
      {"dynamicNtkPastTheOriginalLengthIsDefaultRopeWithTheGrownBase", "rope dynamic (length > orig)",
       with_verdicts<dynamic_ntk_past_the_original_length_is_default_rope_with_the_grown_base>},
      {"llama3OuterBandsAreDefaultAndLinearRopeAtEveryPosition", "rope llama3",
       with_verdicts<llama3_outer_bands_are_default_and_linear_rope_at_every_position>},
      {"longropeSwitchesToLongFactorsOnlyPastTheOriginalLength", "rope longrope (length orig - 1, orig, orig + 1)",
       with_verdicts<longrope_switches_to_long_factors_only_past_the_original_length>},
  };
}

}  // namespace peconform
