// The table relations that need only the implementation PE(p): each declared pair lies on the
// circle of radius A, and PE(p + k) = M_k PE(p) with M_k block-diagonal and independent of p,
// each block read from the table itself (the catalog's sinusoidShiftIsAFixedBlockRotation and
// sinusoidEntriesLieOnTheUnitCircle, with the radius declared rather than 1). Over N axes, p
// and k lie in Z^N: a pair whose angle is linear in p (a 2-D sinusoid's x pairs and y pairs,
// or mixed frequencies) keeps PE(p + k) = M_k PE(p) with each block read from PE(0), PE(k).
#include <fmt/format.h>

#include <algorithm>

#include "properties/generators.hpp"
#include "properties/variant_relations.hpp"

namespace peconform {
namespace {

AxesPoint row(std::vector<std::int64_t> position) { return AxesPoint{std::move(position), {}}; }

std::string needs_declared_pairs(const VariantDeclaration& declaration) {
  if (declaration.pairing == VariantPairing::unknown)
    return "the table's pairing is unknown: M_k is read pair by pair from PE(0) and PE(k), and a pair's radius needs the pair "
           "(declare pairing=interleaved or half)";
  if (declaration.d < 2) return fmt::format("d = {} holds no pair: the relation would check nothing", declaration.d);
  return "";
}

// M_k's block is A^-2 times the scaled rotation taking PE(0)'s pair u to PE(k)'s pair v:
// c = u.v / A^2, s = (u x v) / A^2. With |u|, |v| = A, each of c and s is off by at most
// (A (B_u + B_v) + B_u B_v) / A^2 <= 2 (B_u + B_v) / A while B_u <= A (past that the bound is
// +inf). Each expected entry c PE(p)_a - s PE(p)_b then errs by at most that times |PE(p)_a| +
// |PE(p)_b| <= 2 (A + B_p), and the exact block, a rotation, carries PE(p)'s own error B_p.
void shift_is_a_fixed_block_map(const RelationSubject& subject) {
  const std::vector<std::int64_t> p = draw_position(subject.position_limits);
  std::vector<std::int64_t> k, p_plus_k;
  for (std::size_t axis = 0; axis < p.size(); ++axis) {
    k.push_back(*gen_position(subject.position_limits[axis] - p[axis]));
    p_plus_k.push_back(p[axis] + k.back());
  }
  RC_TAG(position_band(*std::max_element(p_plus_k.begin(), p_plus_k.end())));
  const AxesPoint zero_at = row(std::vector<std::int64_t>(p.size(), 0)), k_at = row(k), p_at = row(p), target_at = row(p_plus_k);
  const Evaluation origin = subject.evaluate(zero_at, {}), by_k = subject.evaluate(k_at, {});
  const Evaluation at = subject.evaluate(p_at, {}), target = subject.evaluate(target_at, {});
  const Wide radius_squared = subject.amplitude * subject.amplitude;
  for (const std::vector<std::size_t>& group : subject.groups) {
    const std::size_t a = group[0], b = group[1];
    const Wide c = (origin.values[a] * by_k.values[a] + origin.values[b] * by_k.values[b]) / radius_squared;
    const Wide s = (origin.values[a] * by_k.values[b] - origin.values[b] * by_k.values[a]) / radius_squared;
    const Wide expected[2] = {c * at.values[a] - s * at.values[b], s * at.values[a] + c * at.values[b]};
    const Wide block_error = 2 * (group_norm(origin.bounds, group) + group_norm(by_k.bounds, group)) / subject.amplitude;
    const Wide at_bound = group_norm(at.bounds, group);
    const Wide tolerance = 2 * block_error * (subject.amplitude + at_bound) + at_bound + check_rounding(subject.amplitude, 8);
    for (int side = 0; side < 2; ++side) {
      const std::size_t element = group[static_cast<std::size_t>(side)];
      require_close(target.values[element], expected[side], tolerance + target.bounds[element], [&] {
        return Site{"PE(p+k) = M_k PE(p), M_k read from PE(0) and PE(k)",
                    subject.case_text({target_at, p_at, zero_at, k_at}) + " (p + k; p; 0; k)",
                    element_text(element), "k = " + position_text(k), subject.carrier.dtype};
      });
    }
  }
}

// |PE(p)| = A on every pair, within the norm of the pair's error vector.
void pairs_lie_on_the_declared_circle(const RelationSubject& subject) {
  const AxesPoint p = row(draw_position(subject.position_limits));
  RC_TAG(position_band(*std::max_element(p.position.begin(), p.position.end())));
  const Evaluation at = subject.evaluate(p, {});
  for (const std::vector<std::size_t>& group : subject.groups)
    require_close(group_norm(at.values, group), subject.amplitude,
                  group_norm(at.bounds, group) + check_rounding(subject.amplitude, 4), [&] {
                    return Site{"|PE(p)| = A on every declared pair", subject.case_text(p),
                                fmt::format("elements {}, {}", group[0], group[1]), "(none)", subject.carrier.dtype};
                  });
}

}  // namespace

const VariantRelation kVariantTableShift{VariantKind::table, "PE(p + k) = M_k PE(p), M_k block-diagonal and independent of p",
                                         needs_declared_pairs, shift_is_a_fixed_block_map};
const VariantRelation kVariantTableRadius{VariantKind::table, "each pair of PE(p) lies on the circle of radius A",
                                          needs_declared_pairs, pairs_lie_on_the_declared_circle};

}  // namespace peconform
