#include "backends/cpu/error_model.hpp"

#include <limits>

#include "backends/cpu/storage.hpp"
#include "reference/element_scales.hpp"

namespace peconform::cpu {
namespace {

const Wide kDoubleSpacing = ldexp(Wide(1), -1074);  // the amplitude chain runs in double

struct Units {
  Wide u_c, u_s, eta_c, eta_s, largest;
};

Units units_of(Dtype dtype) {
  const FormatConstants compute = format_constants(compute_dtype(dtype));
  const FormatConstants storage = format_constants(dtype);
  return {Wide(compute.unit), Wide(storage.unit), Wide(compute.subnormal_spacing), Wide(storage.subnormal_spacing),
          Wide(storage.largest)};
}

Wide angle_error(const Spec& spec, const Wide& angle) {
  const int growth = spec.precision == PrecisionClass::fp32_angle ? -22 : -100;
  return ldexp(Wide(1), -50) + abs(angle) * ldexp(Wide(1), growth);
}

// Inside the storage format's range with 2^-6 to spare, or else no claim.
Wide claimed(const Wide& magnitude, const Wide& bound, const Units& units) {
  return magnitude * (1 + ldexp(Wide(1), -6)) < units.largest ? bound : std::numeric_limits<Wide>::infinity();
}

}  // namespace

std::vector<Wide> kernel_error_bounds(const Reference<FastReal>& reference, const Point& point, std::span<const Wide> input) {
  const Spec& spec = reference.spec();
  const Units units = units_of(spec.dtype);
  const bool lowp = spec.precision == PrecisionClass::lowp_cache;
  std::vector<Wide> bounds(reference.output_size(), Wide(0));
  switch (spec.family) {
    case Family::rope:
    case Family::xpos:
    case Family::mrope:
    case Family::rope2d:
      for (const RotaryPairScale<Wide>& pair : rotary_pair_scales(reference, point, input)) {
        const Wide amplitude = pair.attention * pair.xpos;
        const Wide amplitude_error = (abs(log(pair.xpos)) + 4) * ldexp(Wide(1), -52);
        // The kernel forms zeta^(n/s) before multiplying in the attention factor.
        const Wide largest_factor = spec.family == Family::xpos ? std::max(amplitude, pair.xpos) : amplitude;
        const Wide& r = pair.norm;
        const Wide relative = angle_error(spec, pair.angle) + amplitude_error + ldexp(Wide(1), -51) + 5 * units.u_c +
                              units.u_s + (lowp ? 2 * units.u_s : Wide(0));
        const Wide absolute = r * (3 * kDoubleSpacing + units.eta_c + (lowp ? units.eta_s : Wide(0))) + units.eta_c + units.eta_s;
        bounds[pair.a] = bounds[pair.b] = claimed(largest_factor * std::max(r, Wide(1)), amplitude * r * relative + absolute, units);
      }
      break;
    case Family::sinusoidal:
    case Family::xl:
      for (const TablePairScale<Wide>& pair : table_pair_scales(reference, point))
        bounds[pair.first] = bounds[pair.second] =
            angle_error(spec, pair.angle) + ldexp(Wide(1), -52) + units.u_c + units.u_s + units.eta_c + units.eta_s;
      break;
    case Family::alibi: {
      const std::vector<Wide> bias = reference.evaluate(point, input);
      const Wide relative = spec.precision == PrecisionClass::fp32_angle ? 4 * ldexp(Wide(1), -24) + units.u_s
                                                                         : ldexp(Wide(1), -51) + units.u_c + units.u_s;
      for (std::size_t h = 0; h < bias.size(); ++h)
        if (!isinf(bias[h])) bounds[h] = claimed(abs(bias[h]), abs(bias[h]) * relative + units.eta_c + units.eta_s, units);
      break;
    }
    case Family::learned:
    case Family::t5:
    case Family::shaw:
      break;
  }
  return bounds;
}

}  // namespace peconform::cpu
