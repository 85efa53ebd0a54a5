// The bias relation that needs only the implementation b(i, j): translation invariance, b
// depends on i - j only (the catalog's alibiBiasIsTranslationInvariant; T5 and Shaw buckets
// and every relative bias have it too). Over N axes i, j and s lie in Z^N; the relation also
// runs with s along each axis alone, which says which axes the bias is invariant along.
#include <fmt/format.h>

#include <algorithm>

#include "properties/generators.hpp"
#include "properties/variant_relations.hpp"

namespace peconform {
namespace {

std::string applies_always(const VariantDeclaration&) { return ""; }

// b(i + s, j + s) = b(i, j) head by head, within both evaluations' bounds; s moves along the
// subject's scope (every axis when it names none).
void translation_invariant(const RelationSubject& subject) {
  const std::vector<std::int64_t> i = draw_position(subject.position_limits);
  const std::vector<std::int64_t> j = draw_position(subject.position_limits);
  std::vector<int> axes = subject.scope;
  if (axes.empty())
    for (int axis = 0; axis < subject.axes; ++axis) axes.push_back(axis);
  std::vector<std::int64_t> shift(i.size(), 0);
  for (int axis : axes) {
    const auto a = static_cast<std::size_t>(axis);
    shift[a] = *gen_position(subject.position_limits[a] - std::max(i[a], j[a]));
  }
  RC_TAG(position_band(*std::max_element(shift.begin(), shift.end())));
  std::vector<std::int64_t> moved_i = i, moved_j = j;
  for (std::size_t a = 0; a < i.size(); ++a) {
    moved_i[a] += shift[a];
    moved_j[a] += shift[a];
  }
  const AxesPoint base_at{i, j}, moved_at{moved_i, moved_j};
  const Evaluation base = subject.evaluate(base_at, {});
  const Evaluation moved = subject.evaluate(moved_at, {});
  for (std::size_t head = 0; head < base.values.size(); ++head)
    require_close(moved.values[head], base.values[head], moved.bounds[head] + base.bounds[head], [&] {
      return Site{subject.scope.empty() ? std::string("b(i+s, j+s) = b(i, j)") : fmt::format("b(i+s, j+s) = b(i, j), s along axis {}", subject.scope[0]),
                  subject.case_text({moved_at, base_at}),
                  fmt::format("head {}", head), "(none)", subject.carrier.dtype};
    });
}

}  // namespace

const VariantRelation kVariantBiasTranslation{VariantKind::bias, "b(i, j) depends on i - j only", applies_always,
                                              translation_invariant, AxisForms::per_axis};

}  // namespace peconform
