// The tables: sinusoidal rows (Vaswani, cos-first, tensor2tensor/fairseq), Transformer-XL's
// relative sinusoid and learned gathers. A sinusoid's entries lie on the unit circle and
// PE(p+k) = M_k PE(p) with M_k block-diagonal and independent of p; the orders and layouts are
// fixed permutations; odd d pads a zero (half) or ends in a lone sine (interleaved); a learned table is gathered bit for bit and never read
// past its end.
#include <fmt/format.h>

#include "properties/property.hpp"
#include "properties/checks.hpp"
#include "properties/generators.hpp"
#include "properties/variant_relations.hpp"
#include "reference/real_types.hpp"
#include "reference/sinusoidal.hpp"
#include "spec/spec_error.hpp"

namespace peconform {
namespace {

rc::Gen<Spec> gen_sinusoid_spec() { return rc::gen::oneOf(gen_sinusoidal_spec(), gen_xl_spec()); }

// The table point for row `row`: a position, or for xl the pair (row, 0) whose distance is row.
Point row_point(std::int64_t row) { return Point{{row, 0, 0}}; }

// The largest row a shift may reach: xl rows past clamp_len all equal the clamp's row.
std::int64_t row_limit(const Spec& spec) {
  return spec.family == Family::xl && spec.clamp_len > 0 ? spec.clamp_len : kLargestPosition - spec.offset;
}

void sinusoid_shift_is_a_fixed_block_rotation(const Implementation& implementation) {
  const Spec spec = *gen_sinusoid_spec();
  RC_TAG(std::string(family_name(spec.family)));
  const auto evaluator = implementation.prepare(spec, 2);
  const std::int64_t p = *gen_position(row_limit(spec));
  const std::int64_t k = *gen_position(row_limit(spec) - p);
  RC_TAG(position_band(p + k));
  const Evaluation origin = evaluate(*evaluator, spec, row_point(0), {});
  const Evaluation by_k = evaluate(*evaluator, spec, row_point(k), {});
  const Evaluation at = evaluate(*evaluator, spec, row_point(p), {});
  const Evaluation target = evaluate(*evaluator, spec, row_point(p + k), {});
  for (const auto& [a, b] : table_pairs(spec)) {
    // M_k's block is the rotation taking PE(0)'s pair u to PE(k)'s pair v: cos = u.v, sin = u x v.
    const Wide c = origin.values[a] * by_k.values[a] + origin.values[b] * by_k.values[b];
    const Wide s = origin.values[a] * by_k.values[b] - origin.values[b] * by_k.values[a];
    const Wide expected[2] = {c * at.values[a] - s * at.values[b], s * at.values[a] + c * at.values[b]};
    // Each of c and s is off by at most 2(B_u + B_v); each expected entry sums two such products
    // with entries of size <= 1 + B, and PE(p) itself is off by B_p.
    const Wide block_error = 2 * (pair_bound(origin, a, b) + pair_bound(by_k, a, b));
    const Wide tolerance = 2 * block_error * (1 + pair_bound(at, a, b)) + pair_bound(at, a, b) + check_rounding(Wide(1), 8);
    const std::size_t elements[2] = {a, b};
    for (int side = 0; side < 2; ++side)
      require_close(target.values[elements[side]], expected[side], tolerance + target.bounds[elements[side]], [&] {
        return Site{"PE(p+k) = M_k PE(p), M_k read from PE(0) and PE(k)", target.case_text(),
                    element_text(elements[side]), fmt::format("k = {}", k), spec.dtype};
      });
  }
}

void sinusoid_entries_lie_on_the_unit_circle(const Implementation& implementation) {
  const Spec spec = *gen_sinusoid_spec();
  RC_TAG(std::string(family_name(spec.family)));
  const auto evaluator = implementation.prepare(spec, 2);
  const std::int64_t p = *gen_position(row_limit(spec));
  RC_TAG(position_band(p));
  const Evaluation row = evaluate(*evaluator, spec, row_point(p), {});
  for (const auto& [a, b] : table_pairs(spec)) {
    const Wide radius = pair_norm(row.values, a, b), bound = pair_bound(row, a, b);
    require_close(radius, Wide(1), bound + check_rounding(Wide(1), 4), [&, a = a, b = b] {
      return Site{"sin^2 + cos^2 = 1 for every frequency", row.case_text(), fmt::format("elements {}, {}", a, b),
                  "(none)", spec.dtype};
    });
  }
}

// Two sinusoidal specs that differ in one key, and the fixed map from the first's elements to
// the second's, checked at one position.
void require_permutation(const Implementation& implementation, const Spec& first, const Spec& second,
                         const std::vector<std::size_t>& first_to_second, const std::string& relation) {
  const auto first_evaluator = implementation.prepare(first, 2);
  const auto second_evaluator = implementation.prepare(second, 2);
  const std::int64_t p = *gen_position(row_limit(first));
  RC_TAG(position_band(p));
  const Evaluation one = evaluate(*first_evaluator, first, Point{{p}}, {});
  const Evaluation two = evaluate(*second_evaluator, second, Point{{p}}, {});
  for (std::size_t e = 0; e < one.values.size(); ++e)
    require_close(two.values[first_to_second[e]], one.values[e], one.bounds[e] + two.bounds[first_to_second[e]], [&] {
      return Site{relation, two.case_text() + " vs " + one.case_text(), element_text(e), "(none)", first.dtype};
    });
}

void cos_first_order_is_a_fixed_permutation_of_sin_first(const Implementation& implementation) {
  Spec sin_first = *gen_sinusoidal_spec();
  // A lone column has no partner to swap with (oddInterleavedSinusoidIsDistilBertsTable checks it).
  if (has_lone_column(sin_first)) --sin_first.d;
  sin_first.order = SinusoidalOrder::sin_cos;
  Spec cos_first = sin_first;
  cos_first.order = SinusoidalOrder::cos_sin;
  const auto pairs = table_pairs(sin_first);
  std::vector<std::pair<std::size_t, std::size_t>> swapped;
  for (const auto& [a, b] : pairs) swapped.emplace_back(b, a);
  require_permutation(implementation, sin_first, cos_first, pair_permutation(pairs, swapped, sin_first.d),
                      "cos-first swaps sin and cos within every pair");
}

void interleaved_and_concatenated_sinusoids_differ_by_a_fixed_permutation(const Implementation& implementation) {
  Spec interleaved = *gen_sinusoidal_spec();
  interleaved.d -= interleaved.d % 2;
  interleaved.layout = Layout::interleaved;
  Spec concatenated = interleaved;
  concatenated.layout = Layout::half;
  const std::vector<std::size_t> to_concatenated =
      pair_permutation(table_pairs(interleaved), table_pairs(concatenated), interleaved.d);
  require_permutation(implementation, interleaved, concatenated, to_concatenated,
                      "[sin, cos, sin, cos, ...] and [sin..., cos...] hold the same entries");
}

void odd_dimension_leaves_a_zero_last_column(const Implementation& implementation) {
  Spec spec = *gen_sinusoidal_spec();
  spec.layout = Layout::half;
  spec.d |= 1;
  const auto evaluator = implementation.prepare(spec, 2);
  const Evaluation row = evaluate(*evaluator, spec, Point{{*gen_position(row_limit(spec))}}, {});
  const auto last = static_cast<std::size_t>(spec.d - 1);
  // A zero is a number: -0 pads as well as +0 (issue 18); NaN or anything else does not.
  require_close(row.values[last], Wide(0), Wide(0), [&] {
    return Site{"odd d pads the last column with zero (tensor2tensor, fairseq)", row.case_text(), element_text(last),
                "(none)", spec.dtype};
  });
}

// DistilBERT's create_sinusoidal_embeddings: column j at position p holds sin (even j) or cos
// (odd j) of p / base^(2 floor(j/2)/d), with d itself in the exponent, so odd d ends in a lone
// sine (a lone cosine under cos-sin) of base^(-(d-1)/d).
void odd_interleaved_sinusoid_is_distilberts_table(const Implementation& implementation) {
  Spec spec = *gen_sinusoidal_spec();
  spec.layout = Layout::interleaved;
  spec.freq = FrequencyRule::power;
  spec.d |= 1;
  RC_TAG(spec.order == SinusoidalOrder::sin_cos ? "sin-cos" : "cos-sin");
  const auto evaluator = implementation.prepare(spec, 2);
  const std::int64_t p = *gen_position(row_limit(spec));
  RC_TAG(position_band(p));
  const Evaluation row = evaluate(*evaluator, spec, Point{{p}}, {});
  const Wide base = from_decimal<Wide>(spec.base), shifted(p + spec.offset);
  for (int j = 0; j < spec.d; ++j) {
    const Wide theta = pow(base, Wide(-2 * (j / 2)) / Wide(spec.d)), angle = shifted * theta;
    const bool sine = (j % 2 == 0) == (spec.order == SinusoidalOrder::sin_cos);
    const Wide expected = sine ? sin(angle) : cos(angle);
    const auto e = static_cast<std::size_t>(j);
    // The check's own binary128 roundings: the exponent's moves theta by |ln theta| units, pow
    // and the product by a few more, and sin or cos adds a few of its own.
    const Wide own_error = check_rounding(angle, 4 + static_cast<int>(abs(log(theta)))) + check_rounding(Wide(1), 4);
    require_close(row.values[e], expected, row.bounds[e] + own_error, [&] {
      return Site{"column j is sin or cos of p / base^(2 floor(j/2)/d) (DistilBERT, odd d)", row.case_text(),
                  element_text(e), "(none)", spec.dtype};
    });
  }
}

void sinusoid_offset_shifts_positions(const Implementation& implementation) {
  Spec shifted_spec = *gen_sinusoidal_spec();
  shifted_spec.offset = *rc::gen::inRange<std::int64_t>(1, 1025);
  Spec plain = shifted_spec;
  plain.offset = 0;
  const auto shifted_evaluator = implementation.prepare(shifted_spec, 2);
  const auto plain_evaluator = implementation.prepare(plain, 2);
  const std::int64_t p = *gen_position(kLargestPosition - shifted_spec.offset);
  RC_TAG(position_band(p));
  require_same_values(evaluate(*shifted_evaluator, shifted_spec, Point{{p}}, {}),
                      evaluate(*plain_evaluator, plain, Point{{p + shifted_spec.offset}}, {}),
                      "offset=o at p equals offset=0 at p+o (fairseq padding_idx + 1)");
}

void sinusoid_at_position_zero_is_sin_zero_cos_one(const Implementation& implementation) {
  Spec spec = *gen_sinusoid_spec();
  spec.offset = 0;
  const auto evaluator = implementation.prepare(spec, 2);
  const Evaluation row = evaluate(*evaluator, spec, row_point(0), {});
  const bool cos_first = spec.family == Family::sinusoidal && spec.order == SinusoidalOrder::cos_sin;
  for (const auto& [a, b] : table_pairs(spec)) {
    const std::size_t sine = cos_first ? b : a, cosine = cos_first ? a : b;
    for (const auto& [e, expected] : {std::pair{sine, 0}, std::pair{cosine, 1}})
      require_close(row.values[e], Wide(expected), row.bounds[e], [&, e = e] {
        return Site{"PE(0) has sin 0 = 0 and cos 0 = 1 for every frequency", row.case_text(), element_text(e), "(none)",
                    spec.dtype};
      });
  }
}

void xl_row_depends_only_on_the_clamped_distance(const Implementation& implementation) {
  Spec spec = *gen_xl_spec();
  if (spec.clamp_len == 0) spec.clamp_len = *gen_position(1 << 20) + 1;
  const auto evaluator = implementation.prepare(spec, 2);
  const std::int64_t j = *gen_position(kLargestPosition / 2), i = j + *gen_position(kLargestPosition / 2);
  RC_TAG(i - j > spec.clamp_len ? "past clamp_len" : "within clamp_len");
  const std::int64_t clamped = std::min(i - j, spec.clamp_len);
  require_same_values(evaluate(*evaluator, spec, Point{{i, j}}, {}), evaluate(*evaluator, spec, Point{{clamped, 0}}, {}),
                      "R(i, j) = R(min(i-j, clamp_len), 0)");
}

void learned_gather_returns_the_table_row_bit_for_bit(const Implementation& implementation) {
  const Spec spec = *gen_learned_spec();
  const auto evaluator = implementation.prepare(spec, spec.rows);
  const std::vector<Wide> table =
      *gen_values(spec.dtype, static_cast<std::size_t>(spec.rows * spec.d), Finiteness::specials_too);
  RC_TAG(value_kinds(table, spec.dtype));
  const std::int64_t p = *rc::gen::inRange<std::int64_t>(0, spec.rows);
  const Evaluation row = evaluate(*evaluator, spec, Point{{p}}, table);
  for (std::size_t e = 0; e < row.values.size(); ++e) {
    const std::size_t source = static_cast<std::size_t>(p * spec.d) + e;
    require_identical(row.values[e], table[source], [&] {
      return Site{"a learned row is the table's row, bit for bit", row.case_text(), element_text(e),
                  fmt::format("table[{}]", source), spec.dtype};
    });
  }
}

void learned_position_past_the_table_is_rejected(const Implementation& implementation) {
  const Spec spec = *gen_learned_spec();
  const auto evaluator = implementation.prepare(spec, spec.rows);
  const std::vector<Wide> table(static_cast<std::size_t>(spec.rows * spec.d), Wide(1));
  const bool below = *uniform_in(0, 4) == 0;  // a quarter of the cases
  const std::int64_t p = below ? -1 - *gen_position() : spec.rows + *gen_position(kLargestPosition - spec.rows);
  RC_TAG(below ? "negative" : "past the end");
  bool rejected = false;
  try {
    evaluator->evaluate(Point{{p}}, table);
  } catch (const SpecError&) {
    rejected = true;
  }
  require_holds(rejected, "a row came back instead of an error", [&] {
    return Site{"a position outside [0, rows) is an error, never a clamp",
                fmt::format("{} at {}", spec.canonical(), p), "the row", "(table of ones)", spec.dtype};
  });
}

}  // namespace

std::vector<Property> table_properties() {
  return {
      {"sinusoidShiftIsAFixedBlockRotation", "sinusoidal (every order, layout, rule, offset), xl",
       with_verdicts<sinusoid_shift_is_a_fixed_block_rotation>, &kVariantTableShift},
      {"sinusoidEntriesLieOnTheUnitCircle", "sinusoidal, xl", with_verdicts<sinusoid_entries_lie_on_the_unit_circle>, &kVariantTableRadius},
      {"cosFirstOrderIsAFixedPermutationOfSinFirst", "sinusoidal", with_verdicts<cos_first_order_is_a_fixed_permutation_of_sin_first>},
      {"interleavedAndConcatenatedSinusoidsDifferByAFixedPermutation", "sinusoidal",
       with_verdicts<interleaved_and_concatenated_sinusoids_differ_by_a_fixed_permutation>},
      {"oddDimensionLeavesAZeroLastColumn", "sinusoidal (half layout, odd d)", with_verdicts<odd_dimension_leaves_a_zero_last_column>},
      {"oddInterleavedSinusoidIsDistilBertsTable", "sinusoidal (interleaved layout, power rule, odd d)",
       with_verdicts<odd_interleaved_sinusoid_is_distilberts_table>},
      {"sinusoidOffsetShiftsPositions", "sinusoidal", with_verdicts<sinusoid_offset_shifts_positions>},
      {"sinusoidAtPositionZeroIsSinZeroCosOne", "sinusoidal, xl", with_verdicts<sinusoid_at_position_zero_is_sin_zero_cos_one>},
      {"xlRowDependsOnlyOnTheClampedDistance", "xl", with_verdicts<xl_row_depends_only_on_the_clamped_distance>},
      {"learnedGatherReturnsTheTableRowBitForBit", "learned", with_verdicts<learned_gather_returns_the_table_row_bit_for_bit>},
      {"learnedPositionPastTheTableIsRejected", "learned", with_verdicts<learned_position_past_the_table_is_rejected>},
  };
}

}  // namespace peconform
