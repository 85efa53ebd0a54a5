#include "precision/error_model.hpp"

#include <limits>

#include "reference/element_scales.hpp"

namespace peconform {

std::vector<Wide> claimed_error_bounds(const Reference<FastReal>& reference, const Point& point, std::span<const Wide> input) {
  const Spec& spec = reference.spec();
  const Wide infinity = std::numeric_limits<Wide>::infinity();
  std::vector<Wide> bounds(reference.output_size(), Wide(0));
  switch (spec.family) {
    case Family::rope:
    case Family::xpos:
    case Family::mrope:
    case Family::rope2d:
      for (const RotaryPairScale<Wide>& pair : rotary_pair_scales(reference, point, input)) {
        const Wide amplitude = pair.attention * pair.xpos;
        const RotaryBoundTerms<Wide> terms = rotary_bound_terms<Wide>(spec, pair.angle, log(pair.xpos));
        // The kernel forms zeta^(n/s) before multiplying in the attention factor.
        const Wide claim_scale = spec.family == Family::xpos ? std::max(amplitude, pair.xpos) : amplitude;
        const Wide& r = pair.norm;
        bounds[pair.a] = bounds[pair.b] = within_claim<Wide>(claim_scale * std::max(r, Wide(1)), terms.largest)
                                              ? amplitude * r * terms.relative + r * terms.per_norm + terms.absolute
                                              : infinity;
      }
      break;
    case Family::sinusoidal:
    case Family::xl:
      for (const TablePairScale<Wide>& pair : table_pair_scales(reference, point))
        bounds[pair.first] = bounds[pair.second] = sinusoid_bound<Wide>(spec, pair.angle);
      break;
    case Family::alibi: {
      const std::vector<Wide> bias = reference.evaluate(point, input);
      const BiasBoundTerms<Wide> terms = alibi_bound_terms<Wide>(spec);
      for (std::size_t h = 0; h < bias.size(); ++h)
        if (!isinf(bias[h]))
          bounds[h] = within_claim<Wide>(abs(bias[h]), terms.largest) ? abs(bias[h]) * terms.relative + terms.absolute : infinity;
      break;
    }
    case Family::learned:
    case Family::t5:
    case Family::shaw:
      break;
  }
  return bounds;
}

}  // namespace peconform
