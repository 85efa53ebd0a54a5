// The relative schemes: ALiBi (Press et al.; slopes after the authors' get_slopes), T5 buckets
// (Hugging Face _relative_position_bucket) and Shaw's clipped index. Points are (query i,
// key j) and the relative position is j - i.
#include <bit>
#include <boost/multiprecision/gmp.hpp>
#include <fmt/format.h>

#include "properties/checks.hpp"
#include "properties/generators.hpp"
#include "properties/property.hpp"
#include "properties/variant_relations.hpp"

namespace peconform {
namespace {

// A (query, key) pair whose key is within `span` of the query and both within [0, 2^31 - 1].
Point gen_pair(std::int64_t span = kLargestPosition) {
  const std::int64_t i = *gen_position();
  const std::int64_t distance = *gen_position(span);
  const bool ahead = *rc::gen::arbitrary<bool>();
  const std::int64_t j = ahead ? std::min(i + distance, kLargestPosition) : std::max(i - distance, std::int64_t{0});
  RC_TAG(j > i ? "key ahead" : j == i ? "same position" : "key behind");
  return Point{{i, j, 0}};
}

Site pair_site(const std::string& relation, const Evaluation& evaluation, std::size_t element) {
  return Site{relation, evaluation.case_text(), fmt::format("head {}", element), "(none)", evaluation.spec.dtype};
}

// An index scheme's value at `pair` (T5 bucket, Shaw index), compared exactly.
struct Index {
  Spec spec;
  Point pair;
  std::int64_t value;
};

Index index_at(const Evaluator& evaluator, const Spec& spec, const Point& pair) {
  return {spec, pair, static_cast<std::int64_t>(evaluate(evaluator, spec, pair, {}).values.front())};
}

void require_index(bool holds, const std::string& relation, const Index& index) {
  require_holds(holds, fmt::format("index {}", index.value), [&] {
    return Site{relation, fmt::format("{} at {}", index.spec.canonical(), format_point(index.spec.family, index.pair)),
                "the index", "(none)", Dtype::fp64};
  });
}

void alibi_bias_is_translation_invariant(const Implementation& implementation) {
  const Spec spec = *gen_alibi_spec();
  RC_TAG(std::string(alibi_mode_name(spec.mode)));
  const auto evaluator = implementation.prepare(spec, 2);
  const Point pair = gen_pair();
  const std::int64_t highest = std::max(pair.c[0], pair.c[1]);
  const std::int64_t shift = *gen_position(kLargestPosition - highest);
  if (measures_the_key(spec.mode)) {
    require_same_values(evaluate(*evaluator, spec, pair, {}), evaluate(*evaluator, spec, Point{{pair.c[0] + shift, pair.c[1], 0}}, {}),
                        "bias(i, j) = bias(i+s, j): every query sees the keys alike");
    return;
  }
  require_same_values(evaluate(*evaluator, spec, pair, {}),
                      evaluate(*evaluator, spec, Point{{pair.c[0] + shift, pair.c[1] + shift, 0}}, {}),
                      "bias(i, j) = bias(i+s, j+s)");
}

void alibi_bias_is_linear_in_distance(const Implementation& implementation) {
  const Spec spec = *gen_alibi_spec();
  RC_TAG(std::string(alibi_mode_name(spec.mode)));
  const auto evaluator = implementation.prepare(spec, 2);
  Point pair = gen_pair();
  if (spec.mode == AlibiMode::causal && pair.c[1] > pair.c[0]) std::swap(pair.c[0], pair.c[1]);
  const bool from_key = measures_the_key(spec.mode);
  const Evaluation unit = evaluate(*evaluator, spec, Point{{from_key ? 0 : 1, from_key ? 1 : 0, 0}}, {});
  const Evaluation at = evaluate(*evaluator, spec, pair, {});
  const Wide distance(from_key ? pair.c[1] : pair.c[0] > pair.c[1] ? pair.c[0] - pair.c[1] : pair.c[1] - pair.c[0]);
  for (std::size_t h = 0; h < at.values.size(); ++h)
    require_close(at.values[h], distance * unit.values[h],
                  at.bounds[h] + distance * unit.bounds[h] + check_rounding(abs(at.values[h]), 2), [&] {
                    return pair_site(from_key ? "bias(i, j) = j bias(0, 1): zero at the anchor, +m per key"
                                              : "bias(i, j) = |i-j| bias(1, 0): zero on the diagonal, -m per step",
                                     at, h);
                  });
}

void alibi_slopes_form_the_published_series(const Implementation& implementation) {
  const Spec spec = *gen_alibi_spec();
  const int heads = spec.heads;
  RC_TAG(std::has_single_bit(static_cast<unsigned>(heads)) ? "power of two" : "other head count");
  const auto evaluator = implementation.prepare(spec, 2);
  // One step from the diagonal, -m; or under key and last-key key 1, +m.
  const bool from_key = measures_the_key(spec.mode);
  const Evaluation unit = evaluate(*evaluator, spec, Point{{from_key ? 0 : 1, from_key ? 1 : 0, 0}}, {});
  // The first 2^floor(log2 n) heads take 2^(-8(h+1)/c); the rest take every other slope of the
  // 2c series, 2^(-4(2k+1)/c) (Press et al., get_slopes).
  const int closest = static_cast<int>(std::bit_floor(static_cast<unsigned>(heads)));
  for (int h = 0; h < heads; ++h) {
    const Wide exponent = h < closest ? Wide(-8 * (h + 1)) / Wide(closest) : Wide(-4 * (2 * (h - closest) + 1)) / Wide(closest);
    const Wide slope = pow(Wide(2), exponent);
    const auto head = static_cast<std::size_t>(h);
    require_close(from_key ? unit.values[head] : -unit.values[head], slope, unit.bounds[head] + check_rounding(slope, 8),
                  [&] { return pair_site("head h's slope follows the published series", unit, head); });
  }
}

void alibi_causal_mask_hides_exactly_the_future_keys(const Implementation& implementation) {
  Spec spec = *gen_alibi_spec();
  spec.mode = AlibiMode::causal;
  const auto evaluator = implementation.prepare(spec, 2);
  const Point pair = gen_pair();
  const Evaluation at = evaluate(*evaluator, spec, pair, {});
  const bool future = pair.c[1] > pair.c[0];
  for (std::size_t h = 0; h < at.values.size(); ++h) {
    // A past key's bias beyond the dtype's range (fp16 from |i - j| ~ 2^16) overflows to
    // -inf too; the implementation makes no claim there (an infinite bound): unconstrained.
    if (!isfinite(at.bounds[h])) {
      count_unconstrained(1);
      continue;
    }
    const bool masked = isinf(at.values[h]) && at.values[h] < 0;
    require_holds(masked == future, fmt::format("bias {}", static_cast<double>(at.values[h])),
                  [&] { return pair_site("causal ALiBi masks (-inf) exactly the keys j > i", at, h); });
  }
}

struct T5Layout {
  std::int64_t half;   // buckets per direction
  std::int64_t exact;  // buckets below which |rp| is its own bucket
};

T5Layout t5_layout(const Spec& spec) {
  const std::int64_t half = spec.bidirectional ? spec.buckets / 2 : spec.buckets;
  return {half, half / 2};
}

void t5_buckets_are_exact_below_max_exact(const Implementation& implementation) {
  const Spec spec = *gen_t5_spec();
  RC_TAG(spec.bidirectional ? "bidirectional" : "causal");
  const auto evaluator = implementation.prepare(spec, 2);
  const auto [half, exact] = t5_layout(spec);
  const std::int64_t i = *gen_position(kLargestPosition - exact);
  const std::int64_t offset = *uniform_in<std::int64_t>(-std::min(i, exact - 1), exact);  // behind and ahead alike
  const std::int64_t j = i + offset;  // rp = j - i = offset
  // Bidirectional: the keys ahead take the upper half; causal: the keys behind count.
  const std::int64_t expected = spec.bidirectional ? (offset > 0 ? half : 0) + std::abs(offset) : (offset < 0 ? -offset : 0);
  const Index got = index_at(*evaluator, spec, Point{{i, j, 0}});
  require_index(got.value == expected, fmt::format("the bucket is {} below max_exact", expected), got);
}

void t5_buckets_are_monotone_in_distance(const Implementation& implementation) {
  const Spec spec = *gen_t5_spec();
  RC_TAG(spec.bidirectional ? "bidirectional" : "causal");
  const auto evaluator = implementation.prepare(spec, 2);
  const bool ahead = spec.bidirectional && *rc::gen::arbitrary<bool>();
  const std::int64_t near = *gen_position(kLargestPosition / 2), far = near + *gen_position(kLargestPosition / 2);
  // rp = +distance (key ahead of query 0) or -distance (query ahead of key 0).
  auto at = [&](std::int64_t distance) {
    return index_at(*evaluator, spec, ahead ? Point{{0, distance, 0}} : Point{{distance, 0, 0}});
  };
  const Index nearer = at(near), farther = at(far);
  require_index(nearer.value <= farther.value,
                fmt::format("buckets never fall as |rp| grows; {} at |rp| = {}", nearer.value, near), farther);
}

void t5_buckets_saturate_at_the_last_bucket(const Implementation& implementation) {
  const Spec spec = *gen_t5_spec();
  RC_TAG(spec.bidirectional ? "bidirectional" : "causal");
  const auto evaluator = implementation.prepare(spec, 2);
  const auto [half, exact] = t5_layout(spec);
  const std::int64_t distance = spec.max_distance + *gen_position(kLargestPosition - spec.max_distance);
  const bool ahead = spec.bidirectional && *rc::gen::arbitrary<bool>();
  const Index got = index_at(*evaluator, spec, ahead ? Point{{0, distance, 0}} : Point{{distance, 0, 0}});
  const std::int64_t last = (ahead ? half : 0) + half - 1;
  require_index(got.value == last, fmt::format("|rp| >= max_distance takes the last bucket, {}", last), got);
}

// HF _relative_position_bucket puts a distance r in [e, D) (e = max_exact, D = max_distance) in
// bucket e + k, k = trunc(c ln(r/e)/ln(D/e)) with c = the logarithmic buckets. Raised to integer
// powers, that k is the one with (r/e)^c >= (D/e)^k and (r/e)^c < (D/e)^(k+1), i.e.
// r^c e^k >= D^k e^c and r^c e^(k+1) < D^(k+1) e^c: decided exactly, with no logarithm, so a
// bucket that a float32 log rounds onto the next integer fails here (gen_t5_log_distance draws
// such distances).
void t5_log_buckets_lie_between_integer_power_boundaries(const Implementation& implementation) {
  const auto [spec, distance] = *gen_t5_log_distance();
  RC_TAG(spec.bidirectional ? "bidirectional" : "causal");
  const auto [half, exact] = t5_layout(spec);
  const std::int64_t logarithmic = half - exact;
  const Wide value = Wide(logarithmic) * log(Wide(distance) / Wide(exact)) / log(Wide(spec.max_distance) / Wide(exact));
  RC_TAG(abs(value - round(value)) < Wide("1e-6") ? "within 1e-6 of a boundary" : "away from a boundary");
  const auto evaluator = implementation.prepare(spec, 2);
  const bool ahead = spec.bidirectional && *rc::gen::arbitrary<bool>();
  const std::int64_t query = *gen_position(kLargestPosition - distance);
  const Index got = index_at(*evaluator, spec, ahead ? Point{{query, query + distance, 0}} : Point{{query + distance, query, 0}});
  const std::int64_t k = got.value - (ahead ? half : 0) - exact;
  bool holds = k >= 0 && k < logarithmic;
  if (holds) {
    using boost::multiprecision::mpz_int;
    const auto c = static_cast<unsigned>(logarithmic), below = static_cast<unsigned>(k);
    const mpz_int r(distance), e(exact), d(spec.max_distance);
    const mpz_int reached = pow(r, c) * pow(e, below), boundary = pow(d, below) * pow(e, c);
    holds = reached >= boundary && reached * e < boundary * d;
  }
  require_index(holds,
                fmt::format("|rp| = {} takes bucket {} + k with (r/e)^c >= (D/e)^k > (r/e)^c (e/D) (c = {}, value {})",
                            distance, (ahead ? half : 0) + exact, logarithmic, static_cast<double>(value)),
                got);
}

void t5_sign_selects_the_bucket_half(const Implementation& implementation) {
  const Spec spec = *gen_t5_spec();
  RC_TAG(spec.bidirectional ? "bidirectional" : "causal");
  const auto evaluator = implementation.prepare(spec, 2);
  const Point pair = gen_pair();
  const std::int64_t rp = pair.c[1] - pair.c[0];
  const Index got = index_at(*evaluator, spec, pair);
  if (!spec.bidirectional) {
    require_index(rp <= 0 || got.value == 0, "causal: keys ahead all share bucket 0", got);
    return;
  }
  const std::int64_t half = t5_layout(spec).half;
  require_index((rp > 0) == (got.value >= half) && got.value >= 0 && got.value < spec.buckets,
                fmt::format("keys ahead take buckets [{}, {}), the rest [0, {})", half, spec.buckets, half), got);
}

void shaw_indices_are_clipped_to_the_window(const Implementation& implementation) {
  const Spec spec = *gen_shaw_window_spec();
  const auto evaluator = implementation.prepare(spec, 2);
  const Point pair = gen_pair();
  const std::int64_t rp = pair.c[1] - pair.c[0];
  const Index got = index_at(*evaluator, spec, pair);
  const std::int64_t last = spec.k + spec.shaw_right();
  const bool in_range = got.value >= 0 && got.value <= last;
  const bool clipped = (rp < spec.shaw_right() || got.value == last) && (rp > -spec.k || got.value == 0);
  require_index(in_range && clipped,
                fmt::format("indices lie in [0, {}], j-i below -{} or above {} clipped to the ends", last, spec.k, spec.shaw_right()), got);
}

void shaw_index_is_the_offset_distance_inside_the_window(const Implementation& implementation) {
  const Spec spec = *gen_shaw_window_spec();
  const auto evaluator = implementation.prepare(spec, 2);
  const Point pair = gen_pair(std::max(spec.k, spec.shaw_right()));
  const std::int64_t rp = pair.c[1] - pair.c[0];
  RC_PRE(rp >= -spec.k && rp <= spec.shaw_right());
  const Index got = index_at(*evaluator, spec, pair);
  require_index(got.value == rp + spec.k, fmt::format("inside the window the index is j-i+k = {}", rp + spec.k), got);
}

}  // namespace

std::vector<Property> relative_bias_properties() {
  return {
      {"alibiBiasIsTranslationInvariant", "alibi (symmetric, causal; key and last-key: the query moves alone)", with_verdicts<alibi_bias_is_translation_invariant>,
       &kVariantBiasTranslation},
      {"alibiBiasIsLinearInDistance", "alibi (symmetric, causal; key and last-key: in the key)", with_verdicts<alibi_bias_is_linear_in_distance>},
      {"alibiSlopesFormThePublishedSeries", "alibi (power-of-two and other head counts)",
       with_verdicts<alibi_slopes_form_the_published_series>},
      {"alibiCausalMaskHidesExactlyTheFutureKeys", "alibi causal", with_verdicts<alibi_causal_mask_hides_exactly_the_future_keys>},
      {"t5BucketsAreExactBelowMaxExact", "t5 (bidirectional, causal)", with_verdicts<t5_buckets_are_exact_below_max_exact>},
      {"t5BucketsAreMonotoneInDistance", "t5 (bidirectional, causal)", with_verdicts<t5_buckets_are_monotone_in_distance>},
      {"t5BucketsSaturateAtTheLastBucket", "t5 (bidirectional, causal)", with_verdicts<t5_buckets_saturate_at_the_last_bucket>},
      {"t5LogBucketsLieBetweenIntegerPowerBoundaries", "t5 (bidirectional, causal; distances beside each boundary)",
       with_verdicts<t5_log_buckets_lie_between_integer_power_boundaries>},
      {"t5SignSelectsTheBucketHalf", "t5 (bidirectional, causal)", with_verdicts<t5_sign_selects_the_bucket_half>},
      {"shawIndicesAreClippedToTheWindow", "shaw", with_verdicts<shaw_indices_are_clipped_to_the_window>},
      {"shawIndexIsTheOffsetDistanceInsideTheWindow", "shaw", with_verdicts<shaw_index_is_the_offset_distance_inside_the_window>},
  };
}

}  // namespace peconform
