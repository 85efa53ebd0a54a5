#include "properties/generators.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <fmt/format.h>

#include "reference/tier_bounds.hpp"

namespace peconform {
namespace {

// Parsing the canonical text back validates what a generator built against the spec's own rules,
// so a generator bug surfaces as an error naming the key rather than a silent odd case.
Spec validated(const Spec& spec) { return Spec::parse(spec.canonical()); }

Decimal decimal(const std::string& text) { return Decimal::parse(text); }

// A decimal m.mm with m in [lo, hi): factors, low/high frequency factors and the like.
rc::Gen<Decimal> gen_decimal_in(int lo, int hi) {
  return rc::gen::map(rc::gen::inRange(lo * 100, hi * 100),
                      [](int hundredths) { return decimal(fmt::format("{}.{:02d}", hundredths / 100, hundredths % 100)); });
}

struct DtypeLayout {
  int exponent_bits;
  int mantissa_bits;
};

DtypeLayout layout_of(Dtype dtype) {
  switch (dtype) {
    case Dtype::fp64: return {11, 52};
    case Dtype::fp32: return {8, 23};
    case Dtype::fp16: return {5, 10};
    case Dtype::bf16: return {8, 7};
  }
  return {11, 52};
}

// The value of an IEEE bit pattern split into its fields.
Wide decode(const DtypeLayout& layout, bool negative, std::uint64_t exponent, std::uint64_t mantissa) {
  const std::uint64_t all_ones = (std::uint64_t{1} << layout.exponent_bits) - 1;
  const int bias = static_cast<int>(all_ones / 2);
  Wide magnitude;
  if (exponent == all_ones)
    magnitude = mantissa == 0 ? std::numeric_limits<Wide>::infinity() : std::numeric_limits<Wide>::quiet_NaN();
  else if (exponent == 0)
    magnitude = ldexp(Wide(mantissa), 1 - bias - layout.mantissa_bits);
  else
    magnitude = ldexp(Wide(mantissa + (std::uint64_t{1} << layout.mantissa_bits)),
                      static_cast<int>(exponent) - bias - layout.mantissa_bits);
  return negative ? -magnitude : magnitude;
}

// A value of `layout` with the given exponent field, a uniform mantissa and either sign.
Wide any_mantissa(const DtypeLayout& layout, std::uint64_t exponent) {
  const bool negative = *rc::gen::arbitrary<bool>();
  return decode(layout, negative, exponent, *uniform_in<std::uint64_t>(0, std::uint64_t{1} << layout.mantissa_bits));
}

// One exact pattern (zero, the largest finite value, ...) with either sign.
rc::Gen<Wide> signed_pattern(const DtypeLayout& layout, std::uint64_t exponent, std::uint64_t mantissa) {
  return rc::gen::map(rc::gen::arbitrary<bool>(),
                      [layout, exponent, mantissa](bool negative) { return decode(layout, negative, exponent, mantissa); });
}

rc::Gen<Wide> gen_subnormal(const DtypeLayout& layout) {
  return rc::gen::exec([layout] {
    const bool negative = *rc::gen::arbitrary<bool>();
    return decode(layout, negative, 0, *uniform_in<std::uint64_t>(1, std::uint64_t{1} << layout.mantissa_bits));
  });
}

// Zero, a subnormal or the largest finite value: the special finite values.
rc::Gen<Wide> gen_special_finite(const DtypeLayout& layout) {
  const std::uint64_t all_ones = (std::uint64_t{1} << layout.exponent_bits) - 1;
  const std::uint64_t mantissa_end = std::uint64_t{1} << layout.mantissa_bits;
  return rc::gen::oneOf(signed_pattern(layout, 0, 0), gen_subnormal(layout),
                        signed_pattern(layout, all_ones - 1, mantissa_end - 1));
}

rc::Gen<Wide> gen_value(Dtype dtype, Finiteness finiteness) {
  const DtypeLayout layout = layout_of(dtype);
  const std::uint64_t all_ones = (std::uint64_t{1} << layout.exponent_bits) - 1;
  const std::uint64_t mantissa_end = std::uint64_t{1} << layout.mantissa_bits;
  // Any finite pattern, the exponent field uniform so that every binade appears.
  const auto any_finite = rc::gen::exec([layout, all_ones] { return any_mantissa(layout, *uniform_in<std::uint64_t>(0, all_ones)); });
  // Ordinary magnitudes around 1.
  const auto near_one = rc::gen::exec(
      [layout, all_ones] { return any_mantissa(layout, *uniform_in<std::uint64_t>(all_ones / 2 - 4, all_ones / 2 + 4)); });
  const auto largest = signed_pattern(layout, all_ones - 1, mantissa_end - 1);
  const auto last_kind = finiteness == Finiteness::specials_too
                             ? rc::gen::oneOf(signed_pattern(layout, all_ones, 0), signed_pattern(layout, all_ones, 1))
                             : signed_pattern(layout, 1, 0);  // the smallest normal value
  return rc::gen::weightedOneOf<Wide>({{10, any_finite},
                                       {2, near_one},
                                       {1, signed_pattern(layout, 0, 0)},
                                       {1, gen_subnormal(layout)},
                                       {1, largest},
                                       {1, last_kind}});
}

std::vector<int> even_dims() {
  return {2, 4, 6, 8, 10, 12, 16, 24, 32, 48, 64, 80, 96, 128, 160, 256};
}

rc::Gen<int> gen_even_dims() {
  return rc::gen::weightedOneOf<int>({{6, rc::gen::elementOf(even_dims())},
                                      {1, rc::gen::element(512)},
                                      {2, rc::gen::map(rc::gen::inRange(1, 65), [](int half) { return 2 * half; })}});
}

FrequencyPlan gen_plan(PlanKind kind, int rotary_dims) {
  FrequencyPlan plan;
  plan.kind = kind;
  const std::size_t pairs = static_cast<std::size_t>(rotary_dims / 2);
  const auto gen_orig = rc::gen::elementOf(std::vector<std::int64_t>{256, 512, 1024, 2048, 4096, 8192, 32768});
  switch (kind) {
    case PlanKind::none: break;
    case PlanKind::linear: plan.factor = *gen_decimal_in(1, 16); break;
    case PlanKind::dynamic:
      plan.factor = *gen_decimal_in(1, 16);
      plan.orig = *gen_orig;
      break;
    case PlanKind::yarn:
      plan.factor = *gen_decimal_in(1, 40);
      plan.orig = *gen_orig;
      if (*rc::gen::inRange(0, 4) == 0) {
        plan.beta_slow = *gen_decimal_in(1, 4);
        plan.beta_fast = Decimal(*rc::gen::inRange(8, 64));
        plan.truncate = *rc::gen::arbitrary<bool>();
      }
      break;
    case PlanKind::llama3:
      plan.factor = *gen_decimal_in(1, 32);
      plan.orig = *gen_orig;
      plan.low = *gen_decimal_in(1, 3);
      plan.high = Decimal(*rc::gen::inRange(3, 9));
      break;
    case PlanKind::longrope:
      plan.factor = *gen_decimal_in(1, 32);
      plan.orig = *gen_orig;
      plan.short_factors = *rc::gen::container<std::vector<Decimal>>(pairs, gen_decimal_in(1, 4));
      plan.long_factors = *rc::gen::container<std::vector<Decimal>>(pairs, gen_decimal_in(1, 64));
      break;
    case PlanKind::custom:
      plan.factors = *rc::gen::container<std::vector<Decimal>>(pairs, gen_decimal_in(1, 16));
      break;
    case PlanKind::proportional:
      plan.factor = *gen_decimal_in(1, 16);
      plan.pairs = *rc::gen::inRange(1, static_cast<int>(pairs) + 1);
      break;
  }
  return plan;
}

// Three section sizes (t, h, w) summing to `pairs`, each at least one where pairs allow.
std::vector<int> gen_sections(int pairs) {
  if (pairs < 3) return {pairs};
  const int t = *rc::gen::inRange(1, pairs - 1);
  const int h = *rc::gen::inRange(1, pairs - t);
  return {t, h, pairs - t - h};
}

}  // namespace

rc::Gen<std::int64_t> gen_position(std::int64_t limit) {
  std::vector<std::int64_t> edges;
  for (std::int64_t edge : {std::int64_t{0}, std::int64_t{1}, (std::int64_t{1} << 24) - 1, std::int64_t{1} << 24,
                            (std::int64_t{1} << 24) + 1, kLargestPosition})
    if (edge <= limit) edges.push_back(edge);
  const int bits = std::bit_width(static_cast<std::uint64_t>(limit));
  auto log_uniform = rc::gen::mapcat(uniform_in(0, bits + 1), [limit](int bit) {
    const std::int64_t lo = bit == 0 ? 0 : std::int64_t{1} << (bit - 1);
    const std::int64_t hi = std::min((std::int64_t{1} << bit) - 1, limit);
    return uniform_in<std::int64_t>(std::min(lo, hi), hi + 1);
  });
  // A band that starts past `limit` gives its weight to the log-uniform draw.
  auto band = [limit, log_uniform](std::int64_t lo, std::int64_t hi) {
    return lo > limit ? log_uniform : uniform_in<std::int64_t>(lo, std::min(hi, limit) + 1);
  };
  return rc::gen::weightedOneOf<std::int64_t>({{2, uniform_in<std::int64_t>(0, limit + 1)},
                                               {4, log_uniform},
                                               {1, band(std::int64_t{1} << 23, std::int64_t{1} << 24)},
                                               {1, band(std::int64_t{1} << 24, kLargestPosition)},
                                               {2, rc::gen::elementOf(edges)}});
}

std::string position_band(std::int64_t position) {
  const std::int64_t magnitude = position < 0 ? -position : position;
  if (magnitude == 0) return "0";
  if (magnitude < (1 << 10)) return "<2^10";
  if (magnitude < (1 << 24)) return "<2^24";
  return "<2^31";
}

rc::Gen<std::vector<Wide>> gen_values(Dtype dtype, std::size_t count, Finiteness finiteness) {
  return rc::gen::container<std::vector<Wide>>(count, gen_value(dtype, finiteness));
}

rc::Gen<std::vector<Wide>> gen_comparable_values(Dtype dtype, std::size_t count) {
  return rc::gen::exec([dtype, count] {
    const DtypeLayout layout = layout_of(dtype);
    const std::uint64_t all_ones = (std::uint64_t{1} << layout.exponent_bits) - 1;
    const std::uint64_t shared = *uniform_in<std::uint64_t>(1, all_ones);
    const bool with_specials = *rc::gen::weightedElement<bool>({{3, false}, {1, true}});
    const auto near_shared = rc::gen::exec([layout, shared] {
      const std::uint64_t below = *uniform_in<std::uint64_t>(0, kComparableSpread + 1);
      return any_mantissa(layout, shared > below ? shared - below : 0);
    });
    const auto element = with_specials ? rc::gen::weightedOneOf<Wide>({{7, near_shared}, {1, gen_special_finite(layout)}})
                                       : near_shared;
    return *rc::gen::container<std::vector<Wide>>(count, element);
  });
}

std::string value_kinds(const std::vector<Wide>& values, Dtype dtype) {
  const DtypeLayout layout = layout_of(dtype);
  const Wide smallest_normal = decode(layout, false, 1, 0);
  bool subnormal = false, zero = false, non_finite = false;
  for (const Wide& value : values) {
    non_finite = non_finite || !isfinite(value);
    zero = zero || value == 0;
    subnormal = subnormal || (value != 0 && abs(value) < smallest_normal);
  }
  return non_finite ? "non-finite" : subnormal ? "subnormal" : zero ? "zero" : "normal";
}

rc::Gen<Decimal> gen_base() {
  auto published = rc::gen::elementOf(std::vector<std::string>{"10", "100", "10000", "500000", "1000000", "10000000"});
  auto between = rc::gen::exec([] {
    const int exponent = *rc::gen::inRange(1, 7);
    return fmt::format("{}.{:02d}e{}", *rc::gen::inRange(1, 10), *rc::gen::inRange(0, 100), exponent);
  });
  return rc::gen::map(rc::gen::weightedOneOf<std::string>({{1, published}, {1, between}}), decimal);
}

rc::Gen<Dtype> gen_dtype() { return rc::gen::element(Dtype::fp64, Dtype::fp32, Dtype::fp16, Dtype::bf16); }

rc::Gen<PrecisionClass> gen_precision() {
  return rc::gen::element(PrecisionClass::exact_angle, PrecisionClass::fp32_angle, PrecisionClass::lowp_cache);
}

// A table's class: fp64-angle (float64 tables) besides the three every angular family has.
rc::Gen<PrecisionClass> gen_table_precision() {
  return rc::gen::element(PrecisionClass::exact_angle, PrecisionClass::fp32_angle, PrecisionClass::lowp_cache,
                          PrecisionClass::fp64_angle);
}

// Under fp32-angle, how the kernel forms theta or ALiBi's slopes (docs/precision.md, `theta`, `slopes`):
// each of the family's recipes alike, where the plan allows one.
void draw_float32_recipe(Spec& spec) {
  if (spec.precision != PrecisionClass::fp32_angle) return;
  if (spec.family == Family::alibi) {
    spec.slopes = *rc::gen::element(SlopeRecipe::exact, SlopeRecipe::bloom, SlopeRecipe::mpt);
    return;
  }
  const std::vector<ThetaRecipe> recipes = theta_recipes(spec);
  if (recipes.size() > 1) spec.theta = *rc::gen::elementOf(recipes);
}

// Where a rotary kernel rounds cos/sin and its products (docs/precision.md, `cache`, `math`): each of the
// four combinations alike, drawn last so that every earlier draw is what it was before the keys
// existed. lowp-cache already holds cos/sin in the storage dtype, so it draws math alone.
void draw_rotation_rounding(Spec& spec) {
  if (spec.precision != PrecisionClass::lowp_cache) spec.cache = *rc::gen::element(RoundsIn::compute, RoundsIn::storage);
  spec.math = *rc::gen::element(RoundsIn::compute, RoundsIn::storage);
}

const std::vector<Layout>& rotating_layouts() {
  static const std::vector<Layout> layouts{Layout::interleaved, Layout::half};
  return layouts;
}

const std::vector<Layout>& every_layout() {
  static const std::vector<Layout> layouts{Layout::interleaved, Layout::half, Layout::interleaved_to_half};
  return layouts;
}

rc::Gen<Spec> gen_rotary_spec(const RotaryShape& shape) {
  return rc::gen::exec([shape] {
    Spec spec;
    spec.family = shape.family;
    spec.base = *gen_base();
    spec.layout = *rc::gen::elementOf(shape.family == Family::rope2d ? rotating_layouts() : shape.layouts);
    spec.sign = *rc::gen::element(1, -1);
    spec.dtype = *gen_dtype();
    spec.precision = *gen_precision();
    if (*rc::gen::inRange(0, 4) == 0) spec.amp = *gen_decimal_in(0, 3);
    if (spec.amp.to_double() == 0) spec.amp = Decimal(1);
    if (shape.family == Family::rope2d) {
      spec.d = 4 * *rc::gen::inRange(1, 33);
      draw_float32_recipe(spec);
      draw_rotation_rounding(spec);
      return validated(spec);
    }
    spec.d = *gen_even_dims();
    const bool partial = shape.partial == Partial::always ||
                         (shape.partial == Partial::sometimes && *rc::gen::inRange(0, 3) == 0);
    if (partial) {
      spec.d += 2 + *rc::gen::inRange(0, 2);  // room to pass through; odd d: the pass-through absorbs it
      spec.rot = 2 * *rc::gen::inRange(1, (spec.d - 1) / 2 + 1);
      spec.rot_at = *rc::gen::element(RotaryPlacement::first, RotaryPlacement::last);
    }
    const int rotary = spec.rotary_dims();
    PlanKind kind = *rc::gen::elementOf(shape.plans);
    if (kind == PlanKind::dynamic && rotary <= 2) kind = PlanKind::none;
    spec.scaling = gen_plan(kind, rotary);
    if (shape.family == Family::xpos) {
      spec.role = *rc::gen::element(XposRole::query, XposRole::key);
      spec.scale_base = *rc::gen::element(Decimal(512), Decimal(64), Decimal(4096));
    }
    if (shape.family == Family::mrope) {
      spec.sections = gen_sections(rotary / 2);
      spec.section_mode = *rc::gen::element(SectionMode::blocked, SectionMode::interleaved);
    }
    draw_float32_recipe(spec);
    draw_rotation_rounding(spec);
    return validated(spec);
  });
}

const std::vector<PlanKind>& all_plans() {
  static const std::vector<PlanKind> plans{PlanKind::none,   PlanKind::linear,   PlanKind::dynamic, PlanKind::yarn,
                                           PlanKind::llama3, PlanKind::longrope, PlanKind::custom};
  return plans;
}

rc::Gen<Spec> gen_plain_rotary_spec(const std::vector<Layout>& layouts) {
  return rc::gen::oneOf(gen_rotary_spec({Family::rope, all_plans(), Partial::sometimes, layouts}),
                        gen_rotary_spec({Family::mrope, {PlanKind::none, PlanKind::linear}, Partial::sometimes, layouts}),
                        gen_rotary_spec({Family::rope2d, {PlanKind::none}, Partial::never}));
}

rc::Gen<Spec> gen_sinusoidal_spec() {
  return rc::gen::exec([] {
    Spec spec;
    spec.family = Family::sinusoidal;
    spec.base = *gen_base();
    spec.layout = *rc::gen::element(Layout::interleaved, Layout::half);
    spec.d = *gen_even_dims();
    spec.order = *rc::gen::element(SinusoidalOrder::sin_cos, SinusoidalOrder::cos_sin);
    spec.freq = *rc::gen::element(FrequencyRule::power, FrequencyRule::geometric);
    // Odd d pads a zero column under half, and ends in a lone sine under interleaved (power only).
    if (spec.layout == Layout::half || spec.freq == FrequencyRule::power) spec.d += *rc::gen::inRange(0, 2);
    if (*rc::gen::inRange(0, 3) == 0) spec.offset = *rc::gen::inRange<std::int64_t>(1, 4);
    spec.dtype = *gen_dtype();
    spec.precision = *gen_table_precision();
    draw_float32_recipe(spec);
    return validated(spec);
  });
}

rc::Gen<Spec> gen_xl_spec() {
  return rc::gen::exec([] {
    Spec spec;
    spec.family = Family::xl;
    spec.base = *gen_base();
    spec.d = *gen_even_dims();
    if (*rc::gen::inRange(0, 2) == 0) spec.clamp_len = *gen_position(1 << 20) + 1;
    spec.dtype = *gen_dtype();
    spec.precision = *gen_table_precision();
    draw_float32_recipe(spec);
    return validated(spec);
  });
}

rc::Gen<Spec> gen_learned_spec() {
  return rc::gen::exec([] {
    Spec spec;
    spec.family = Family::learned;
    spec.d = *rc::gen::inRange(1, 17);
    spec.rows = *rc::gen::inRange<std::int64_t>(1, 65);
    spec.dtype = *gen_dtype();
    return validated(spec);
  });
}

rc::Gen<Spec> gen_alibi_spec() {
  return rc::gen::exec([] {
    Spec spec;
    spec.family = Family::alibi;
    spec.heads = *rc::gen::weightedOneOf<int>({{1, rc::gen::element(8, 12, 16, 32, 40, 64)}, {2, rc::gen::inRange(1, 97)}});
    spec.mode = *rc::gen::element(AlibiMode::symmetric, AlibiMode::causal, AlibiMode::key, AlibiMode::last_key);
    spec.dtype = *gen_dtype();
    spec.precision = *gen_precision();
    draw_float32_recipe(spec);
    return validated(spec);
  });
}

rc::Gen<Spec> gen_t5_spec() {
  return rc::gen::exec([] {
    Spec spec;
    spec.family = Family::t5;
    spec.bidirectional = *rc::gen::arbitrary<bool>();
    spec.buckets = *rc::gen::weightedOneOf<int>({{1, rc::gen::element(32, 64, 128)}, {2, rc::gen::inRange(4, 257)}});
    const int exact = (spec.bidirectional ? spec.buckets / 2 : spec.buckets) / 2;
    spec.max_distance = *rc::gen::weightedOneOf<int>({{1, rc::gen::element(128, 256, 1024)},
                                                      {2, rc::gen::inRange(exact + 1, exact + 4096)}});
    if (spec.max_distance <= exact) spec.max_distance = exact + 1;
    return validated(spec);
  });
}

rc::Gen<Spec> gen_shaw_spec() {
  return rc::gen::exec([] {
    Spec spec;
    spec.family = Family::shaw;
    spec.k = *rc::gen::weightedOneOf<int>({{1, rc::gen::element(1, 2, 4, 16, 64)}, {1, rc::gen::inRange(1, 1025)}});
    return validated(spec);
  });
}

rc::Gen<Spec> gen_shaw_window_spec() {
  return rc::gen::exec([] {
    Spec spec = *gen_shaw_spec();
    if (*rc::gen::inRange(0, 2) == 0) {
      spec.right = *rc::gen::weightedOneOf<int>({{1, rc::gen::element(0, 1, 8)}, {1, rc::gen::inRange(0, 1025)}});
      if (spec.right == spec.k) spec.right.reset();  // the symmetric window's one spelling
    }
    return validated(spec);
  });
}

namespace {

struct T5Split {
  std::int64_t exact, logarithmic;  // e = max_exact, and c, the buckets of the logarithmic part
};
T5Split t5_split(const Spec& spec) {
  const std::int64_t half = spec.bidirectional ? spec.buckets / 2 : spec.buckets;
  return {half / 2, half - half / 2};
}

// The distance where the logarithmic value c ln(r/e)/ln(D/e) reaches k: e (D/e)^(k/c).
Wide t5_boundary(const Spec& spec, std::int64_t k) {
  const auto [e, c] = t5_split(spec);
  return Wide(e) * pow(Wide(spec.max_distance) / Wide(e), Wide(k) / Wide(c));
}

T5Distance uniform_log_distance(const Spec& spec) {
  return {spec, *uniform_in<std::int64_t>(t5_split(spec).exact, spec.max_distance)};
}

// The last distance below boundary k or the first at or past it, for a random k.
T5Distance beside_a_boundary(const Spec& spec) {
  const auto [e, c] = t5_split(spec);
  if (c < 2) return uniform_log_distance(spec);
  const Wide boundary = t5_boundary(spec, *uniform_in<std::int64_t>(1, c));
  const std::int64_t distance = static_cast<std::int64_t>(ceil(boundary)) - *uniform_in<std::int64_t>(0, 2);
  return {spec, std::clamp<std::int64_t>(distance, e, spec.max_distance - 1)};
}

// A spec whose boundary k lies just above the integer distance r: r = floor(e (D*/e)^(k/c))
// for a target D* in [2^20, 2^30), then D = ceil(e (r/e)^(c/k)) >= D*; k starts where r > e.
T5Distance a_hair_below_a_boundary() {
  Spec spec;
  spec.family = Family::t5;
  spec.bidirectional = *rc::gen::arbitrary<bool>();
  spec.buckets = *uniform_in(8, 257);
  const auto [e, c] = t5_split(spec);
  const Wide target(*uniform_in<std::int64_t>(std::int64_t{1} << 20, std::int64_t{1} << 30));
  const Wide log_ratio = log(target / Wide(e));
  const std::int64_t first_k = std::max<std::int64_t>(1, static_cast<std::int64_t>(ceil(Wide(c) * log(Wide(e + 1) / Wide(e)) / log_ratio)));
  spec.max_distance = static_cast<int>(target);
  if (first_k > c - 1) return beside_a_boundary(validated(spec));
  const std::int64_t k = *uniform_in<std::int64_t>(first_k, c);
  const std::int64_t r = std::max(e + 1, static_cast<std::int64_t>(floor(Wide(e) * exp(log_ratio * Wide(k) / Wide(c)))));
  const Wide distance = ceil(Wide(e) * pow(Wide(r) / Wide(e), Wide(c) / Wide(k)));
  if (distance > Wide(1 << 30) || distance <= Wide(r + 1)) return beside_a_boundary(validated(spec));
  spec.max_distance = static_cast<int>(distance);
  return {validated(spec), r + *uniform_in<std::int64_t>(0, 2)};
}

}  // namespace

rc::Gen<T5Distance> gen_t5_log_distance() {
  return rc::gen::exec([] {
    switch (*rc::gen::weightedElement<int>({{2, 0}, {2, 1}, {1, 2}})) {
      case 0: return uniform_log_distance(*gen_t5_spec());
      case 1: return beside_a_boundary(*gen_t5_spec());
      default: return a_hair_below_a_boundary();
    }
  });
}

rc::Gen<Spec> gen_any_spec() {
  return rc::gen::oneOf(gen_plain_rotary_spec(),
                        gen_rotary_spec({Family::xpos, {PlanKind::none, PlanKind::linear, PlanKind::yarn}, Partial::sometimes}),
                        gen_sinusoidal_spec(), gen_xl_spec(), gen_learned_spec(), gen_alibi_spec(), gen_t5_spec(),
                        gen_shaw_spec());
}

std::int64_t position_limit(const Spec& spec) {
  return spec.family == Family::xpos ? xpos_position_limit(spec) : kLargestPosition;
}

std::int64_t gen_sequence_length() { return *gen_position(1 << 16) + 1; }

rc::Gen<Point> gen_point(const Spec& spec, std::int64_t limit) {
  const int arity = point_arity(spec.family);
  const std::int64_t top = std::min(limit, position_limit(spec));
  return rc::gen::exec([arity, top] {
    Point point;
    for (int axis = 0; axis < arity; ++axis) point.c[static_cast<std::size_t>(axis)] = *gen_position(top);
    return point;
  });
}

}  // namespace peconform
