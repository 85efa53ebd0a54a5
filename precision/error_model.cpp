#include "precision/error_model.hpp"

#include <limits>

#include "reference/element_scales.hpp"

namespace peconform {

double angle_horizon(const Spec& spec) {
  const bool rotary = spec.family == Family::rope || spec.family == Family::xpos || spec.family == Family::mrope ||
                      spec.family == Family::rope2d;
  if (spec.family == Family::sinusoidal || spec.family == Family::xl) {
    // An entry's angle term alone reaches 1, its scale (sinusoid_bound).
    const double growth = spec.precision == PrecisionClass::fp32_angle ? 0x1p-22 : 0x1p-100;
    return (1 - 0x1p-50 - 0x1p-52) / growth;
  }
  if (!rotary) return std::numeric_limits<double>::infinity();
  const int last_pair = spec.rotary_dims() / 2 - 1;
  const Wide smallest_default_frequency = Wide(1) / Wide(spec.base.to_double());  // e = 1
  const Wide linear = spec.scaling.kind == PlanKind::linear ? Wide(spec.scaling.factor.to_double()) : Wide(1);
  const Wide growth = angle_growth<Wide>(spec, last_pair, smallest_default_frequency / linear);
  const RotaryBoundTerms<Wide> at_zero = rotary_bound_terms<Wide>(spec, Wide(0), Wide(0), growth);
  return static_cast<double>((1 - at_zero.relative) / growth);
}

std::vector<Wide> claimed_error_bounds(const Reference<FastReal>& reference, const Point& point, std::span<const Wide> input) {
  const Spec& spec = reference.spec();
  const Wide infinity = std::numeric_limits<Wide>::infinity();
  std::vector<Wide> bounds(reference.output_size(), Wide(0));
  switch (spec.family) {
    case Family::rope:
    case Family::xpos:
    case Family::mrope:
    case Family::rope2d: {
      const std::vector<Wide> exact = reference.evaluate(point, input);
      int pair_index = 0;
      for (const RotaryPairScale<Wide>& pair : rotary_pair_scales(reference, point, input)) {
        const Wide amplitude = pair.attention * pair.xpos;
        const RotaryBoundTerms<Wide> terms =
            rotary_bound_terms<Wide>(spec, pair.angle, log(pair.xpos), angle_growth<Wide>(spec, pair_index++, pair.frequency));
        // The kernel forms zeta^(n/s) before multiplying in the attention factor.
        const Wide claim_scale = spec.family == Family::xpos ? std::max(amplitude, pair.xpos) : amplitude;
        const Wide& r = pair.norm;
        const bool claimed = within_claim<Wide>(claim_scale * std::max(r, Wide(1)), terms.largest) && terms.constrains();
        for (const std::size_t e : {pair.a, pair.b}) bounds[e] = claimed ? terms.bound(amplitude * r, r, exact[e]) : infinity;
      }
      break;
    }
    case Family::sinusoidal:
    case Family::xl: {
      const std::vector<Wide> exact = reference.evaluate(point, input);
      for (const TablePairScale<Wide>& pair : table_pair_scales(reference, point))
        for (const std::size_t e : {pair.first, pair.second})
          bounds[e] = sinusoid_bound<Wide>(spec, pair.angle, exact[e]);
      break;
    }
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
