// The verifier for a learned table scaled by amp != 1 (x-transformers' AbsolutePositionalEmbedding,
// emb(pos) * dim^-0.5): each entry is a product, held to amplified_entry_bound. The product A w is
// formed in binary128, whose error (2^-113 relative) is far below any storage format's rounding,
// so no element needs the exact tier.
#include <cmath>
#include <fmt/format.h>

#include "harness/campaign_result.hpp"
#include "harness/family_verifiers.hpp"
#include "precision/error_model.hpp"
#include "reference/real_types.hpp"

namespace peconform::harness {

ElementTally verify_scaled_gather(const KernelCall& call) {
  const Spec& spec = call.spec;
  const Buffer& table = call.inputs[0];
  const Buffer& out = call.outputs[0];
  const ElementType type = out.type;
  const Wide amplitude = from_decimal<Wide>(spec.amp);
  const Wide largest(format_constants(spec.dtype).largest);
  ElementTally tally;
  for (std::int64_t b = 0; b < call.batch; ++b)
    for (std::int64_t s = 0; s < call.seq; ++s) {
      const std::int64_t id = call.id(0, b, s);
      for (std::int64_t e = 0; e < spec.d; ++e) {
        const std::int64_t at = out.offset_of(b, s, 0, e), from = table.offset_of(0, 0, id, e);
        const double actual = out.value(at), entry = table.value(from);
        const std::string_view held = sentinel_kind(out, out.bits(at));
        const std::int64_t flat = (b * call.seq + s) * spec.d + e;
        const Wide expected = Wide(entry) * amplitude;
        const double expected_double = static_cast<double>(expected);
        auto describe = [&](std::string kind, double ratio, double bound) {
          return ElementFailure{kind, "out", flat, {b, s, 0, e}, fmt::format("{}", id),
                                fmt::format("table row {}: {} times amp {}", id, hex_and_decimal(entry), spec.amp.text()),
                                hex_and_decimal(expected_double), element_text(call, out, out.bits(at), actual),
                                ulps_between(actual, expected_double, type), ratio, hex_and_decimal(bound)};
        };
        if (std::isnan(entry) || std::isinf(entry)) {
          // A non-finite entry scales to itself: the kernel must pass it on.
          if ((std::isnan(entry) && held.empty() && std::isnan(actual)) || actual == entry) tally.identical();
          else tally.fail({0, flat}, [&] { return describe(std::string(held.empty() ? "mismatch" : held), INFINITY, 0); });
          continue;
        }
        if (!held.empty() || std::isnan(actual) || std::isinf(actual)) {
          const std::string kind(!held.empty() ? held : std::isnan(actual) ? "nan" : "inf");
          // Outside the claim a NaN or inf may be the product's overflow; a sentinel is an
          // element the kernel never wrote (or one it read out of bounds), wrong anywhere.
          if (held.empty() && !within_claim<Wide>(abs(expected), largest)) tally.unconstrained();
          else tally.fail({0, flat}, [&] { return describe(kind, INFINITY, 0); });
          continue;
        }
        if (Wide(actual) == expected) {
          tally.identical();
          continue;
        }
        if (!within_claim<Wide>(abs(expected), largest)) {
          tally.unconstrained();
          continue;
        }
        const Wide bound = amplified_entry_bound<Wide>(spec, expected, Wide(0));
        const Wide error = abs(Wide(actual) - expected);
        const double ratio = static_cast<double>(error / bound);
        // Where the bound reaches the entry itself (a product that underflows), it pins the entry
        // near 0 but no more: within it is unconstrained, past it a failure.
        if (ratio <= 1 && bound >= abs(expected)) tally.unconstrained();
        else tally.bounded_ratio(ratio, ulps_between(actual, expected_double, type), position_bin(id));
        if (ratio > 1) tally.fail({0, flat}, [&] { return describe("numeric", ratio, static_cast<double>(bound)); });
      }
    }
  return tally;
}

}  // namespace peconform::harness
