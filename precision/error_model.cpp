#include "precision/error_model.hpp"

#include <algorithm>
#include <limits>

#include "reference/element_scales.hpp"

namespace peconform {

TableExponent table_exponent(const Spec& spec, int index) {
  const int pairs = spec.d / 2;
  if (spec.family == Family::sinusoidal && spec.freq == FrequencyRule::geometric) return {index, std::max(pairs - 1, 1)};
  if (spec.family == Family::sinusoidal && spec.layout == Layout::interleaved && spec.d % 2 == 1) return {2 * index, spec.d};
  return {2 * index, 2 * pairs};
}

namespace {

// How many frequencies a table row holds: one per pair, plus DistilBERT's lone column.
int table_frequencies(const Spec& spec) {
  return spec.d / 2 + (spec.family == Family::sinusoidal && spec.layout == Layout::interleaved && spec.d % 2 == 1 ? 1 : 0);
}

}  // namespace

double angle_horizon(const Spec& spec) {
  const bool rotary = spec.family == Family::rope || spec.family == Family::xpos || spec.family == Family::mrope ||
                      spec.family == Family::rope2d;
  if (spec.family == Family::sinusoidal || spec.family == Family::xl) {
    // Where an entry's angle term alone reaches 1, its scale (sinusoid_bound), at the frequency
    // whose recipe error is largest.
    Wide horizon = std::numeric_limits<Wide>::infinity();
    for (int index = 0; index < table_frequencies(spec); ++index)
      horizon = std::min(horizon, (1 - Wide(0x1p-50) - table_sin_cos_error<Wide>(spec)) / angle_growth<Wide>(spec, index));
    return static_cast<double>(horizon);
  }
  if (!rotary) return std::numeric_limits<double>::infinity();
  // Each frequency's own recipe error: the largest is usually the last one (ggml's running
  // product, hf's largest exponent), but theta_0 = 1 is exact under some recipes, so take them all.
  const int frequencies = (spec.family == Family::rope2d ? spec.d / 2 : spec.rotary_dims()) / 2;
  Wide horizon = std::numeric_limits<Wide>::infinity();
  for (int index = 0; index < frequencies; ++index) {
    const Wide growth = angle_growth<Wide>(spec, index);
    // The relative term is affine in |phi|: its slope is growth, times (1 + p) under math=storage.
    const RotaryBoundTerms<Wide> at_zero = rotary_bound_terms<Wide>(spec, Wide(0), Wide(0), growth);
    const Wide slope =
        spec.math == RoundsIn::storage ? rotary_bound_terms<Wide>(spec, Wide(1), Wide(0), growth).relative - at_zero.relative : growth;
    horizon = std::min(horizon, (1 - at_zero.relative) / slope);
  }
  return static_cast<double>(horizon);
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
        const int frequency_index = static_cast<int>(rotary_frequency_index(spec, pair_index++));
        const Wide xpos_power = spec.family == Family::xpos ? abs(Wide(point.c[0])) / from_decimal<Wide>(spec.scale_base) : Wide(0);
        const RotaryBoundTerms<Wide> terms =
            rotary_bound_terms<Wide>(spec, pair.angle, log(pair.xpos), angle_growth<Wide>(spec, frequency_index), xpos_power);
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
      int index = 0;  // the lone column's frequency follows the pairs'
      for (const TablePairScale<Wide>& pair : table_pair_scales(reference, point)) {
        const Wide growth = angle_growth<Wide>(spec, index++);
        for (const std::size_t e : {pair.first, pair.second}) bounds[e] = sinusoid_bound<Wide>(spec, pair.angle, exact[e], growth);
      }
      break;
    }
    case Family::alibi: {
      const std::vector<Wide> bias = reference.evaluate(point, input);
      for (std::size_t h = 0; h < bias.size(); ++h) {
        const BiasBoundTerms<Wide> terms = alibi_bound_terms<Wide>(spec, static_cast<int>(h));
        if (!isinf(bias[h]))
          bounds[h] = within_claim<Wide>(abs(bias[h]), terms.largest) ? abs(bias[h]) * terms.relative + terms.absolute : infinity;
      }
      break;
    }
    case Family::learned: {
      // At amp = 1 a gather moves the table's bits: B = 0. Under amp each entry is a product.
      if (spec.amp == Decimal(1)) break;
      const std::vector<Wide> exact = reference.evaluate(point, input);
      const FormatConstants storage = format_constants(spec.dtype);
      for (std::size_t e = 0; e < exact.size(); ++e)
        bounds[e] = within_claim<Wide>(abs(exact[e]), Wide(storage.largest)) ? amplified_entry_bound<Wide>(spec, exact[e], Wide(0))
                                                                             : infinity;
      break;
    }
    case Family::t5:
    case Family::shaw:
      break;
  }
  return bounds;
}

}  // namespace peconform
