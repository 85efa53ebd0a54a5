// The property every backend is finally held to: each element within its claimed bound of the
// exact tier, for any family, plan, position and input. On the fast tier it is the fast tier's
// verification against the exact one; on the exact tier it checks that a second, separately
// prepared exact evaluator agrees with the first (no state leaks between evaluations).
#include <fmt/format.h>

#include "backends/reference_tiers.hpp"
#include "properties/checks.hpp"
#include "properties/generators.hpp"
#include "properties/property.hpp"

namespace peconform {
namespace {

std::vector<Wide> gen_input(const Spec& spec) {
  switch (spec.family) {
    case Family::rope:
    case Family::xpos:
    case Family::mrope:
    case Family::rope2d: return finite_input(spec, static_cast<std::size_t>(spec.d));
    case Family::learned:
      return *gen_values(spec.dtype, static_cast<std::size_t>(spec.rows * spec.d), Finiteness::specials_too);
    default: return {};
  }
}

void agrees_with_the_exact_reference_within_its_bound(const Implementation& implementation) {
  const Spec spec = *gen_any_spec();
  RC_TAG(std::string(family_name(spec.family)));
  const std::int64_t length = gen_sequence_length();
  const auto evaluator = implementation.prepare(spec, length);
  const auto exact = exact_tier().prepare(spec, length);
  const Point point = spec.family == Family::learned ? Point{{*rc::gen::inRange<std::int64_t>(0, spec.rows)}} : *gen_point(spec);
  RC_TAG(position_band(point.c[0]));
  const std::vector<Wide> input = gen_input(spec);
  const Evaluation actual = evaluate(*evaluator, spec, point, input);
  const Evaluation expected = evaluate(*exact, spec, point, input);
  for (std::size_t e = 0; e < actual.values.size(); ++e)
    require_close(actual.values[e], expected.values[e], actual.bounds[e] + expected.bounds[e], [&] {
      // Rotary outputs map element to element; a learned row reads table[p*d + e].
      std::string source = "(none)";
      if (input.size() == actual.values.size()) source = input_text(actual, e, e);
      if (spec.family == Family::learned) source = fmt::format("table[{}]", point.c[0] * spec.d + static_cast<std::int64_t>(e));
      return Site{fmt::format("{} agrees with the exact tier within its bound", implementation.name()), actual.case_text(),
                  element_text(e), source, spec.dtype};
    });
}

}  // namespace

std::vector<Property> conformance_properties() {
  return {{"agreesWithTheExactReferenceWithinItsBound", "every family and plan", with_verdicts<agrees_with_the_exact_reference_within_its_bound>}};
}

}  // namespace peconform
