#include "mutants.hpp"

#include <bit>
#include <cmath>
#include <fmt/format.h>
#include <functional>
#include <limits>
#include <map>
#include <stdexcept>

#include "backends/cpu/storage.hpp"
#include "backends/reference_tiers.hpp"
#include "precision/error_model.hpp"
#include "properties/checks.hpp"
#include "properties/rotary_support.hpp"
#include "reference/frequency_plans.hpp"
#include "reference/rotary.hpp"
#include "reference/sinusoidal.hpp"

namespace peconform {
namespace {

bool is_sinusoid(Family family) { return family == Family::sinusoidal || family == Family::xl; }

Wide round_to_bf16(const Wide& value) {
  auto bits = std::bit_cast<std::uint32_t>(static_cast<float>(value));
  bits += 0x7FFF + ((bits >> 16) & 1);  // round to nearest, ties to even
  return Wide(std::bit_cast<float>(bits & 0xFFFF0000u));
}

Wide round_to_fp32(const Wide& value) { return Wide(static_cast<float>(value)); }
Wide round_to_fp16(const Wide& value) { return Wide(static_cast<double>(static_cast<cpu::Half>(static_cast<double>(value)))); }

// A value as a kernel of storage dtype `dtype` writes it.
Wide stored(const Wide& value, Dtype dtype) {
  switch (dtype) {
    case Dtype::fp64: return Wide(static_cast<double>(value));
    case Dtype::fp32: return round_to_fp32(value);
    case Dtype::fp16: return round_to_fp16(value);
    case Dtype::bf16: return isnan(value) ? value : round_to_bf16(value);
  }
  return value;
}

bool has_storage_dtype(Family family) { return family != Family::t5 && family != Family::shaw; }

Decimal decimal_of(const Wide& value) { return Decimal::parse(to_decimal_string(value, 36)); }

// The spec with explicit per-pair frequencies in place of its plan.
Spec with_frequencies(Spec spec, const std::vector<Wide>& frequencies) {
  spec.scaling = FrequencyPlan{};
  spec.scaling.kind = PlanKind::custom;
  for (const Wide& frequency : frequencies) spec.scaling.freqs.push_back(decimal_of(frequency));
  return spec;
}

// What a mutant changes: the spec it really computes, the point it really reads, and the values
// it writes (given the correct evaluator, for probing cos and sin); and the kernel it imitates,
// whose precision class it claims (by default the spec's own dtype and class).
struct Mutation {
  std::function<Spec(const Spec&, std::int64_t)> spec;
  std::function<Point(const Spec&, const Point&)> point;
  std::function<void(const Spec&, const Point&, std::span<const Wide>, std::vector<Wide>&, const Evaluator&)> values;
  std::function<Spec(const Spec&)> claims;
};

// A broken kernel: it computes the bug in binary128, stores each value in the claimed spec's
// dtype as that kernel would, and claims that dtype and class's bound (precision/error_model),
// never the reference tiers' own 2^-113, so a catch is a catch at a real kernel's tolerance.
class MutantEvaluator final : public Evaluator {
 public:
  MutantEvaluator(const Spec& spec, std::int64_t length, const Mutation& mutation)
      : spec_(mutation.claims ? mutation.claims(spec) : spec),
        mutation_(mutation),
        correct_(fast_tier().prepare(spec_, length)),
        computed_(fast_tier().prepare(mutation.spec ? mutation.spec(spec_, length) : spec_, length)),
        claimed_(spec_, length) {}

  std::vector<Wide> evaluate(const Point& point, std::span<const Wide> input) const override {
    std::vector<Wide> values = computed_->evaluate(mutation_.point ? mutation_.point(spec_, point) : point, input);
    if (mutation_.values) mutation_.values(spec_, point, input, values, *correct_);
    if (has_storage_dtype(spec_.family))
      for (Wide& value : values) value = stored(value, spec_.dtype);
    return values;
  }
  std::vector<Wide> error_bounds(const Point& point, std::span<const Wide> input) const override {
    return claimed_error_bounds(claimed_, point, input);
  }

 private:
  Spec spec_;
  const Mutation& mutation_;
  std::unique_ptr<Evaluator> correct_, computed_;
  Reference<FastReal> claimed_;
};

class Mutant final : public Implementation {
 public:
  Mutant(MutantInfo info, Mutation mutation) : info_(info), mutation_(std::move(mutation)) {}
  std::string name() const override { return std::string(info_.name); }
  std::unique_ptr<Evaluator> prepare(const Spec& spec, std::int64_t length) const override {
    return std::make_unique<MutantEvaluator>(spec, length, mutation_);
  }
  const MutantInfo& info() const { return info_; }

 private:
  MutantInfo info_;
  Mutation mutation_;
};

// Rotates every pair of `values` from `input` by cos/sin that `rotation` makes of the correct
// ones (probed on unit vectors at `point`).
void rerotate(const Spec& spec, const Point& point, std::span<const Wide> input, std::vector<Wide>& values,
              const Evaluator& correct, const std::function<std::pair<Wide, Wide>(const Wide&, const Wide&)>& rotation) {
  const std::vector<Wide> probe = correct.evaluate(point, unit_pairs_input(spec));
  const auto pairs = rotary_pairs(spec), inputs = rotary_input_pairs(spec);
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const auto [a, b] = pairs[i];
    const auto [in_a, in_b] = inputs[i];
    const auto [c, s] = rotation(probe[a], probe[b]);
    values[a] = input[in_a] * c - input[in_b] * s;
    values[b] = input[in_a] * s + input[in_b] * c;
  }
}

std::int64_t t5_exact_buckets(const Spec& spec) { return (spec.bidirectional ? spec.buckets / 2 : spec.buckets) / 2; }
std::int64_t t5_half_offset(const Spec& spec, const Point& point) {
  return spec.bidirectional && point.c[1] > point.c[0] ? spec.buckets / 2 : 0;
}

// Each coordinate of `point` as a kernel that holds positions in fp16 or bf16 reads it; past
// the format's range the position is +-inf, and so is every angle.
Point positions_rounded(const Point& point, Dtype format) {
  Point out = point;
  for (std::int64_t& coordinate : out.c) {
    const Wide rounded = stored(Wide(coordinate), format);
    coordinate = isfinite(rounded) ? static_cast<std::int64_t>(rounded) : coordinate;
  }
  return out;
}
bool position_overflows(const Point& point, Dtype format) {
  return std::any_of(point.c.begin(), point.c.end(), [&](std::int64_t c) { return !isfinite(stored(Wide(c), format)); });
}

using AddMutant = std::function<void(std::string_view, std::string_view, Mutation)>;

// The mutants of issue 10: each imitates a kernel that shipped (or could ship) the bug while
// claiming a real precision class.
void add_precision_mutants(const AddMutant& add) {
  for (const Dtype format : {Dtype::fp16, Dtype::bf16}) {
    add(format == Dtype::fp16 ? "positions-in-fp16" : "positions-in-bf16",
        format == Dtype::fp16 ? "position ids cast to fp16 before the angle (integers past 2048 round; past 65504 inf)"
                              : "position ids cast to bf16 before the angle, as a bf16 model's arange (integers past 256 round)",
        Mutation{{},
                 [format](const Spec& spec, const Point& point) {
                   return is_rotary(spec.family) ? positions_rounded(point, format) : point;
                 },
                 [format](const Spec& spec, const Point& point, std::span<const Wide>, std::vector<Wide>& values, const Evaluator&) {
                   if (!is_rotary(spec.family) || !position_overflows(point, format)) return;
                   for (const auto& [a, b] : rotary_pairs(spec)) values[a] = values[b] = std::numeric_limits<Wide>::quiet_NaN();
                 },
                 {}});
  }
  add("storage-dtype-cache-exact-angle", "cos/sin cached in the fp16 or bf16 storage dtype while exact-angle is claimed",
      Mutation{{}, {},
               [](const Spec& spec, const Point& point, std::span<const Wide> input, std::vector<Wide>& values,
                  const Evaluator& correct) {
                 if (!is_rotary(spec.family) || (spec.dtype != Dtype::fp16 && spec.dtype != Dtype::bf16)) return;
                 rerotate(spec, point, input, values, correct, [&](const Wide& c, const Wide& s) {
                   return std::pair{stored(c, spec.dtype), stored(s, spec.dtype)};
                 });
               },
               [](const Spec& spec) {
                 Spec claimed = spec;
                 claimed.precision = PrecisionClass::exact_angle;
                 return claimed;
               }});
  add("hf-inv-freq-bf16", "Hugging Face's float32 recipe with its inv_freq buffer cast to bf16 by model.to(bfloat16)",
      Mutation{[](Spec spec, std::int64_t) {
                 if (spec.family != Family::rope || spec.scaling.kind != PlanKind::none) return spec;
                 std::vector<Wide> frequencies = default_inv_freq(from_decimal<Wide>(spec.base), spec.rotary_dims());
                 for (Wide& theta : frequencies) theta = round_to_bf16(theta);
                 return with_frequencies(spec, frequencies);
               },
               {}, {},
               [](const Spec& spec) {
                 Spec claimed = spec;
                 if (claimed.family != Family::rope || claimed.scaling.kind != PlanKind::none) return claimed;
                 claimed.precision = PrecisionClass::fp32_angle;
                 claimed.theta = ThetaRecipe::hf;
                 return claimed;
               }});
  add("unrotated-beyond-2p23", "a float32-angle kernel that leaves every pair with |p theta| > 2^23 unrotated",
      Mutation{{}, {},
               [](const Spec& spec, const Point& point, std::span<const Wide> input, std::vector<Wide>& values,
                  const Evaluator& correct) {
                 if (spec.family != Family::rope) return;
                 const PairAngles unit = pair_angles(correct, spec, Point{{1}});
                 const auto pairs = rotary_pairs(spec), inputs = rotary_input_pairs(spec);
                 for (std::size_t i = 0; i < pairs.size(); ++i)
                   if (abs(Wide(point.c[0]) * unit.angle[i]) > Wide(0x1p23)) {
                     values[pairs[i].first] = input[inputs[i].first];
                     values[pairs[i].second] = input[inputs[i].second];
                   }
               },
               [](const Spec& spec) {
                 Spec claimed = spec;
                 if (claimed.family != Family::rope) return claimed;
                 claimed.precision = PrecisionClass::fp32_angle;
                 claimed.theta = ThetaRecipe::exact;
                 return claimed;
               }});
  add("yarn-attention-factor-dropped", "YaRN's attention factor (0.1 ln s + 1, or its mscale form) left out of cos and sin",
      Mutation{[](Spec spec, std::int64_t) {
                 if (spec.scaling.kind == PlanKind::yarn) spec.scaling.attention = Decimal(1);
                 return spec;
               },
               {}, {}, {}});
  add("stale-dynamic-ntk-cache", "dynamic NTK whose cos/sin cache keeps the original base once the length grows past orig",
      Mutation{[](Spec spec, std::int64_t) {
                 if (spec.scaling.kind == PlanKind::dynamic) spec.scaling = FrequencyPlan{};
                 return spec;
               },
               {}, {}, {}});
  add("llama3-smoothing-dropped", "llama3's smoothed band left at the original frequencies instead of blended",
      Mutation{[](Spec spec, std::int64_t) {
                 if (spec.scaling.kind != PlanKind::llama3) return spec;
                 std::vector<Wide> frequencies = default_inv_freq(from_decimal<Wide>(spec.base), spec.rotary_dims());
                 const std::vector<Llama3Band> bands = llama3_bands<Wide>(spec);
                 for (std::size_t i = 0; i < frequencies.size(); ++i)
                   if (bands[i] == Llama3Band::divided) frequencies[i] /= from_decimal<Wide>(spec.scaling.factor);
                 return with_frequencies(spec, frequencies);
               },
               {}, {}, {}});
}

// A decode step appends this many tokens to a KV cache of whole steps (vLLM's default block
// size): a kernel that ignores the cache offset rotates token cache_len + s at s.
constexpr std::int64_t kDecodeStep = 16;

// HF _relative_position_bucket as torch runs it: relative_position.float() / max_exact, a float32
// log, division by math.log(max_distance / max_exact) and the product with the bucket count in
// float32, truncated by .to(torch.long). Near a boundary the float32 value lands on the integer.
std::int64_t t5_float32_bucket(const Spec& spec, const Point& point) {
  std::int64_t relative = point.c[1] - point.c[0];
  std::int64_t half = spec.buckets, bucket = 0;
  if (spec.bidirectional) {
    half /= 2;
    if (relative > 0) bucket += half;
    relative = std::abs(relative);
  } else {
    relative = std::max<std::int64_t>(-relative, 0);
  }
  const std::int64_t exact = half / 2;
  if (relative < exact) return bucket + relative;
  const float ratio = static_cast<float>(relative) / static_cast<float>(exact);
  const float value = std::log(ratio) / static_cast<float>(std::log(static_cast<double>(spec.max_distance) / exact)) *
                      static_cast<float>(half - exact);
  return bucket + std::min(exact + static_cast<std::int64_t>(value), half - 1);
}

// The mutants of issue 10 that get positions, plan switches and buckets wrong.
void add_position_and_plan_mutants(const AddMutant& add) {
  add("kv-cache-offset-ignored",
      "a decode kernel that ignores the KV-cache position offset: token cache_len + s of a 16-token step rotated at s",
      Mutation{{},
               [](const Spec& spec, Point point) {
                 if (spec.family == Family::rope || spec.family == Family::xpos || spec.family == Family::mrope)
                   for (std::int64_t& coordinate : point.c) coordinate = ((coordinate % kDecodeStep) + kDecodeStep) % kDecodeStep;
                 return point;
               },
               {}, {}});
  add("longrope-switch-at-orig", "LongRoPE taking its long factors at length == orig instead of past it (> orig, HF and Phi-3)",
      Mutation{[](Spec spec, std::int64_t length) {
                 if (spec.scaling.kind == PlanKind::longrope && length >= spec.scaling.orig)
                   spec.scaling.short_factors = spec.scaling.long_factors;
                 return spec;
               },
               {}, {}, {}});
  add("yarn-ramp-reversed", "YaRN's ramp weights applied the wrong way round: high frequencies interpolated, low ones kept",
      Mutation{[](Spec spec, std::int64_t length) {
                 if (spec.scaling.kind != PlanKind::yarn) return spec;
                 auto [low, high] = yarn_correction_range<Wide>(spec);
                 if (low == high) high += Wide("0.001");
                 const Wide factor = from_decimal<Wide>(spec.scaling.factor);
                 std::vector<Wide> frequencies = default_inv_freq(from_decimal<Wide>(spec.base), spec.rotary_dims());
                 for (std::size_t i = 0; i < frequencies.size(); ++i) {
                   const Wide ramp = std::clamp((Wide(static_cast<int>(i)) - low) / (high - low), Wide(0), Wide(1));
                   frequencies[i] = frequencies[i] / factor * (1 - ramp) + frequencies[i] * ramp;
                 }
                 const Wide amplitude = rotary_frequencies<Wide>(spec, length).attention;
                 spec = with_frequencies(spec, frequencies);
                 spec.amp = decimal_of(amplitude);
                 return spec;
               },
               {}, {}, {}});
  add("llama3-read-as-linear", "llama3's rope_scaling read as plain linear(factor): every pair divided, the kept and smoothed bands too",
      Mutation{[](Spec spec, std::int64_t) {
                 if (spec.scaling.kind != PlanKind::llama3) return spec;
                 FrequencyPlan linear;
                 linear.kind = PlanKind::linear;
                 linear.factor = spec.scaling.factor;
                 spec.scaling = linear;
                 return spec;
               },
               {}, {}, {}});
  add("t5-float32-log-truncated",
      "T5's bucket log computed in float32 and truncated, as torch runs HF's _relative_position_bucket: a value just "
      "below an integer rounds onto it",
      Mutation{{}, {},
               [](const Spec& spec, const Point& point, std::span<const Wide>, std::vector<Wide>& values, const Evaluator&) {
                 if (spec.family == Family::t5) values[0] = Wide(t5_float32_bucket(spec, point));
               },
               {}});
}

std::vector<Mutant> build_mutants() {
  std::vector<Mutant> out;
  auto add = [&](std::string_view name, std::string_view bug, Mutation mutation) {
    out.emplace_back(MutantInfo{name, bug}, std::move(mutation));
  };
  auto spec_only = [](std::function<Spec(Spec, std::int64_t)> rewrite) {
    return Mutation{[rewrite](const Spec& spec, std::int64_t length) { return rewrite(spec, length); }, {}, {}, {}};
  };
  auto point_only = [](std::function<Point(const Spec&, Point)> rewrite) {
    return Mutation{{}, [rewrite](const Spec& spec, const Point& point) { return rewrite(spec, point); }, {}, {}};
  };
  auto values_only = [](auto rewrite) { return Mutation{{}, {}, rewrite, {}}; };

  add("bf16-cos-sin-cache", "cos/sin tables stored in bf16 (gpt-neox #1003, flashinfer #585)",
      values_only([](const Spec& spec, const Point& point, std::span<const Wide> input, std::vector<Wide>& values,
                     const Evaluator& correct) {
        if (is_rotary(spec.family))
          rerotate(spec, point, input, values, correct,
                   [](const Wide& c, const Wide& s) { return std::pair{round_to_bf16(c), round_to_bf16(s)}; });
        if (is_sinusoid(spec.family))
          for (Wide& value : values) value = round_to_bf16(value);
      }));
  add("fp32-angle", "RoPE frequency and angle p*theta formed in float32 while exact-angle is claimed (TensorRT-LLM #18774)",
      values_only([](const Spec& spec, const Point& point, std::span<const Wide> input, std::vector<Wide>& values,
                     const Evaluator& correct) {
        if (spec.family != Family::rope) return;
        const PairAngles frequencies = pair_angles(correct, spec, Point{{1}});
        const auto pairs = rotary_pairs(spec), inputs = rotary_input_pairs(spec);
        for (std::size_t i = 0; i < pairs.size(); ++i) {
          const auto [a, b] = pairs[i];
          const auto [in_a, in_b] = inputs[i];
          const float angle = static_cast<float>(point.c[0]) * static_cast<float>(frequencies.angle[i]);
          const Wide amplitude = pair_norm(frequencies.evaluation.values, a, b);
          const Wide c = amplitude * cos(Wide(angle)), s = amplitude * sin(Wide(angle));
          values[a] = input[in_a] * c - input[in_b] * s;
          values[b] = input[in_a] * s + input[in_b] * c;
        }
      }));
  add("fp32-table", "sinusoid tables computed in float32 where fp64 is claimed (xformers #1428)",
      values_only([](const Spec& spec, const Point&, std::span<const Wide>, std::vector<Wide>& values, const Evaluator&) {
        if (is_sinusoid(spec.family))
          for (Wide& value : values) value = round_to_fp32(value);
      }));
  add("sign-ignored", "the rotation sign dropped: nanochat's -angle computed as +angle",
      spec_only([](Spec spec, std::int64_t) { spec.sign = 1; return spec; }));
  add("gptj-neox-swap", "interleaved and half-split pairing mixed up (llama.cpp #7451, vllm #49290)",
      spec_only([](Spec spec, std::int64_t) {
        if (spec.d % 2 == 0) spec.layout = spec.layout == Layout::half ? Layout::interleaved : Layout::half;
        return spec;
      }));
  add("interleaved-to-half-written-interleaved",
      "DeepSeek-V3's rope_interleave written back to (2i, 2i+1), where it was read, instead of (i, i+d/2)",
      spec_only([](Spec spec, std::int64_t) {
        if (spec.layout == Layout::interleaved_to_half) spec.layout = Layout::interleaved;
        return spec;
      }));
  // A learned gather one row too far reads past the table's end on its last row: whatever lies
  // there (NaN here), not an error.
  add("position-off-by-one", "every position read one too far",
      Mutation{{},
               [](const Spec& spec, Point point) {
                 for (std::int64_t& coordinate : point.c) ++coordinate;
                 if (spec.family == Family::learned) point.c[0] = std::min(point.c[0], spec.rows - 1);
                 return point;
               },
               [](const Spec& spec, const Point& point, std::span<const Wide>, std::vector<Wide>& values, const Evaluator&) {
                 if (spec.family == Family::learned && point.c[0] + 1 >= spec.rows)
                   for (Wide& value : values) value = std::numeric_limits<Wide>::quiet_NaN();
               },
               {}});
  add("base-ignored", "the frequency base hard-coded to 10000",
      spec_only([](Spec spec, std::int64_t) { spec.base = Decimal(10000); return spec; }));
  add("scaling-dropped", "the rope_scaling plan ignored (transformers #32330, vllm #48623)",
      spec_only([](Spec spec, std::int64_t) { spec.scaling = FrequencyPlan{}; return spec; }));
  add("yarn-dynamic-factor", "dynamic YaRN where static is configured: the factor taken as length/orig",
      spec_only([](Spec spec, std::int64_t length) {
        if (spec.scaling.kind == PlanKind::yarn && spec.scaling.orig > 0)
          spec.scaling.factor = decimal_of(std::max(Wide(1), Wide(length) / Wide(spec.scaling.orig)));
        return spec;
      }));
  add("llama3-smoothing-reversed", "llama3's smoothing weights applied the wrong way round",
      spec_only([](Spec spec, std::int64_t) {
        if (spec.scaling.kind != PlanKind::llama3) return spec;
        const FrequencyPlan& plan = spec.scaling;
        std::vector<Wide> frequencies = default_inv_freq(from_decimal<Wide>(spec.base), spec.rotary_dims());
        const std::vector<Llama3Band> bands = llama3_bands<Wide>(spec);
        const Wide factor = from_decimal<Wide>(plan.factor), low = from_decimal<Wide>(plan.low),
                   high = from_decimal<Wide>(plan.high);
        for (std::size_t i = 0; i < frequencies.size(); ++i) {
          Wide& theta = frequencies[i];
          const Wide smooth = (Wide(plan.orig) * theta / (2 * boost::math::constants::pi<Wide>()) - low) / (high - low);
          if (bands[i] == Llama3Band::divided) theta /= factor;
          if (bands[i] == Llama3Band::smoothed) theta = (1 - smooth) * theta + smooth * theta / factor;
        }
        return with_frequencies(spec, frequencies);
      }));
  add("ntk-static", "NTK-aware base scaling applied at every length instead of past the original one",
      spec_only([](Spec spec, std::int64_t) {
        if (spec.scaling.kind != PlanKind::dynamic) return spec;
        const int dims = spec.rotary_dims();
        const Wide grown = from_decimal<Wide>(spec.base) *
                           pow(from_decimal<Wide>(spec.scaling.factor), Wide(dims) / Wide(dims - 2));
        spec.base = decimal_of(grown);
        spec.scaling = FrequencyPlan{};
        return spec;
      }));
  add("partial-theta-from-full-d", "partial rotary with theta_i = base^(-2i/d) instead of base^(-2i/d_rot)",
      spec_only([](Spec spec, std::int64_t) {
        if (spec.family != Family::rope || spec.rot == 0 || spec.scaling.kind != PlanKind::none) return spec;
        std::vector<Wide> frequencies = default_inv_freq(from_decimal<Wide>(spec.base), spec.d);
        frequencies.resize(static_cast<std::size_t>(spec.rot / 2));
        return with_frequencies(spec, frequencies);
      }));
  add("pass-through-not-copied", "an out-of-place partial-rotary kernel that never writes the pass-through dims (llama.cpp #14580)",
      values_only([](const Spec& spec, const Point&, std::span<const Wide>, std::vector<Wide>& values, const Evaluator&) {
        if (is_rotary(spec.family))
          for (std::size_t e : pass_through_elements(spec)) values[e] = 0;
      }));
  add("input-sign-dropped", "a kernel that loads each input through a mask clearing its sign bit (a bf16 widening written as "
      "(bits & 0x7fff) << 16): it rotates |x|",
      values_only([](const Spec& spec, const Point& point, std::span<const Wide> input, std::vector<Wide>& values,
                     const Evaluator& correct) {
        if (!is_rotary(spec.family)) return;
        std::vector<Wide> magnitudes(input.begin(), input.end());
        for (Wide& value : magnitudes) value = abs(value);
        values = correct.evaluate(point, magnitudes);
      }));
  add("mrope-section-local-frequencies", "each mRoPE section restarting the frequency index at 0",
      spec_only([](Spec spec, std::int64_t) {
        if (spec.family != Family::mrope || spec.scaling.kind != PlanKind::none) return spec;
        const int dims = spec.rotary_dims();
        std::vector<int> used(3, 0);
        std::vector<Wide> frequencies;
        for (int pair = 0; pair < dims / 2; ++pair) {
          const int local = used[static_cast<std::size_t>(mrope_axis(spec, pair))]++;
          frequencies.push_back(pow(from_decimal<Wide>(spec.base), Wide(-2 * local) / Wide(dims)));
        }
        return with_frequencies(spec, frequencies);
      }));
  add("mrope-blocked-as-interleaved", "blocked and interleaved mRoPE sections confused (MNN #4133)",
      spec_only([](Spec spec, std::int64_t) {
        spec.section_mode = spec.section_mode == SectionMode::blocked ? SectionMode::interleaved : SectionMode::blocked;
        return spec;
      }));
  add("rope2d-axes-swapped", "2-D axial RoPE reading x for y and y for x",
      point_only([](const Spec& spec, Point point) {
        if (spec.family == Family::rope2d) std::swap(point.c[0], point.c[1]);
        return point;
      }));
  add("rope2d-row-in-bf16", "2-D axial RoPE whose row index y is made in bf16 (a grid from arange in the model's dtype) "
      "while x stays exact: integers past 256 round, so only the y pairs' relations break",
      point_only([](const Spec& spec, Point point) {
        if (spec.family == Family::rope2d) point.c[1] = static_cast<std::int64_t>(stored(Wide(point.c[1]), Dtype::bf16));
        return point;
      }));
  add("xpos-key-uses-query-scale", "xPos keys scaled by zeta^(+n) like queries instead of zeta^(-n)",
      spec_only([](Spec spec, std::int64_t) { spec.role = XposRole::query; return spec; }));
  add("odd-dim-column-unwritten", "odd d leaving the last element unwritten (ggml #1324)",
      values_only([](const Spec& spec, const Point&, std::span<const Wide>, std::vector<Wide>& values, const Evaluator&) {
        if (spec.family == Family::sinusoidal && spec.d % 2 == 1) values.back() = std::numeric_limits<Wide>::quiet_NaN();
      }));
  add("odd-interleaved-frequencies-over-d-minus-1",
      "DistilBERT's odd-d table with fairseq's exponent 2i/(d-1) in place of 2i/d, the lone column included",
      values_only([](const Spec& spec, const Point& point, std::span<const Wide>, std::vector<Wide>& values, const Evaluator&) {
        if (!has_lone_column(spec)) return;
        const Wide base = from_decimal<Wide>(spec.base), shifted(point.c[0] + spec.offset);
        for (int j = 0; j < spec.d; ++j) {
          const Wide angle = shifted * pow(base, Wide(-2 * (j / 2)) / Wide(spec.d - 1));
          const bool sine = (j % 2 == 0) == (spec.order == SinusoidalOrder::sin_cos);
          values[static_cast<std::size_t>(j)] = sine ? sin(angle) : cos(angle);
        }
      }));
  add("cos-first-ignored", "cos-first order written sin-first",
      spec_only([](Spec spec, std::int64_t) { spec.order = SinusoidalOrder::sin_cos; return spec; }));
  add("padding-offset-dropped", "fairseq's padding_idx + 1 position offset dropped",
      spec_only([](Spec spec, std::int64_t) { spec.offset = 0; return spec; }));
  add("xl-clamp-ignored", "Transformer-XL's clamp_len ignored",
      spec_only([](Spec spec, std::int64_t) { spec.clamp_len = 0; return spec; }));
  add("learned-clamp", "a position past the learned table clamped to its last row instead of rejected",
      point_only([](const Spec& spec, Point point) {
        point.c[0] = std::clamp<std::int64_t>(point.c[0], 0, spec.rows - 1);
        return point;
      }));
  add("alibi-key-position-as-distance", "ALiBi biased by the key position -m|j| rather than the distance",
      point_only([](const Spec& spec, Point point) {
        if (spec.family == Family::alibi) point.c[0] = 0;
        return point;
      }));
  add("alibi-distance-off-by-one", "ALiBi distance one too large (vllm #945)",
      point_only([](const Spec& spec, Point point) {
        if (spec.family == Family::alibi) point.c[1] += point.c[1] > point.c[0] ? 1 : -1;
        return point;
      }));
  add("alibi-pow2-slopes-for-any-heads", "the power-of-two slope formula used for every head count (mlx #3071)",
      values_only([](const Spec& spec, const Point&, std::span<const Wide>, std::vector<Wide>& values, const Evaluator& correct) {
        if (spec.family != Family::alibi) return;
        // The correct slope m: -bias one step from the diagonal, or the bias of key 1 under key and last-key.
        const bool from_key = measures_the_key(spec.mode);
        const std::vector<Wide> unit = correct.evaluate(Point{{from_key ? 0 : 1, from_key ? 1 : 0, 0}}, {});
        for (std::size_t h = 0; h < values.size(); ++h) {
          const Wide wrong = pow(Wide(2), Wide(-8 * static_cast<int>(h + 1)) / Wide(spec.heads));
          if (isfinite(values[h])) values[h] *= wrong / (from_key ? unit[h] : -unit[h]);
        }
      }));
  add("alibi-mask-includes-diagonal", "the causal ALiBi mask off by one, hiding the query's own key",
      values_only([](const Spec& spec, const Point& point, std::span<const Wide>, std::vector<Wide>& values, const Evaluator&) {
        if (spec.family == Family::alibi && spec.mode == AlibiMode::causal && point.c[0] == point.c[1])
          for (Wide& value : values) value = -std::numeric_limits<Wide>::infinity();
      }));
  add("t5-log-branch-missing-offset", "T5's logarithmic buckets not offset by max_exact",
      values_only([](const Spec& spec, const Point& point, std::span<const Wide>, std::vector<Wide>& values, const Evaluator&) {
        if (spec.family != Family::t5) return;
        const Wide local = values[0] - Wide(t5_half_offset(spec, point));
        if (local >= Wide(t5_exact_buckets(spec))) values[0] -= Wide(t5_exact_buckets(spec));
      }));
  add("t5-no-saturation", "T5 buckets past max_distance not clamped to the last bucket",
      values_only([](const Spec& spec, const Point& point, std::span<const Wide>, std::vector<Wide>& values, const Evaluator&) {
        if (spec.family != Family::t5) return;
        const std::int64_t rp = point.c[1] - point.c[0];
        const std::int64_t distance = spec.bidirectional ? std::abs(rp) : std::max<std::int64_t>(-rp, 0);
        if (distance < spec.max_distance) return;
        const double exact = static_cast<double>(t5_exact_buckets(spec));
        const double span = (spec.bidirectional ? spec.buckets / 2 : spec.buckets) - exact;
        const double large = std::floor(std::log(static_cast<double>(distance) / exact) /
                                        std::log(spec.max_distance / exact) * span);
        values[0] = Wide(t5_half_offset(spec, point)) + Wide(exact + large);
      }));
  add("t5-bidirectional-offset-dropped", "bidirectional T5 buckets of keys ahead not moved to the upper half",
      values_only([](const Spec& spec, const Point& point, std::span<const Wide>, std::vector<Wide>& values, const Evaluator&) {
        if (spec.family == Family::t5) values[0] -= Wide(t5_half_offset(spec, point));
      }));
  add("t5-relative-position-reversed", "T5 relative position taken as i - j instead of j - i",
      point_only([](const Spec& spec, Point point) {
        if (spec.family == Family::t5) std::swap(point.c[0], point.c[1]);
        return point;
      }));
  add("shaw-unclipped", "Shaw's index j - i + k not clipped to [0, 2k]",
      values_only([](const Spec& spec, const Point& point, std::span<const Wide>, std::vector<Wide>& values, const Evaluator&) {
        if (spec.family == Family::shaw) values[0] = Wide(point.c[1] - point.c[0] + spec.k);
      }));
  add("shaw-window-symmetric", "Shaw's window past the query taken as k, whatever `right` says",
      values_only([](const Spec& spec, const Point& point, std::span<const Wide>, std::vector<Wide>& values, const Evaluator&) {
        if (spec.family == Family::shaw)
          values[0] = Wide(std::clamp<std::int64_t>(point.c[1] - point.c[0], -spec.k, spec.k) + spec.k);
      }));
  add("shaw-reversed", "Shaw's relative distance taken as i - j",
      point_only([](const Spec& spec, Point point) {
        if (spec.family == Family::shaw) std::swap(point.c[0], point.c[1]);
        return point;
      }));
  add_precision_mutants(add);
  add_position_and_plan_mutants(add);
  return out;
}

const std::vector<Mutant>& mutants() {
  static const std::vector<Mutant> all = build_mutants();
  return all;
}

}  // namespace

const std::vector<MutantInfo>& all_mutants() {
  static const std::vector<MutantInfo> infos = [] {
    std::vector<MutantInfo> out;
    for (const Mutant& m : mutants()) out.push_back(m.info());
    return out;
  }();
  return infos;
}

const Implementation& mutant(std::string_view name) {
  for (const Mutant& m : mutants())
    if (m.info().name == name) return m;
  throw std::out_of_range(fmt::format("no mutant named '{}'", name));
}

}  // namespace peconform
