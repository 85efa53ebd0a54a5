#pragma once
// Generators for the properties: specs of every family and frequency plan, positions, and input
// values drawn over bit patterns. RapidCheck's own generators never produce NaN, Inf,
// subnormals or -0 and know nothing of positions near 2^31, so these are our own
// (../shared/DESIGN.md section 4). RapidCheck also narrows `inRange` with its size (at size 0
// it returns the low end), which would keep special values and large positions out of most
// cases; the kinds and bands below are picked by weight and drawn at full range whatever the
// size, so every one of them appears at every size.
#include <rapidcheck.h>

#include <cstdint>
#include <string>
#include <vector>

#include "backends/implementation.hpp"
#include "spec/spec.hpp"

namespace peconform {

inline constexpr std::int64_t kLargestPosition = 2147483647;  // 2^31 - 1

// A uniform integer in [lo, hi) at every size: inRange at RapidCheck's nominal size draws
// over the whole range, and still shrinks towards lo. A share a property states ("a quarter
// of the cases") is drawn with this, not with inRange, whose early, small-size cases all take lo.
template <class T> rc::Gen<T> uniform_in(T lo, T hi) { return rc::gen::resize(rc::kNominalSize, rc::gen::inRange<T>(lo, hi)); }

// A position in [0, limit]: uniform, log-uniform (every power of two equally likely), the band
// [2^23, 2^24] (where an angle p theta_0 = p crosses fp32-angle's horizon near 2^23.6), the
// band [2^24, limit] (past float32's exact integers), or an edge (0, 1, 2^24 - 1, 2^24,
// 2^24 + 1, 2^31 - 1) that fits under `limit`. Bands are clipped to `limit`; one that starts
// past it is drawn log-uniformly instead.
rc::Gen<std::int64_t> gen_position(std::int64_t limit = kLargestPosition);
// The band a position falls in, for RC_TAG: "0", "<2^10", "<2^24", "<2^31".
std::string position_band(std::int64_t position);

// Whether a property's inputs may hold NaN and Inf. Subnormals, zeros of either sign, the
// largest and the smallest values appear in both.
enum class Finiteness { finite_only, specials_too };
// `count` values representable in `dtype`, drawn over its bit patterns so that every exponent
// range is as likely as any other.
rc::Gen<std::vector<Wide>> gen_values(Dtype dtype, std::size_t count, Finiteness finiteness);
// `count` finite values of `dtype` for one side of an inner product: one exponent for the
// whole vector (uniform over the dtype's normal range) and each element within a few binades
// below it, so that the pairs' products sit at comparable magnitudes and a relation checks
// many pairs rather than the one that dwarfs the rest. A quarter of the vectors also carry
// zeros, subnormals and the largest finite value on some elements.
rc::Gen<std::vector<Wide>> gen_comparable_values(Dtype dtype, std::size_t count);
// The binades below the shared exponent that gen_comparable_values() spreads elements over.
inline constexpr int kComparableSpread = 3;
// What a list of values of `dtype` holds, for RC_TAG: "non-finite", "subnormal" (below the
// dtype's own smallest normal value), "zero" or "normal", the first that applies.
std::string value_kinds(const std::vector<Wide>& values, Dtype dtype);

// Frequency bases from 10 to 1e7: the published ones and three-digit decimals between.
rc::Gen<Decimal> gen_base();

// The storage dtypes and the precision classes a kernel spec may carry.
rc::Gen<Dtype> gen_dtype();
rc::Gen<PrecisionClass> gen_precision();
rc::Gen<PrecisionClass> gen_table_precision();

// A rotary spec of `family` (rope, xpos, mrope, rope2d) with a plan drawn from `plans` (rope,
// xpos and mrope only; rope2d has none). `partial` says whether rot < d (odd d included) may
// or must appear.
enum class Partial { never, sometimes, always };
// The layouts that write each pair where they read it, so that the map is a rotation.
const std::vector<Layout>& rotating_layouts();
// Those and interleaved_to_half, a rotation followed by a fixed permutation (rope2d draws only
// the rotating ones, the only ones it has).
const std::vector<Layout>& every_layout();
struct RotaryShape {
  Family family = Family::rope;
  std::vector<PlanKind> plans{PlanKind::none};
  Partial partial = Partial::sometimes;
  std::vector<Layout> layouts = every_layout();
};
// Every frequency plan.
const std::vector<PlanKind>& all_plans();
rc::Gen<Spec> gen_rotary_spec(const RotaryShape& shape);
// A rotary spec of any family among rope, mrope and rope2d (those with R(a)R(b) = R(a+b) and
// no position-dependent amplitude), any plan where the family takes one, in one of `layouts`.
rc::Gen<Spec> gen_plain_rotary_spec(const std::vector<Layout>& layouts = every_layout());

rc::Gen<Spec> gen_sinusoidal_spec();
rc::Gen<Spec> gen_xl_spec();
rc::Gen<Spec> gen_learned_spec();
rc::Gen<Spec> gen_alibi_spec();
rc::Gen<Spec> gen_t5_spec();
rc::Gen<Spec> gen_shaw_spec();
// A Shaw spec whose window past the query (`right`) differs from k half the time, as
// wav2vec2-BERT's does. The campaign draws gen_shaw_spec: `right` is drawn only where named.
rc::Gen<Spec> gen_shaw_window_spec();
// A T5 spec and a distance in its logarithmic range [max_exact, max_distance). Besides uniform
// distances, it draws the last distance before a bucket boundary k (where c ln(r/e)/ln(D/e)
// reaches k, with e = max_exact, c = the logarithmic buckets, D = max_distance) and the first
// one after it, and specs built so that a boundary lies a hair above an integer distance r:
// D = ceil(e (r/e)^(c/k)) with D near 2^20 to 2^30 leaves c ln(r/e)/ln(D/e) within about
// k/(D ln(D/e)) below k, closer than float32 can resolve.
struct T5Distance {
  Spec spec;
  std::int64_t distance = 0;
};
rc::Gen<T5Distance> gen_t5_log_distance();
// Any family, any plan.
rc::Gen<Spec> gen_any_spec();

// A sequence length for dynamic NTK and LongRoPE, on either side of the original lengths that
// the plans are generated with (256 to 32768). Call inside a property.
std::int64_t gen_sequence_length();

// A point for `spec` with every coordinate in [0, limit] (xPos is held to 2^20, see
// reference/tier_bounds.hpp).
rc::Gen<Point> gen_point(const Spec& spec, std::int64_t limit = kLargestPosition);
// The largest coordinate a property may use for `spec`.
std::int64_t position_limit(const Spec& spec);

}  // namespace peconform
