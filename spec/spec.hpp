#pragma once
// Spec: one value that names a positional-encoding variant completely. Its canonical text,
// `family(key=value,...)`, is at once the test name, the command-line filter and the
// reproducer. Every key is documented in docs/specs.md.
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "spec/decimal.hpp"

namespace peconform {

struct HfConfigOptions;  // spec/hf_config.hpp

enum class Family { sinusoidal, learned, rope, xpos, mrope, rope2d, alibi, t5, shaw, xl };
// Where a rotary pair is read and written: (2i, 2i+1) both ways (interleaved), (i, i+d/2) both
// ways (half), or read at (2i, 2i+1) and written to (i, i+d/2) (interleaved_to_half: DeepSeek-V3's
// `rope_interleave`, docs/specs.md, `layout`).
enum class Layout { interleaved, half, interleaved_to_half };
enum class RotaryPlacement { first, last };
enum class SinusoidalOrder { sin_cos, cos_sin };
enum class FrequencyRule { power, geometric };
enum class XposRole { query, key };
enum class SectionMode { blocked, interleaved };
// What an ALiBi bias measures (docs/specs.md, `mode`): the distance between query i and key j, -m|i-j|
// (symmetric) or -m(i-j) with the future keys masked (causal); or the key's own position, +m j
// (key: fairseq's form, transformers' Bloom and Falcon), or the key's distance back from the
// call's last key J, -m(J-j) (last-key: MPT). The last two equal causal under softmax, row by row.
enum class AlibiMode { symmetric, causal, key, last_key };
// key and last-key: the bias measures the key from an anchor, whatever the query.
inline bool measures_the_key(AlibiMode mode) { return mode == AlibiMode::key || mode == AlibiMode::last_key; }
enum class Dtype { fp64, fp32, fp16, bf16 };
// fp64-angle: a sinusoid table built in float64, as NumPy builds DistilBERT's and Marian's: theta,
// the angle and its sine and cosine in float64, rounded once to the storage dtype
// (docs/precision.md, `precision`). Values are the kernel ABI's pec_precision, so fp64-angle comes last.
enum class PrecisionClass { exact_angle, fp32_angle, lowp_cache, fp64_angle };
// How a float32 kernel forms theta_i under fp32-angle (docs/precision.md, `theta`): correctly rounded
// (exact); for rotary families Hugging Face's and Meta's 1/base^(2i/d) through float32 pow (hf,
// meta), ggml's running product theta *= base^(-2/d) (ggml) or mlx's exp(-k * (logf(base)/(d/2)))
// through its own float32 exp (mlx); for sinusoid tables 1/powf(base, m/D) (hf: timm's; its bound
// holds keras-hub's and x-transformers' powf forms too), exp(k * (-ln(base)/m)) in float32, the
// PyTorch tutorial's, fairseq's and tensor2tensor's (exp_log), or mlx.nn.SinusoidalPositionalEncoding's
// exp of a float32 interpolation between ln(1/base) and 0 (mlx).
// Values are the kernel ABI's pec_theta_recipe (include/peconform/kernel_abi.h), so mlx comes last.
enum class ThetaRecipe { exact, hf, meta, ggml, exp_log, mlx };
// Where a rotary kernel rounds (docs/precision.md, `cache` and `math`). cache: cos and sin (times the
// amplitude) held in the compute format, or rounded to the storage dtype before the rotation
// (transformers' `cos.to(x.dtype)`, vLLM's cos/sin cache in the model dtype). math: the two
// products and the sum round in the compute format and are stored once, or each rounds in the
// storage dtype (`x * cos + rotate_half(x) * sin` on bf16 tensors); ALiBi's math may also round in
// bf16 whatever the storage (bf16: Falcon's `slopes.bfloat16() * positions` in a model of any
// dtype). Values are the kernel ABI's pec_rounds_in.
enum class RoundsIn { compute, storage, bf16 };
// How a float32 rotary kernel forms its position under fp32-angle (docs/precision.md, `position`):
// rounded once, fl(p) (fp32), or as the float32 sum of two float32 parts, fl(fl(a) + fl(b)) with
// a + b = p, a, b >= 0 (fp32_sum): torchtune's vision RoPE adds 1 to a float32 patch index.
// Values are the kernel ABI's pec_position_recipe.
enum class PositionRecipe { fp32, fp32_sum };
// How a float32 ALiBi kernel forms its slopes under fp32-angle (docs/precision.md, `slopes`): correctly
// rounded (exact), Bloom's float32 pow(base, k) of a float32 base (bloom), or MPT's
// 1 / pow(2, k * (8 / n')) in float32, n' the power of two at or above the head count (mpt).
enum class SlopeRecipe { exact, bloom, mpt };
// Values are the plugin ABI's pec_plan_kind (include/peconform/kernel_abi.h): new kinds go last.
enum class PlanKind { none, linear, dynamic, yarn, llama3, longrope, custom, proportional };

// A frequency plan (Hugging Face `rope_scaling`). Keys that a kind does not use stay unset.
struct FrequencyPlan {
  PlanKind kind = PlanKind::none;
  Decimal factor{1};
  std::int64_t orig = 0;                   // original context length L0 (0: unset)
  std::optional<std::int64_t> length;      // dynamic/longrope sequence length; unset: max position + 1
  Decimal beta_fast{32}, beta_slow{1};     // yarn
  std::optional<Decimal> mscale, mscale_all_dim, attention;  // yarn, longrope
  bool truncate = true;                    // yarn: floor/ceil the correction range
  Decimal low{1}, high{4};                 // llama3 low_freq_factor, high_freq_factor
  std::vector<Decimal> short_factors, long_factors;  // longrope, one per rotated pair
  std::vector<Decimal> freqs, factors;     // custom: explicit frequencies, or divisors of the default
  int pairs = 0;                           // proportional: the leading pairs that rotate; the rest have frequency 0

  friend bool operator==(const FrequencyPlan&, const FrequencyPlan&) = default;
};

struct Spec {
  Family family = Family::rope;
  int d = 0;
  int rot = 0;  // rotary dims; 0 means all of d
  RotaryPlacement rot_at = RotaryPlacement::first;
  Decimal base{10000};
  Layout layout = Layout::half;
  int sign = 1;
  FrequencyPlan scaling;
  Decimal amp{1};
  Dtype dtype = Dtype::fp32;
  PrecisionClass precision = PrecisionClass::exact_angle;
  ThetaRecipe theta = ThetaRecipe::exact;
  RoundsIn cache = RoundsIn::compute;
  RoundsIn math = RoundsIn::compute;
  PositionRecipe position = PositionRecipe::fp32;
  SlopeRecipe slopes = SlopeRecipe::exact;
  SinusoidalOrder order = SinusoidalOrder::sin_cos;
  FrequencyRule freq = FrequencyRule::power;
  std::int64_t offset = 0;
  std::int64_t rows = 0;
  Decimal scale_base{512};
  XposRole role = XposRole::query;
  std::vector<int> sections;
  SectionMode section_mode = SectionMode::blocked;
  int heads = 0;
  AlibiMode mode = AlibiMode::symmetric;
  int buckets = 32;
  int max_distance = 128;
  bool bidirectional = true;
  int k = 0;                // shaw: the clip before the query (and past it, unless `right` says otherwise)
  std::optional<int> right;  // shaw: the clip past the query; unset: k (one spelling: never equal to k)
  std::int64_t clamp_len = 0;

  // Both throw SpecError naming the offending token or value and what was expected.
  static Spec parse(std::string_view text);
  static Spec from_json(const nlohmann::json& json);
  // Reads a Hugging Face config.json's text into a spec (rope, mrope, t5 or alibi), as
  // transformers reads it; spec/hf_config.hpp has the options and explain_hf_config, which
  // also says which keys were read, ignored and defaulted.
  static Spec from_hf_config(std::string_view config_json_text);
  static Spec from_hf_config(std::string_view config_json_text, const HfConfigOptions& options);

  std::string canonical() const;
  nlohmann::json to_json() const;

  int rotary_dims() const { return rot == 0 ? d : rot; }
  // Shaw's window: j - i is clipped to [-k, shaw_right()], an index into k + shaw_right() + 1 rows.
  int shaw_right() const { return right.value_or(k); }
  // Whether cos and sin are rounded to the storage dtype before the rotation: cache=storage, or
  // precision=lowp-cache (exact-angle with cache=storage, spelled as before the key existed).
  bool cos_sin_in_storage() const { return cache == RoundsIn::storage || precision == PrecisionClass::lowp_cache; }

  friend bool operator==(const Spec&, const Spec&) = default;
};

// The keys a family's spec text may hold, in canonical order (spec patterns check against them).
std::vector<std::string_view> spec_keys(Family family);
// Every family with its name, in the order `peconform list` prints them.
const std::vector<Family>& all_families();
std::string_view family_name(Family family);
std::string_view dtype_name(Dtype dtype);
std::string_view precision_name(PrecisionClass precision);
std::string_view theta_recipe_name(ThetaRecipe recipe);
std::string_view slope_recipe_name(SlopeRecipe recipe);
std::string_view alibi_mode_name(AlibiMode mode);
std::string_view rounds_in_name(RoundsIn place);
std::string_view position_recipe_name(PositionRecipe recipe);
// Names back to values; throw SpecError naming `what` (an option or key), the text and the choices.
Family family_named(std::string_view text, std::string_view what);
Dtype dtype_named(std::string_view text, std::string_view what);
PrecisionClass precision_named(std::string_view text, std::string_view what);
RoundsIn rounds_in_named(std::string_view text, std::string_view what);
// The float32 theta recipes (docs/precision.md, `theta`) a spec's family and plan take under fp32-angle, in
// enum order: sinusoid tables exact, hf and exp-log (a sinusoidal spec may name mlx too, which the
// campaign draws only where --spec or a kernel's pattern names it); rotary families exact, hf, meta, ggml and mlx with
// no plan, exact, hf, meta and ggml with linear, and with yarn in the form ggml takes (truncate, no attention keys, factor >= 1;
// exact, hf and meta with any other yarn, proportional, llama3 and longrope); exact and hf
// with dynamic; exact and ggml with custom(factors=...), exact alone with custom(freqs=...);
// exact for every other family.
std::vector<ThetaRecipe> theta_recipes(const Spec& spec);
// YaRN's ramp ends as transformers' _compute_yarn_parameters forms them, in Python floats: the
// correction dimension d_rot ln(L0 / (beta 2 pi)) / (2 ln base) of beta_fast and beta_slow,
// floored and ceiled unless truncate=false, clamped to [0, d_rot - 1]. Where the two are equal,
// transformers moves high 0.001 past low; ggml divides by max(0.001, high - low).
std::pair<double, double> transformers_yarn_ramp_ends(const Spec& spec);
// Families whose query point is a pair (i:j) of query and key positions rather than a position.
bool is_relative(Family family);
// Families that rotate their input (rope, xpos, mrope, rope2d).
bool is_rotary(Family family);

}  // namespace peconform
