// The rotary families' geometry: R(p) is a rotation per pair (times an amplitude), R(a)R(b) =
// R(a+b), R(0) = I, R(-a) = R(a)^T, logits depend on relative position only, and the layouts,
// signs, partial rotary, mRoPE sections and 2-D axes are what DESIGN.md section 3 defines.
#include <fmt/format.h>
#include <functional>
#include <optional>

#include "properties/property.hpp"
#include "properties/rotary_support.hpp"
#include "properties/variant_relations.hpp"
#include "reference/rotary.hpp"
#include "reference/tier_bounds.hpp"

namespace peconform {
namespace {

// The families with R(a)R(b) = R(a+b): rope in `layouts`, rope2d and mRoPE in the rotating
// layouts only. Those two run the N-D relations' bodies (check_over_its_axes), which read
// element e of f(x, p) as x's element e turned; interleavedToHalfIsInterleavedThenRegrouped ties
// mRoPE's interleaved_to_half to its interleaved rotation.
rc::Gen<Spec> gen_relation_spec(const std::vector<Layout>& layouts = every_layout()) {
  return rc::gen::oneOf(gen_rotary_spec({Family::rope, all_plans(), Partial::sometimes, layouts}),
                        gen_rotary_spec({Family::mrope, {PlanKind::none, PlanKind::linear}, Partial::sometimes, rotating_layouts()}),
                        gen_rotary_spec({Family::rope2d, {PlanKind::none}, Partial::never}));
}

// Every rotary family; xPos limited to the plans whose frequencies it shares with RoPE.
rc::Gen<Spec> gen_any_rotary_spec(const std::vector<Layout>& layouts = every_layout()) {
  return rc::gen::oneOf(gen_relation_spec(layouts),
                        gen_rotary_spec({Family::xpos, {PlanKind::none, PlanKind::linear}, Partial::sometimes, layouts}));
}

// rope2d and mRoPE, whose positions have two and three axes.
bool has_several_axes(const Spec& spec) { return point_arity(spec.family) > 1; }

// How a case's tag names its scope: "all axes", "axis 1", "axes 0,2".
std::string scope_tag(const std::vector<int>& scope) {
  if (scope.empty()) return "all axes";
  if (scope.size() == 1) return fmt::format("axis {}", scope[0]);
  return fmt::format("axes {},{}", scope[0], scope[1]);
}

// rope2d and mRoPE state the relations they share with the variants through the variants' own
// N-D bodies (variant_rotary_relations.cpp): over their 2 or 3 axes, each case under a scope
// drawn from those the relation's forms allow (all axes, one axis, a pair of axes), the scopes
// `peconform properties --plugin` runs a variant's relation under one by one.
void check_over_its_axes(const VariantRelation& relation, const Evaluator& evaluator, const Spec& spec) {
  RelationSubject subject = rotary_spec_subject(evaluator, spec);
  const std::vector<std::vector<int>> scopes = axis_scopes(relation.forms, subject.axes);
  if (scopes.size() > 1) {
    subject.scope = *rc::gen::elementOf(scopes);
    RC_TAG(scope_tag(subject.scope));
  }
  relation.check(subject);
}

// A spec drawn from `specs` and tagged with its family.
Spec draw_tagged(const rc::Gen<Spec>& specs) {
  Spec spec = *specs;
  RC_TAG(std::string(family_name(spec.family)));
  return spec;
}

void rotation_preserves_norm_per_pair(const Implementation& implementation) {
  const Spec spec = draw_tagged(gen_any_rotary_spec());
  const auto evaluator = implementation.prepare(spec, gen_sequence_length());
  if (has_several_axes(spec)) return check_over_its_axes(kVariantNormPreserved, *evaluator, spec);
  const Point point = *gen_point(spec);
  RC_TAG(position_band(point.c[0]));
  const std::vector<Wide> x = finite_input(spec, static_cast<std::size_t>(spec.d));
  const Evaluation at = evaluate(*evaluator, spec, point, x);
  const Evaluation zero = evaluate(*evaluator, spec, Point{}, x);
  const auto pairs = rotary_pairs(spec);
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const std::size_t a = pairs[i].first, b = pairs[i].second;
    // xPos grows pair i by zeta_i^(+-n/scale_base), zeta_i = (2i + 0.4 d)/(1.4 d) (torchscale).
    // Formed here in binary128: zeta rounds six times (0.4, 1.4, two products, the sum, the
    // quotient), which the power multiplies by |e|, e = n/scale_base; e rounds twice (scale_base,
    // the quotient), which it multiplies by |e ln zeta| = |ln growth|; pow adds two: growth is
    // within 6|e| + 2|ln growth| + 2 units. The norms' own arithmetic adds the 8.
    Wide growth(1);
    int growth_roundings = 0;
    if (spec.family == Family::xpos) {
      const Wide dims(spec.rotary_dims());
      const Wide zeta = (Wide(2 * static_cast<int>(i)) + Wide("0.4") * dims) / (Wide("1.4") * dims);
      const Wide exponent = Wide(point.c[0]) / from_decimal<Wide>(spec.scale_base);
      growth = pow(zeta, spec.role == XposRole::query ? exponent : -exponent);
      growth_roundings = static_cast<int>(ceil(6 * abs(exponent) + 2 * abs(log(growth)))) + 2;
    }
    const Wide expected = growth * pair_norm(zero.values, a, b);
    const Wide tolerance = pair_bound(at, a, b) + growth * pair_bound(zero, a, b) + check_rounding(expected, 8 + growth_roundings);
    require_close(pair_norm(at.values, a, b), expected, tolerance, [&] {
      return Site{"|R(p)x| on each pair equals |R(0)x| (times zeta^(p/scale_base) for xPos)",
                  at.case_text(), fmt::format("pair {} (elements {}, {})", i, a, b), input_text(at, a, b), spec.dtype};
    });
  }
}

void inner_product_depends_only_on_relative_position(const Implementation& implementation) {
  const Spec spec = draw_tagged(gen_relation_spec());
  const auto evaluator = implementation.prepare(spec, gen_sequence_length());
  if (has_several_axes(spec)) return check_over_its_axes(kVariantRelativePosition, *evaluator, spec);
  const Point m = *gen_point(spec), n = *gen_point(spec);
  const std::int64_t shift = *gen_position(kLargestPosition - std::max(m.c[0], n.c[0]));
  RC_TAG(position_band(shift));
  const std::vector<Wide> q = comparable_input(spec, static_cast<std::size_t>(spec.d));
  const std::vector<Wide> k = comparable_input(spec, static_cast<std::size_t>(spec.d));
  const Evaluation qm = evaluate(*evaluator, spec, m, q), kn = evaluate(*evaluator, spec, n, k);
  const Evaluation qs = evaluate(*evaluator, spec, Point{{m.c[0] + shift}}, q);
  const Evaluation ks = evaluate(*evaluator, spec, Point{{n.c[0] + shift}}, k);
  require_equal_products_by_term(qm, kn, qs, ks, rotary_terms(spec), "<R(m)q, R(n)k> = <R(m+s)q, R(n+s)k>, pair by pair");
}

void rotations_compose_additively(const Implementation& implementation) {
  // interleaved_to_half is a rotation followed by a permutation, so applied twice it permutes
  // twice; interleavedToHalfIsInterleavedThenRegrouped ties it to a rotating layout instead.
  const Spec spec = draw_tagged(gen_any_rotary_spec(rotating_layouts()));
  const auto evaluator = implementation.prepare(spec, gen_sequence_length());
  if (has_several_axes(spec)) return check_over_its_axes(kVariantComposition, *evaluator, spec);
  const Point a = *gen_point(spec, position_limit(spec) / 2), b = *gen_point(spec, position_limit(spec) / 2);
  RC_TAG(position_band(a.c[0] + b.c[0]));
  const Point sum = add_points(a, b);
  const std::vector<Wide> x = finite_input(spec, static_cast<std::size_t>(spec.d));
  // R(a)(R(b)x) against R(a+b)(R(0)x): both carry the amplitude twice.
  const Evaluation inner = evaluate(*evaluator, spec, b, x);
  const Evaluation composed = evaluate(*evaluator, spec, a, inner.values);
  const Evaluation scaled = evaluate(*evaluator, spec, Point{}, x);
  const Evaluation direct = evaluate(*evaluator, spec, sum, scaled.values);
  const std::vector<Wide> gain_a = pair_gains(*evaluator, spec, a), gain_sum = pair_gains(*evaluator, spec, sum);
  const auto pairs = rotary_pairs(spec);
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const std::size_t ea = pairs[i].first, eb = pairs[i].second;
    // The second rotation carries the first one's error along, times its gain.
    const Wide carried = gain_a[i] * pair_bound(inner, ea, eb) + gain_sum[i] * pair_bound(scaled, ea, eb);
    for (std::size_t e : {ea, eb})
      require_close(composed.values[e], direct.values[e],
                    composed.bounds[e] + direct.bounds[e] + carried + check_rounding(abs(direct.values[e]), 4), [&] {
                      return Site{"R(a)R(b)x = R(a+b)R(0)x", composed.case_text() + " after " + inner.case_text() +
                                  " vs " + direct.case_text(), element_text(e), input_text(inner, ea, eb), spec.dtype};
                    });
  }
  for (std::size_t e : pass_through_elements(spec))
    require_identical(composed.values[e], x[e], [&] {
      return Site{"R(a)R(b) passes the non-rotary dims through", composed.case_text(), element_text(e),
                  input_text(inner, e, e), spec.dtype};
    });
}

void rotation_at_position_zero_is_the_identity(const Implementation& implementation) {
  const Spec spec = draw_tagged(gen_any_rotary_spec());
  const auto evaluator = implementation.prepare(spec, gen_sequence_length());
  if (has_several_axes(spec)) return check_over_its_axes(kVariantIdentityAtZero, *evaluator, spec);
  const std::vector<Wide> x = finite_input(spec, static_cast<std::size_t>(spec.d));
  const Evaluation zero = evaluate(*evaluator, spec, Point{}, x);
  const Evaluation unit = evaluate(*evaluator, spec, Point{}, unit_pairs_input(spec));
  const auto pairs = rotary_pairs(spec), inputs = rotary_input_pairs(spec);
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    // The amplitude A is what R(0) makes of (1, 0); R(0)x must be A x, turned by nothing (and
    // moved from where the pair is read to where it is written).
    const std::size_t a = pairs[i].first, b = pairs[i].second;
    const std::size_t in_a = inputs[i].first, in_b = inputs[i].second;
    const Wide amplitude = pair_norm(unit.values, a, b);
    for (const auto& [e, from] : {std::pair{a, in_a}, std::pair{b, in_b}})
      require_close(zero.values[e], amplitude * x[from],
                    zero.bounds[e] + pair_bound(unit, a, b) * abs(x[from]) + check_rounding(abs(zero.values[e]), 4), [&, e = e] {
                      return Site{"R(0)x = A x on every rotated pair", zero.case_text(), element_text(e),
                                  input_text(zero, in_a, in_b), spec.dtype};
                    });
  }
  for (std::size_t e : pass_through_elements(spec))
    require_identical(zero.values[e], x[e], [&] {
      return Site{"R(0) passes the non-rotary dims through", zero.case_text(), element_text(e), input_text(zero, e, e),
                  spec.dtype};
    });
}

void rotation_at_negated_position_is_the_transpose(const Implementation& implementation) {
  // Only a rotation has its inverse as its transpose (see rotations_compose_additively).
  const Spec spec = draw_tagged(gen_relation_spec(rotating_layouts()));
  const auto evaluator = implementation.prepare(spec, gen_sequence_length());
  if (has_several_axes(spec)) return check_over_its_axes(kVariantTranspose, *evaluator, spec);
  const Point a = *gen_point(spec);
  RC_TAG(position_band(a.c[0]));
  const std::vector<Wide> x = comparable_input(spec, static_cast<std::size_t>(spec.d));
  const std::vector<Wide> y = comparable_input(spec, static_cast<std::size_t>(spec.d));
  const Evaluation forward = evaluate(*evaluator, spec, a, x);
  const Evaluation backward = evaluate(*evaluator, spec, negated(a), y);
  require_equal_products_by_term(forward, unrounded(spec, y), unrounded(spec, x), backward, rotary_terms(spec),
                                 "<R(a)x, y> = <x, R(-a)y>, pair by pair");
}

// The variant relation's body (variant_rotary_relations.cpp) on a drawn spec of any family, over
// its axes.
void rotation_is_linear_in_x(const Implementation& implementation) {
  const Spec spec = draw_tagged(gen_any_rotary_spec());
  const auto evaluator = implementation.prepare(spec, gen_sequence_length());
  check_over_its_axes(kVariantLinearity, *evaluator, spec);
}

// One input x at one point, evaluated under the interleaved layout, under half on P x (P the
// regrouping that sends slice element 2i to i and 2i+1 to i+d/2, the pairs of one layout to those
// of the other), and, where asked, under interleaved_to_half: the three relate through P alone.
struct LayoutTwins {
  std::vector<std::size_t> regroup;  // P
  Evaluation interleaved, half_of_regrouped;
  std::optional<Evaluation> interleaved_to_half;
};

LayoutTwins evaluate_in_every_layout(const Implementation& implementation, const Spec& spec, bool with_interleaved_to_half) {
  Spec interleaved = spec, half = spec, regrouped = spec;
  interleaved.layout = Layout::interleaved;
  half.layout = Layout::half;
  regrouped.layout = Layout::interleaved_to_half;
  const std::int64_t length = gen_sequence_length();
  LayoutTwins twins;
  twins.regroup = pair_permutation(rotary_pairs(interleaved), rotary_pairs(half), spec.d);
  const Point point = *gen_point(spec);
  const std::vector<Wide> x = finite_input(spec, static_cast<std::size_t>(spec.d));
  std::vector<Wide> regrouped_x(x.size());
  for (std::size_t e = 0; e < x.size(); ++e) regrouped_x[twins.regroup[e]] = x[e];
  twins.interleaved = evaluate(*implementation.prepare(interleaved, length), interleaved, point, x);
  twins.half_of_regrouped = evaluate(*implementation.prepare(half, length), half, point, regrouped_x);
  if (with_interleaved_to_half)
    twins.interleaved_to_half = evaluate(*implementation.prepare(regrouped, length), regrouped, point, x);
  return twins;
}

// Requires lhs at P e to equal rhs at P e (`rhs_regrouped`) or at e, for every element e.
void require_regrouped(const Evaluation& lhs, const Evaluation& rhs, const std::vector<std::size_t>& regroup, bool rhs_regrouped,
                       const std::string& relation, Dtype dtype) {
  for (std::size_t e = 0; e < regroup.size(); ++e) {
    const std::size_t to = regroup[e], from = rhs_regrouped ? to : e;
    require_close(lhs.values[to], rhs.values[from], lhs.bounds[to] + rhs.bounds[from], [&] {
      return Site{relation, lhs.case_text() + " vs " + rhs.case_text(), element_text(to), input_text(rhs, from, from), dtype};
    });
  }
}

rc::Gen<Spec> gen_layout_twin_spec() {
  return rc::gen::oneOf(gen_rotary_spec({Family::rope, all_plans(), Partial::sometimes}),
                        gen_rotary_spec({Family::xpos, {PlanKind::none}, Partial::sometimes}),
                        gen_rotary_spec({Family::mrope, {PlanKind::none}, Partial::sometimes}));
}

void interleaved_and_half_layouts_differ_by_a_fixed_permutation(const Implementation& implementation) {
  const Spec spec = *gen_layout_twin_spec();
  RC_TAG(std::string(family_name(spec.family)));
  const LayoutTwins twins = evaluate_in_every_layout(implementation, spec, false);
  require_regrouped(twins.half_of_regrouped, twins.interleaved, twins.regroup, false, "half(P x) = P interleaved(x)", spec.dtype);
}

// DeepSeek-V3's interleaved_to_half reads pair i at (2i, 2i+1) and writes it to (i, i+d/2): it is
// the interleaved rotation followed by P, and equally the half-split rotation of P x
// (transformers' DeepSeek-V3 `apply_rotary_pos_emb_interleave` regroups first, then applies
// `rotate_half`).
void interleaved_to_half_is_interleaved_then_regrouped(const Implementation& implementation) {
  const Spec spec = *gen_layout_twin_spec();
  RC_TAG(std::string(family_name(spec.family)));
  const LayoutTwins twins = evaluate_in_every_layout(implementation, spec, true);
  require_regrouped(*twins.interleaved_to_half, twins.interleaved, twins.regroup, false,
                    "interleaved_to_half(x) = P interleaved(x)", spec.dtype);
  require_regrouped(*twins.interleaved_to_half, twins.half_of_regrouped, twins.regroup, true,
                    "interleaved_to_half(x) = half(P x)", spec.dtype);
}

void negated_sign_equals_standard_rotation_at_negated_position(const Implementation& implementation) {
  Spec plus = *gen_plain_rotary_spec();
  RC_TAG(std::string(family_name(plus.family)));
  plus.sign = 1;
  Spec minus = plus;
  minus.sign = -1;
  const std::int64_t length = gen_sequence_length();
  const auto plus_evaluator = implementation.prepare(plus, length);
  const auto minus_evaluator = implementation.prepare(minus, length);
  const Point point = *gen_point(plus);
  const std::vector<Wide> x = finite_input(plus, static_cast<std::size_t>(plus.d));
  require_same_values(evaluate(*minus_evaluator, minus, point, x), evaluate(*plus_evaluator, plus, negated(point), x),
                      "sign=-1 at p equals sign=1 at -p (nanochat)");
}

void partial_rotary_leaves_pass_through_dims_bit_identical(const Implementation& implementation) {
  const Spec spec = *rc::gen::oneOf(gen_rotary_spec({Family::rope, all_plans(), Partial::always}),
                                    gen_rotary_spec({Family::xpos, {PlanKind::none}, Partial::always}),
                                    gen_rotary_spec({Family::mrope, {PlanKind::none}, Partial::always}));
  RC_TAG(std::string(family_name(spec.family)), spec.rot_at == RotaryPlacement::first ? "rot_at=first" : "rot_at=last");
  const auto evaluator = implementation.prepare(spec, gen_sequence_length());
  // mRoPE in every layout: the body reads only the pass-through dims, which no layout moves.
  if (has_several_axes(spec)) return check_over_its_axes(kVariantPassThrough, *evaluator, spec);
  // The rotated dims finite; the pass-through dims anything, NaN and Inf included.
  std::vector<Wide> x = finite_input(spec, static_cast<std::size_t>(spec.d));
  const std::vector<Wide> wild = *gen_values(spec.dtype, x.size(), Finiteness::specials_too);
  for (std::size_t e : pass_through_elements(spec)) x[e] = wild[e];
  RC_TAG(value_kinds(wild, spec.dtype));
  const Evaluation y = evaluate(*evaluator, spec, *gen_point(spec), x);
  for (std::size_t e : pass_through_elements(spec))
    require_identical(y.values[e], x[e], [&] {
      return Site{"partial rotary passes the non-rotary dims through unchanged", y.case_text(), element_text(e),
                  input_text(y, e, e), spec.dtype};
    });
}

void partial_rotary_matches_full_rotary_of_its_slice(const Implementation& implementation) {
  const Spec spec = *gen_rotary_spec(
      {Family::rope, {PlanKind::none, PlanKind::linear, PlanKind::yarn, PlanKind::llama3, PlanKind::dynamic}, Partial::always});
  RC_TAG(spec.rot_at == RotaryPlacement::first ? "rot_at=first" : "rot_at=last");
  Spec full = spec;
  full.d = spec.rot;
  full.rot = 0;
  full.rot_at = RotaryPlacement::first;
  const std::int64_t length = gen_sequence_length();
  const auto evaluator = implementation.prepare(spec, length);
  const auto full_evaluator = implementation.prepare(full, length);
  const Point point = *gen_point(spec);
  const std::vector<Wide> x = finite_input(spec, static_cast<std::size_t>(spec.d));
  const auto start = static_cast<std::size_t>(rotary_slice(spec).start);
  const std::vector<Wide> slice(x.begin() + static_cast<std::ptrdiff_t>(start),
                                x.begin() + static_cast<std::ptrdiff_t>(start) + spec.rot);
  const Evaluation y = evaluate(*evaluator, spec, point, x);
  const Evaluation ys = evaluate(*full_evaluator, full, point, slice);
  for (std::size_t e = 0; e < slice.size(); ++e)
    require_close(y.values[start + e], ys.values[e], y.bounds[start + e] + ys.bounds[e], [&] {
      return Site{"rope(d, rot=r) on its slice equals rope(d=r); theta uses d_rot", y.case_text() + " vs " + ys.case_text(),
                  element_text(start + e), input_text(y, start + e, start + e), spec.dtype};
    });
}

void default_frequencies_form_the_base_power_series(const Implementation& implementation) {
  const Spec spec = *rc::gen::oneOf(gen_rotary_spec({Family::rope, {PlanKind::none}, Partial::sometimes}),
                                    gen_rotary_spec({Family::xpos, {PlanKind::none}, Partial::sometimes}),
                                    gen_rotary_spec({Family::mrope, {PlanKind::none}, Partial::sometimes}));
  RC_TAG(std::string(family_name(spec.family)));
  const auto evaluator = implementation.prepare(spec, 2);
  const PairAngles angles = pair_angles(*evaluator, spec, Point{{1, 1, 1}});
  const Wide base = from_decimal<Wide>(spec.base);
  for (std::size_t i = 0; i < angles.angle.size(); ++i) {
    // theta_i = base^(-2i/d_rot), turned the way the sign says.
    const Wide theta = pow(base, Wide(-2 * static_cast<int>(i)) / Wide(spec.rotary_dims()));
    require_close(angles.angle[i], Wide(spec.sign) * theta,
                  angles.tolerance[i] + check_rounding(theta, 8 + static_cast<int>(abs(log(theta)))), [&] {
                    return Site{"the angle of pair i at p=1 is sign * base^(-2i/d_rot)", angles.evaluation.case_text(),
                                fmt::format("pair {}", i), "(1, 0) on every pair", spec.dtype};
                  });
  }
}

void mrope_with_equal_axes_is_one_dimensional_rope(const Implementation& implementation) {
  const Spec mrope = *gen_rotary_spec({Family::mrope, {PlanKind::none, PlanKind::linear}, Partial::sometimes});
  RC_TAG(mrope.section_mode == SectionMode::blocked ? "blocked" : "interleaved");
  Spec rope = mrope;
  rope.family = Family::rope;
  rope.sections.clear();
  rope.section_mode = SectionMode::blocked;
  const std::int64_t length = gen_sequence_length();
  const auto mrope_evaluator = implementation.prepare(mrope, length);
  const auto rope_evaluator = implementation.prepare(rope, length);
  const std::int64_t p = *gen_position();
  RC_TAG(position_band(p));
  const std::vector<Wide> x = finite_input(mrope, static_cast<std::size_t>(mrope.d));
  require_same_values(evaluate(*mrope_evaluator, mrope, Point{{p, p, p}}, x), evaluate(*rope_evaluator, rope, Point{{p, 0, 0}}, x),
                      "mRoPE at (p, p, p) equals 1-D RoPE at p");
}

// Moves one coordinate of a point and requires every pair that another coordinate drives to stay
// where it was.
void require_other_axes_unmoved(const Implementation& implementation, const Spec& spec, int axes,
                                const std::function<int(int)>& axis_of_pair) {
  const auto evaluator = implementation.prepare(spec, gen_sequence_length());
  const Point point = *gen_point(spec);
  const int axis = *rc::gen::inRange(0, axes);
  Point moved = point;
  moved.c[static_cast<std::size_t>(axis)] = *gen_position();
  const std::vector<Wide> x = finite_input(spec, static_cast<std::size_t>(spec.d));
  const Evaluation before = evaluate(*evaluator, spec, point, x), after = evaluate(*evaluator, spec, moved, x);
  const auto pairs = rotary_pairs(spec);
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    if (axis_of_pair(static_cast<int>(i)) == axis) continue;
    for (std::size_t e : {pairs[i].first, pairs[i].second})
      require_close(after.values[e], before.values[e], after.bounds[e] + before.bounds[e], [&] {
        return Site{fmt::format("moving coordinate {} leaves the pairs of the other coordinates alone", axis),
                    after.case_text() + " vs " + before.case_text(), fmt::format("pair {}, element {}", i, e),
                    input_text(after, pairs[i].first, pairs[i].second), spec.dtype};
      });
  }
}

void mrope_pairs_follow_only_their_section_axis(const Implementation& implementation) {
  const Spec spec = *gen_rotary_spec({Family::mrope, {PlanKind::none}, Partial::sometimes});
  RC_PRE(spec.sections.size() > 1);
  RC_TAG(spec.section_mode == SectionMode::blocked ? "blocked" : "interleaved");
  require_other_axes_unmoved(implementation, spec, static_cast<int>(spec.sections.size()),
                             [&spec](int pair) { return mrope_axis(spec, pair); });
}

void axial_rope_x_pairs_ignore_y_and_y_pairs_ignore_x(const Implementation& implementation) {
  const Spec spec = *gen_rotary_spec({Family::rope2d, {PlanKind::none}, Partial::never});
  // x turns the first d/4 pairs, y the rest.
  require_other_axes_unmoved(implementation, spec, 2, [&spec](int pair) { return pair < spec.d / 4 ? 0 : 1; });
}

void xpos_logits_do_not_depend_on_the_centring_offset(const Implementation& implementation) {
  Spec query = *gen_rotary_spec({Family::xpos, {PlanKind::none, PlanKind::linear}, Partial::sometimes});
  query.role = XposRole::query;
  Spec key = query;
  key.role = XposRole::key;
  const std::int64_t length = gen_sequence_length();
  const auto query_evaluator = implementation.prepare(query, length);
  const auto key_evaluator = implementation.prepare(key, length);
  const std::int64_t half = xpos_position_limit(query) / 2;
  const std::int64_t m = *gen_position(half), n = *gen_position(half), shift = *gen_position(half);
  RC_TAG(position_band(shift));
  const std::vector<Wide> q = comparable_input(query, static_cast<std::size_t>(query.d));
  const std::vector<Wide> k = comparable_input(key, static_cast<std::size_t>(key.d));
  const Evaluation qm = evaluate(*query_evaluator, query, Point{{m}}, q), kn = evaluate(*key_evaluator, key, Point{{n}}, k);
  const Evaluation qs = evaluate(*query_evaluator, query, Point{{m + shift}}, q);
  const Evaluation ks = evaluate(*key_evaluator, key, Point{{n + shift}}, k);
  // Pair i's zeta powers cancel to zeta_i^((m-n)/scale_base) on its own, so the relation holds pair by pair.
  require_equal_products_by_term(qm, kn, qs, ks, rotary_terms(query),
                                 "<Q(m)q, K(n)k> = <Q(m+s)q, K(n+s)k>: the zeta powers cancel to zeta^((m-n)/scale_base)");
}

}  // namespace

std::vector<Property> rotary_properties() {
  return {
      {"rotationPreservesNormPerPair", "rope (every plan), xpos, mrope, rope2d", with_verdicts<rotation_preserves_norm_per_pair>,
       &kVariantNormPreserved},
      {"innerProductDependsOnlyOnRelativePosition", "rope (every plan), mrope, rope2d",
       with_verdicts<inner_product_depends_only_on_relative_position>, &kVariantRelativePosition},
      {"rotationsComposeAdditively", "rope (every plan), xpos, mrope, rope2d", with_verdicts<rotations_compose_additively>,
       &kVariantComposition},
      {"rotationAtPositionZeroIsTheIdentity", "rope (every plan), xpos, mrope, rope2d",
       with_verdicts<rotation_at_position_zero_is_the_identity>, &kVariantIdentityAtZero},
      {"rotationAtNegatedPositionIsTheTranspose", "rope (every plan), mrope, rope2d",
       with_verdicts<rotation_at_negated_position_is_the_transpose>, &kVariantTranspose},
      {"rotationIsLinearInX", "rope (every plan), xpos, mrope, rope2d", with_verdicts<rotation_is_linear_in_x>, &kVariantLinearity},
      {"interleavedAndHalfLayoutsDifferByAFixedPermutation", "rope (every plan), xpos, mrope",
       with_verdicts<interleaved_and_half_layouts_differ_by_a_fixed_permutation>},
      {"interleavedToHalfIsInterleavedThenRegrouped", "rope (every plan), xpos, mrope",
       with_verdicts<interleaved_to_half_is_interleaved_then_regrouped>},
      {"negatedSignEqualsStandardRotationAtNegatedPosition", "rope (every plan), mrope, rope2d",
       with_verdicts<negated_sign_equals_standard_rotation_at_negated_position>},
      {"partialRotaryLeavesPassThroughDimsBitIdentical", "rope (every plan), xpos, mrope",
       with_verdicts<partial_rotary_leaves_pass_through_dims_bit_identical>, &kVariantPassThrough},
      {"partialRotaryMatchesFullRotaryOfItsSlice", "rope (none, linear, yarn, llama3, dynamic)",
       with_verdicts<partial_rotary_matches_full_rotary_of_its_slice>},
      {"defaultFrequenciesFormTheBasePowerSeries", "rope, xpos, mrope", with_verdicts<default_frequencies_form_the_base_power_series>},
      {"mropeWithEqualAxesIsOneDimensionalRope", "mrope (blocked, interleaved)", with_verdicts<mrope_with_equal_axes_is_one_dimensional_rope>},
      {"mropePairsFollowOnlyTheirSectionAxis", "mrope (blocked, interleaved)", with_verdicts<mrope_pairs_follow_only_their_section_axis>},
      {"axialRopeXPairsIgnoreYAndYPairsIgnoreX", "rope2d", with_verdicts<axial_rope_x_pairs_ignore_y_and_y_pairs_ignore_x>},
      {"xposLogitsDoNotDependOnTheCentringOffset", "xpos", with_verdicts<xpos_logits_do_not_depend_on_the_centring_offset>},
  };
}

}  // namespace peconform
