// The rotary relations that need only the implementation f(x, p): DESIGN.md section 4's
// geometry stated of f alone, with A the declared amplitude. Each tolerance is the sum of the
// bounds (variant_subject.hpp) of the evaluations it compares, carried through the relation as
// written beside it, plus the properties' own binary128 rounding (check_rounding).
#include <fmt/format.h>

#include <algorithm>

#include "precision/format_constants.hpp"
#include "properties/generators.hpp"
#include "properties/variant_relations.hpp"

namespace peconform {
namespace {

Point at(std::int64_t position) { return Point{{position, 0, 0}}; }

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

// <a, b> = <c, d> over the terms whose elements every evaluation constrains, within both inner
// products' tolerances (inner_product: sum of B_a |b| + (|a| + B_a) B_b plus its rounding).
void require_equal_products(const RelationSubject& subject, const Evaluation& a, const Evaluation& b, const Evaluation& c,
                            const Evaluation& d, const std::string& relation) {
  require_equal_products_by_term(a, b, c, d, terms_of(subject), relation, subject.case_text({a.point, b.point, c.point, d.point}));
}

std::string group_text(const std::vector<std::size_t>& group) {
  return group.size() == 2 ? fmt::format("pair (elements {}, {})", group[0], group[1])
                           : fmt::format("the rotated elements {}..{}", group.front(), group.back());
}

// |f(x, p)| = A |x| on each group. The norm of the observed group is off by at most the norm of
// its error vector, |(B_e)_e in group|; A |x| is exact but for the check's own rounding.
void norm_preserved(const RelationSubject& subject) {
  const std::vector<Wide> x = finite_input(subject.carrier, static_cast<std::size_t>(subject.carrier.d));
  const std::int64_t p = *gen_position(subject.position_limit);
  RC_TAG(position_band(p));
  const Evaluation y = subject.evaluate(at(p), x);
  for (const std::vector<std::size_t>& group : subject.groups) {
    const Wide expected = subject.amplitude * group_norm(x, group);
    const Wide tolerance = group_norm(y.bounds, group) + check_rounding(expected, 8 + static_cast<int>(group.size()));
    require_close(group_norm(y.values, group), expected, tolerance, [&] {
      return Site{"|f(x, p)| = A |x| on each rotated pair (the whole rotated slice when the pairing is unknown)",
                  subject.case_text(y.point), group_text(group), input_text(y, group.front(), group.back()), subject.carrier.dtype};
    });
  }
}

// <f(q, m), f(k, n)> = <f(q, m + s), f(k, n + s)>: both sides are A^2 <q, R(n - m) k> for a rotation.
void relative_position(const RelationSubject& subject) {
  const std::int64_t m = *gen_position(subject.position_limit), n = *gen_position(subject.position_limit);
  const std::int64_t shift = *gen_position(subject.position_limit - std::max(m, n));
  RC_TAG(position_band(shift));
  const auto d = static_cast<std::size_t>(subject.carrier.d);
  const std::vector<Wide> q = comparable_input(subject.carrier, d), k = comparable_input(subject.carrier, d);
  require_equal_products(subject, subject.evaluate(at(m), q), subject.evaluate(at(n), k), subject.evaluate(at(m + shift), q),
                         subject.evaluate(at(n + shift), k), "<f(q, m), f(k, n)> = <f(q, m+s), f(k, n+s)>, group by group");
}

// f(f(x, b), a) = f(f(x, 0), a + b): both are A^2 R(a + b) x. The inner call's error delta (its
// bound, plus the rounding of its output into the dtype when it is fed back: u_s |v| + eta_s
// per element) reaches the outer result as R(a) delta, whose norm is A |delta| on each group.
void composition(const RelationSubject& subject) {
  const std::int64_t half = subject.position_limit / 2;
  const std::int64_t a = *gen_position(half), b = *gen_position(half);
  RC_TAG(position_band(a + b));
  const std::vector<Wide> x = finite_input(subject.carrier, static_cast<std::size_t>(subject.carrier.d));
  const Evaluation inner = subject.evaluate(at(b), x);
  const Evaluation composed = subject.evaluate(at(a), inner.values);
  const Evaluation scaled = subject.evaluate(at(0), x);
  const Evaluation direct = subject.evaluate(at(a + b), scaled.values);
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
                      return Site{"f(f(x, b), a) = f(f(x, 0), a + b)",
                                  subject.case_text({composed.point, inner.point, direct.point, scaled.point}) +
                                      " (outer a, inner b; outer a + b, inner 0)",
                                  element_text(e), input_text(inner, group.front(), group.back()), subject.carrier.dtype};
                    });
  }
}

// f(x, 0) = A x on the rotated elements, within f(x, 0)'s bound (A x is exact but for the
// check's own rounding); x itself, bit for bit, on the others (their bound is 0).
void identity_at_zero(const RelationSubject& subject) {
  const std::vector<Wide> x = finite_input(subject.carrier, static_cast<std::size_t>(subject.carrier.d));
  const Evaluation y = subject.evaluate(at(0), x);
  for (const std::vector<std::size_t>& group : subject.groups)
    for (std::size_t e : group) {
      const Wide expected = subject.amplitude * x[e];
      require_close(y.values[e], expected, y.bounds[e] + check_rounding(abs(expected), 2), [&] {
        return Site{"f(x, 0) = A x", subject.case_text(y.point), element_text(e), input_text(y, e, e), subject.carrier.dtype};
      });
    }
  for (std::size_t e : pass_through(subject))
    require_identical(y.values[e], x[e], [&] {
      return Site{"f(x, 0) passes the pass-through dims through", subject.case_text(y.point), element_text(e),
                  input_text(y, e, e), subject.carrier.dtype};
    });
}

std::string needs_negative_positions(const VariantDeclaration& declaration) {
  if (std::string pair = needs_a_rotated_pair(declaration); !pair.empty()) return pair;
  if (declaration.negative_positions) return "";
  return "the relation evaluates f at -a, and the declaration says the variant takes no negative positions "
         "(declare negative_positions to run it)";
}

// <f(x, a), y> = <x, f(y, -a)>: R(-a) = R(a)^T, both sides A <R(a) x, y>.
void transpose(const RelationSubject& subject) {
  const std::int64_t a = *gen_position(subject.position_limit);
  RC_TAG(position_band(a));
  const auto d = static_cast<std::size_t>(subject.carrier.d);
  const std::vector<Wide> x = comparable_input(subject.carrier, d), y = comparable_input(subject.carrier, d);
  require_equal_products(subject, subject.evaluate(at(a), x), unrounded(subject.carrier, y), unrounded(subject.carrier, x),
                         subject.evaluate(at(-a), y), "<f(x, a), y> = <x, f(y, -a)>, group by group");
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
  const Evaluation y = subject.evaluate(at(*gen_position(subject.position_limit)), x);
  for (std::size_t e : pass_through(subject))
    require_identical(y.values[e], x[e], [&] {
      return Site{"f passes the declared pass-through dims through unchanged", subject.case_text(y.point), element_text(e),
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
  const Point point = at(*gen_position(subject.position_limit));
  RC_TAG(position_band(point.c[0]));
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

}  // namespace

const VariantRelation kVariantNormPreserved{VariantKind::rotary, "|f(x, p)| = A |x| on each rotated pair (or the rotated slice)",
                                            needs_a_rotated_pair, norm_preserved};
const VariantRelation kVariantRelativePosition{VariantKind::rotary, "<f(q, m), f(k, n)> depends on m - n only",
                                               needs_a_rotated_pair, relative_position};
const VariantRelation kVariantComposition{VariantKind::rotary, "f(f(x, b), a) = f(f(x, 0), a + b)", needs_a_rotated_pair,
                                          composition};
const VariantRelation kVariantIdentityAtZero{VariantKind::rotary, "f(x, 0) = A x", applies_always, identity_at_zero};
const VariantRelation kVariantTranspose{VariantKind::rotary, "<f(x, a), y> = <x, f(y, -a)>", needs_negative_positions, transpose};
const VariantRelation kVariantPassThrough{VariantKind::rotary, "the pass-through dims come back bit for bit",
                                          needs_pass_through_dims, pass_through_untouched};
const VariantRelation kVariantLinearity{VariantKind::rotary, "f(x, p) is linear in x", applies_always, linearity};

}  // namespace peconform
