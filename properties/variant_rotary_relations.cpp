// The rotary relations that need only the implementation f(x, p): DESIGN.md section 4's
// geometry stated of f alone, with A the declared amplitude, over positions p in Z^N (N the
// declared axes; N = 1 draws exactly the cases the one-axis relations always drew). For N > 1,
// R(p) = exp(sum_a p_a G_a) with skew-symmetric generators G_a is relative (<R(m)q, R(n)k> a
// function of n - m) and composes (R(a)R(b) = R(a + b)) exactly when the generators commute
// (Liu et al. 2025, "Rethinking RoPE: a mathematical blueprint for N-dimensional positional
// embedding"); along one axis alone both hold for any generator, across two axes they need that
// pair to commute, which is why those relations also run per axis and per pair of axes. Each
// tolerance is the sum of the bounds (variant_subject.hpp) of the evaluations it compares,
// carried through the relation as written beside it, plus the properties' own binary128
// rounding (check_rounding).
#include <fmt/format.h>

#include <algorithm>
#include <ostream>

#include "precision/format_constants.hpp"
#include "properties/generators.hpp"
#include "properties/variant_relations.hpp"

namespace peconform {
namespace {

using Coordinates = std::vector<std::int64_t>;

AxesPoint at(Coordinates position) { return AxesPoint{std::move(position), {}}; }
Coordinates origin(const RelationSubject& subject) { return Coordinates(static_cast<std::size_t>(subject.axes), 0); }

Coordinates plus(Coordinates a, const Coordinates& b) {
  for (std::size_t axis = 0; axis < a.size(); ++axis) a[axis] += b[axis];
  return a;
}

Coordinates negated(Coordinates a) {
  for (std::int64_t& coordinate : a) coordinate = -coordinate;
  return a;
}

// The largest coordinate, for RC_TAG's position band.
std::int64_t largest(const Coordinates& position) { return *std::max_element(position.begin(), position.end()); }

// The axes a relation moves along: the subject's scope, or every axis.
std::vector<int> moved_axes(const RelationSubject& subject) {
  if (!subject.scope.empty()) return subject.scope;
  std::vector<int> every(static_cast<std::size_t>(subject.axes));
  for (int axis = 0; axis < subject.axes; ++axis) every[static_cast<std::size_t>(axis)] = axis;
  return every;
}

// A position that moves only along `axes`, each coordinate as gen_position(half its axis's
// limit) draws it, so that the sum of two stays in range.
Coordinates draw_half_along(const RelationSubject& subject, const std::vector<int>& axes) {
  Coordinates position = origin(subject);
  for (int axis : axes) {
    const auto a = static_cast<std::size_t>(axis);
    position[a] = *gen_position(subject.position_limits[a] / 2);
  }
  return position;
}

int rotated_dims(const VariantDeclaration& declaration) { return declaration.rot == 0 ? declaration.d : declaration.rot; }

std::string needs_a_rotated_pair(const VariantDeclaration& declaration) {
  if (rotated_dims(declaration) >= 2) return "";
  return fmt::format("only {} element is rotated: no pair turns, so the relation could not fail on any rotation",
                     rotated_dims(declaration));
}

std::string applies_always(const VariantDeclaration&) { return ""; }

std::vector<std::size_t> pass_through(const RelationSubject& subject) { return pass_through_elements(subject.carrier); }

// Each group of rotated elements, then each pass-through element alone: a rotation acts group
// by group, so an inner-product relation holds term by term (rotary_terms in checks.hpp).
std::vector<std::vector<std::size_t>> terms_of(const RelationSubject& subject) {
  std::vector<std::vector<std::size_t>> terms = subject.groups;
  for (std::size_t e : pass_through(subject)) terms.push_back({e});
  return terms;
}

// " along axis 1", " across axes 0 and 2": which axes a relation's failure moved along.
std::string axes_text(const RelationSubject& subject) {
  if (subject.scope.size() == 1) return fmt::format(" along axis {}", subject.scope[0]);
  if (subject.scope.size() == 2) return fmt::format(" across axes {} and {} (a along {}, b along {})", subject.scope[0],
                                                    subject.scope[1], subject.scope[0], subject.scope[1]);
  return "";
}

std::string group_text(const std::vector<std::size_t>& group) {
  return group.size() == 2 ? fmt::format("pair (elements {}, {})", group[0], group[1])
                           : fmt::format("the rotated elements {}..{}", group.front(), group.back());
}

// |f(x, p)| = A |x| on each group. The norm of the observed group is off by at most the norm of
// its error vector, |(B_e)_e in group|; A |x| is exact but for the check's own rounding.
void norm_preserved(const RelationSubject& subject) {
  const std::vector<Wide> x = finite_input(subject.carrier, static_cast<std::size_t>(subject.carrier.d));
  const AxesPoint p = at(draw_position(subject.position_limits));
  RC_TAG(position_band(largest(p.position)));
  const Evaluation y = subject.evaluate(p, x);
  for (const std::vector<std::size_t>& group : subject.groups) {
    const Wide expected = subject.amplitude * group_norm(x, group);
    const Wide tolerance = group_norm(y.bounds, group) + check_rounding(expected, 8 + static_cast<int>(group.size()));
    require_close(group_norm(y.values, group), expected, tolerance, [&] {
      return Site{"|f(x, p)| = A |x| on each rotated pair (the whole rotated slice when the pairing is unknown)",
                  subject.case_text(p), group_text(group), input_text(y, group.front(), group.back()), subject.carrier.dtype};
    });
  }
}

// <f(q, m), f(k, n)> = <f(q, m + s), f(k, n + s)>: both sides are A^2 <q, R(n - m) k> for
// commuting generators. m and n move on every axis; the shift s only along the scope's axes.
void relative_position(const RelationSubject& subject) {
  const Coordinates m = draw_position(subject.position_limits), n = draw_position(subject.position_limits);
  Coordinates shift = origin(subject);
  for (int axis : moved_axes(subject)) {
    const auto a = static_cast<std::size_t>(axis);
    shift[a] = *gen_position(subject.position_limits[a] - std::max(m[a], n[a]));
  }
  RC_TAG(position_band(largest(shift)));
  const auto d = static_cast<std::size_t>(subject.carrier.d);
  const std::vector<Wide> q = comparable_input(subject.carrier, d), k = comparable_input(subject.carrier, d);
  const AxesPoint qm = at(m), kn = at(n), qs = at(plus(m, shift)), ks = at(plus(n, shift));
  require_equal_products_by_term(subject.evaluate(qm, q), subject.evaluate(kn, k), subject.evaluate(qs, q), subject.evaluate(ks, k),
                                 terms_of(subject), "<f(q, m), f(k, n)> = <f(q, m+s), f(k, n+s)>, group by group" + axes_text(subject),
                                 subject.case_text({qm, kn, qs, ks}) + " (m; n; m + s; n + s)");
}

// f(f(x, b), a) = f(f(x, 0), a + b): both are A^2 R(a + b) x. a and b move on every axis, or
// both along the scope's one axis, or a along the scope's first axis and b along its second
// (R(a e_i) R(b e_j) = R(a e_i + b e_j) needs G_i and G_j to commute). The inner call's error
// delta (its bound, plus the rounding of its output into the dtype when it is fed back: u_s |v|
// + eta_s per element) reaches the outer result as R(a) delta, whose norm is A |delta| on each
// group.
void composition(const RelationSubject& subject) {
  const std::vector<int> axes = moved_axes(subject);
  const bool across = subject.scope.size() == 2;
  const Coordinates a = draw_half_along(subject, across ? std::vector<int>{axes[0]} : axes);
  const Coordinates b = draw_half_along(subject, across ? std::vector<int>{axes[1]} : axes);
  RC_TAG(position_band(largest(plus(a, b))));
  const std::vector<Wide> x = finite_input(subject.carrier, static_cast<std::size_t>(subject.carrier.d));
  const AxesPoint outer_at = at(a), inner_at = at(b), zero_at = at(origin(subject)), sum_at = at(plus(a, b));
  const Evaluation inner = subject.evaluate(inner_at, x);
  const Evaluation composed = subject.evaluate(outer_at, inner.values);
  const Evaluation scaled = subject.evaluate(zero_at, x);
  const Evaluation direct = subject.evaluate(sum_at, scaled.values);
  const Wide u_s(format_constants(subject.carrier.dtype).unit), eta_s(format_constants(subject.carrier.dtype).subnormal_spacing);
  const auto fed_back = [&](const Evaluation& evaluation, const std::vector<std::size_t>& group) {
    return group_norm(evaluation.bounds, group) + u_s * group_norm(evaluation.values, group) +
           eta_s * sqrt(Wide(static_cast<int>(group.size())));
  };
  for (const std::vector<std::size_t>& group : subject.groups) {
    const Wide carried = subject.amplitude * (fed_back(inner, group) + fed_back(scaled, group));
    for (std::size_t e : group)
      require_close(composed.values[e], direct.values[e],
                    composed.bounds[e] + direct.bounds[e] + carried + check_rounding(abs(direct.values[e]), 4), [&] {
                      return Site{"f(f(x, b), a) = f(f(x, 0), a + b)" + axes_text(subject),
                                  subject.case_text({outer_at, inner_at, sum_at, zero_at}) +
                                      " (outer a, inner b; outer a + b, inner 0)",
                                  element_text(e), input_text(inner, group.front(), group.back()), subject.carrier.dtype};
                    });
  }
}

// f(x, 0) = A x on the rotated elements, within f(x, 0)'s bound (A x is exact but for the
// check's own rounding); x itself, bit for bit, on the others (their bound is 0).
void identity_at_zero(const RelationSubject& subject) {
  const std::vector<Wide> x = finite_input(subject.carrier, static_cast<std::size_t>(subject.carrier.d));
  const AxesPoint zero = at(origin(subject));
  const Evaluation y = subject.evaluate(zero, x);
  for (const std::vector<std::size_t>& group : subject.groups)
    for (std::size_t e : group) {
      const Wide expected = subject.amplitude * x[e];
      require_close(y.values[e], expected, y.bounds[e] + check_rounding(abs(expected), 2), [&] {
        return Site{"f(x, 0) = A x", subject.case_text(zero), element_text(e), input_text(y, e, e), subject.carrier.dtype};
      });
    }
  for (std::size_t e : pass_through(subject))
    require_identical(y.values[e], x[e], [&] {
      return Site{"f(x, 0) passes the pass-through dims through", subject.case_text(zero), element_text(e),
                  input_text(y, e, e), subject.carrier.dtype};
    });
}

std::string needs_negative_positions(const VariantDeclaration& declaration) {
  if (std::string pair = needs_a_rotated_pair(declaration); !pair.empty()) return pair;
  if (declaration.negative_positions) return "";
  return "the relation evaluates f at -a, and the declaration says the variant takes no negative positions "
         "(declare negative_positions to run it)";
}

// <f(x, a), y> = <x, f(y, -a)>: R(-a) = R(a)^T, both sides A <R(a) x, y> (exp(-G) = exp(G)^T
// for any skew-symmetric G, so this holds whether or not the generators commute).
void transpose(const RelationSubject& subject) {
  const AxesPoint a = at(draw_position(subject.position_limits)), minus_a = at(negated(a.position));
  RC_TAG(position_band(largest(a.position)));
  const auto d = static_cast<std::size_t>(subject.carrier.d);
  const std::vector<Wide> x = comparable_input(subject.carrier, d), y = comparable_input(subject.carrier, d);
  require_equal_products_by_term(subject.evaluate(a, x), unrounded(subject.carrier, y), unrounded(subject.carrier, x),
                                 subject.evaluate(minus_a, y), terms_of(subject), "<f(x, a), y> = <x, f(y, -a)>, group by group",
                                 subject.case_text({a, minus_a}));
}

std::string needs_pass_through_dims(const VariantDeclaration& declaration) {
  if (declaration.rot != 0 && declaration.rot < declaration.d) return "";
  return fmt::format("the declaration rotates all d = {} elements (rot = 0 or d): there is no pass-through dim to check",
                     declaration.d);
}

// The pass-through dims come back bit for bit whatever they hold, NaN and Inf included.
void pass_through_untouched(const RelationSubject& subject) {
  std::vector<Wide> x = finite_input(subject.carrier, static_cast<std::size_t>(subject.carrier.d));
  const std::vector<Wide> wild = *gen_values(subject.carrier.dtype, x.size(), Finiteness::specials_too);
  for (std::size_t e : pass_through(subject)) x[e] = wild[e];
  RC_TAG(value_kinds(wild, subject.carrier.dtype));
  const AxesPoint p = at(draw_position(subject.position_limits));
  const Evaluation y = subject.evaluate(p, x);
  for (std::size_t e : pass_through(subject))
    require_identical(y.values[e], x[e], [&] {
      return Site{"f passes the declared pass-through dims through unchanged", subject.case_text(p), element_text(e),
                  input_text(y, e, e), subject.carrier.dtype};
    });
}

// f(x, p) = f(x_A, p) + f(x_B, p) for x split into two vectors on disjoint elements (so that
// x_A + x_B = x exactly in any dtype), and f(-x, p) = -f(x, p) (negation is exact): each side
// within the sum of its evaluations' bounds.
void linearity(const RelationSubject& subject) {
  const auto d = static_cast<std::size_t>(subject.carrier.d);
  const std::vector<Wide> x = finite_input(subject.carrier, d);
  const std::vector<bool> in_a = *rc::gen::container<std::vector<bool>>(d, rc::gen::arbitrary<bool>());
  std::vector<Wide> x_a(d, Wide(0)), x_b(d, Wide(0)), negated_x(d);
  for (std::size_t e = 0; e < d; ++e) {
    (in_a[e] ? x_a : x_b)[e] = x[e];
    negated_x[e] = -x[e];
  }
  const AxesPoint point = at(draw_position(subject.position_limits));
  RC_TAG(position_band(largest(point.position)));
  const Evaluation whole = subject.evaluate(point, x), part_a = subject.evaluate(point, x_a), part_b = subject.evaluate(point, x_b);
  const Evaluation negated = subject.evaluate(point, negated_x);
  for (std::size_t e = 0; e < d; ++e) {
    const Wide sum = part_a.values[e] + part_b.values[e];
    require_close(whole.values[e], sum, whole.bounds[e] + part_a.bounds[e] + part_b.bounds[e] + check_rounding(abs(sum), 1), [&] {
      return Site{"f(x_A + x_B, p) = f(x_A, p) + f(x_B, p) for x_A, x_B on disjoint elements",
                  subject.case_text(point), element_text(e), input_text(whole, e, e), subject.carrier.dtype};
    });
    require_close(negated.values[e], -whole.values[e], negated.bounds[e] + whole.bounds[e], [&] {
      return Site{"f(-x, p) = -f(x, p)", subject.case_text(point), element_text(e), input_text(whole, e, e),
                  subject.carrier.dtype};
    });
  }
}

// A nonzero offset delta in Z^N behind which a collision R(p) = R(p + delta) would hide: along
// one axis (an axis that never turns, a period shorter than the range), along two axes by
// (m, -m) or (m, m) (two axes that turn the same pairs at the same frequencies, alike or
// opposite), or along every axis at once. Each magnitude is short (1 to 64: neighbouring
// positions, short periods) or drawn as a position is, never past the position limit.
enum class OffsetPattern { one_axis, two_axes_opposite, two_axes_alike, every_axis };

// How a counterexample names the pattern it drew (RapidCheck prints it through operator<<).
std::ostream& operator<<(std::ostream& out, OffsetPattern pattern) {
  constexpr const char* kNames[] = {"along one axis", "along two axes, (m, -m)", "along two axes, (m, m)", "along every axis"};
  return out << kNames[static_cast<int>(pattern)];
}

// One coordinate of an offset: +-m, m in [1, 64] or drawn as a position is (at least 1).
rc::Gen<std::int64_t> gen_offset_coordinate(std::int64_t limit) {
  const auto magnitude = rc::gen::weightedOneOf<std::int64_t>(
      {{1, rc::gen::map(gen_position(std::min<std::int64_t>(63, limit - 1)), [](std::int64_t m) { return m + 1; })},
       {1, rc::gen::map(gen_position(limit), [](std::int64_t m) { return std::max<std::int64_t>(m, 1); })}});
  return rc::gen::mapcat(magnitude, [](std::int64_t m) { return rc::gen::element(m, -m); });
}

Coordinates draw_offset(const RelationSubject& subject) {
  const std::vector<std::int64_t>& limits = subject.position_limits;
  std::vector<OffsetPattern> patterns{OffsetPattern::one_axis};
  if (subject.axes >= 2)
    patterns.insert(patterns.end(), {OffsetPattern::two_axes_opposite, OffsetPattern::two_axes_alike, OffsetPattern::every_axis});
  const OffsetPattern pattern = *rc::gen::elementOf(patterns);
  std::vector<int> axes = moved_axes(subject);
  Coordinates offset = origin(subject);
  if (pattern == OffsetPattern::every_axis) {
    for (std::size_t axis = 0; axis < offset.size(); ++axis) offset[axis] = *gen_offset_coordinate(limits[axis]);
    return offset;
  }
  const int first = *rc::gen::elementOf(axes);
  if (pattern == OffsetPattern::one_axis) {
    offset[static_cast<std::size_t>(first)] = *gen_offset_coordinate(limits[static_cast<std::size_t>(first)]);
    return offset;
  }
  axes.erase(std::find(axes.begin(), axes.end(), first));
  const int second = *rc::gen::elementOf(axes);
  const std::int64_t step =
      *gen_offset_coordinate(std::min(limits[static_cast<std::size_t>(first)], limits[static_cast<std::size_t>(second)]));
  offset[static_cast<std::size_t>(first)] = step;
  offset[static_cast<std::size_t>(second)] = pattern == OffsetPattern::two_axes_alike ? step : -step;
  return offset;
}

// R(p) != R(p') for distinct p, p' in [0, max_position]^N: the rotations, read column by column
// (probe k holds 1 on the k-th element of every group, so that a pair's two columns, or a dense
// rotation's every column, are each seen), differ somewhere by more than both evaluations'
// bounds. Where they do not, the declared precision cannot tell p from p' (Liu et al. 2025 call
// the map's injectivity over the positions of interest reversibility): the failure prints the
// colliding pair. A case whose every element is unconstrained tells nothing.
void reversible(const RelationSubject& subject) {
  const Coordinates offset = draw_offset(subject);
  Coordinates p = origin(subject);
  for (std::size_t axis = 0; axis < p.size(); ++axis) {
    const std::int64_t low = std::max<std::int64_t>(0, -offset[axis]);
    p[axis] = low + *gen_position(subject.position_limits[axis] - (offset[axis] < 0 ? -offset[axis] : offset[axis]));
  }
  const AxesPoint here = at(p), there = at(plus(p, offset));
  RC_TAG(position_band(largest(offset)));
  const auto d = static_cast<std::size_t>(subject.carrier.d);
  std::size_t columns = 0;
  for (const std::vector<std::size_t>& group : subject.groups) columns = std::max(columns, group.size());
  bool separated = false, unconstrained = false;
  Wide closest_ratio(0);  // the largest |difference| / tolerance seen, for the failure's text
  for (std::size_t column = 0; column < columns && !separated; ++column) {
    std::vector<Wide> probe(d, Wide(0));
    for (const std::vector<std::size_t>& group : subject.groups)
      if (column < group.size()) probe[group[column]] = Wide(1);
    const Evaluation y = subject.evaluate(here, probe), z = subject.evaluate(there, probe);
    for (const std::vector<std::size_t>& group : subject.groups)
      for (std::size_t e : group) {
        const Wide tolerance = y.bounds[e] + z.bounds[e] + check_rounding(abs(y.values[e]) + abs(z.values[e]), 2);
        if (!isfinite(tolerance)) {
          unconstrained = true;
          continue;
        }
        const Wide difference = abs(y.values[e] - z.values[e]);
        if (difference > tolerance) separated = true;
        if (tolerance > 0) closest_ratio = std::max(closest_ratio, difference / tolerance);
      }
  }
  const auto site = [&] {
    return Site{"f(., p) != f(., p') for distinct positions p, p' within the declared range",
                subject.case_text({here, there}) + fmt::format(" (p; p' = p + {})", position_text(offset)),
                "every rotated element", fmt::format("the {} unit probe vector(s), one per column of a group", columns),
                subject.carrier.dtype};
  };
  if (separated) {
    require_holds(true, "", site);
  } else if (unconstrained) {
    count_unconstrained(1);
  } else {
    require_holds(false,
                  fmt::format("the rotations at p = {} and p' = {} agree on every rotated element within the tolerance (largest "
                              "difference {} x the tolerance): the variant does not tell these positions apart",
                              position_text(here.position), position_text(there.position), static_cast<double>(closest_ratio)),
                  site);
  }
}

std::string norm_checked_over(const VariantDeclaration& declaration) {
  return declaration.pairing == VariantPairing::unknown
             ? "the whole rotated slice as one vector (pairing unknown: any rotation of it, a dense one included)"
             : "each declared pair";
}

}  // namespace

const VariantRelation kVariantNormPreserved{VariantKind::rotary, "|f(x, p)| = A |x| on each rotated pair (or the rotated slice)",
                                            needs_a_rotated_pair, norm_preserved, AxisForms::whole, norm_checked_over};
const VariantRelation kVariantRelativePosition{VariantKind::rotary, "<f(q, m), f(k, n)> depends on m - n only",
                                               needs_a_rotated_pair, relative_position, AxisForms::per_axis};
const VariantRelation kVariantComposition{VariantKind::rotary, "f(f(x, b), a) = f(f(x, 0), a + b)", needs_a_rotated_pair,
                                          composition, AxisForms::per_axis_and_pair};
const VariantRelation kVariantIdentityAtZero{VariantKind::rotary, "f(x, 0) = A x", applies_always, identity_at_zero};
const VariantRelation kVariantTranspose{VariantKind::rotary, "<f(x, a), y> = <x, f(y, -a)>", needs_negative_positions, transpose};
const VariantRelation kVariantPassThrough{VariantKind::rotary, "the pass-through dims come back bit for bit",
                                          needs_pass_through_dims, pass_through_untouched};
const VariantRelation kVariantLinearity{VariantKind::rotary, "f(x, p) is linear in x", applies_always, linearity};
const VariantRelation kVariantReversible{VariantKind::rotary, "f(., p) != f(., p') for distinct positions p, p' in the declared range",
                                         needs_a_rotated_pair, reversible};

}  // namespace peconform
