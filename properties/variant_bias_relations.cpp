// The bias relation that needs only the implementation b(i, j): translation invariance, b
// depends on i - j only (the catalog's alibiBiasIsTranslationInvariant; T5 and Shaw buckets
// and every relative bias have it too).
#include <fmt/format.h>

#include <algorithm>

#include "properties/generators.hpp"
#include "properties/variant_relations.hpp"

namespace peconform {
namespace {

std::string applies_always(const VariantDeclaration&) { return ""; }

// b(i + s, j + s) = b(i, j) head by head, within both evaluations' bounds.
void translation_invariant(const RelationSubject& subject) {
  const std::int64_t i = *gen_position(subject.position_limit), j = *gen_position(subject.position_limit);
  const std::int64_t shift = *gen_position(subject.position_limit - std::max(i, j));
  RC_TAG(position_band(shift));
  const Evaluation base = subject.evaluate(Point{{i, j, 0}}, {});
  const Evaluation moved = subject.evaluate(Point{{i + shift, j + shift, 0}}, {});
  for (std::size_t head = 0; head < base.values.size(); ++head)
    require_close(moved.values[head], base.values[head], moved.bounds[head] + base.bounds[head], [&] {
      return Site{"b(i+s, j+s) = b(i, j)", subject.case_text({moved.point, base.point}),
                  fmt::format("head {}", head), "(none)", subject.carrier.dtype};
    });
}

}  // namespace

const VariantRelation kVariantBiasTranslation{VariantKind::bias, "b(i, j) depends on i - j only", applies_always,
                                              translation_invariant};

}  // namespace peconform
