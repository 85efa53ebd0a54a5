#include "backends/plugin/abi_spec.hpp"

#include <algorithm>

#include "backends/plugin/dl_dtype.hpp"

namespace peconform::plugin {
namespace {

// The ABI's enums are the Spec's, value for value, so that each converts with a cast.
static_assert(static_cast<int>(Family::sinusoidal) == PEC_SINUSOIDAL && static_cast<int>(Family::rope) == PEC_ROPE &&
              static_cast<int>(Family::alibi) == PEC_ALIBI && static_cast<int>(Family::xl) == PEC_XL);
static_assert(static_cast<int>(Layout::half) == PEC_LAYOUT_HALF &&
              static_cast<int>(Layout::interleaved_to_half) == PEC_LAYOUT_INTERLEAVED_TO_HALF);
static_assert(static_cast<int>(PrecisionClass::lowp_cache) == PEC_LOWP_CACHE && static_cast<int>(PrecisionClass::fp64_angle) == PEC_FP64_ANGLE);
static_assert(static_cast<int>(ThetaRecipe::ggml) == PEC_THETA_GGML && static_cast<int>(ThetaRecipe::exp_log) == PEC_THETA_EXP_LOG &&
              static_cast<int>(ThetaRecipe::mlx) == PEC_THETA_MLX);
static_assert(static_cast<int>(PositionRecipe::fp32_sum) == PEC_POSITION_FP32_SUM);
static_assert(static_cast<int>(SlopeRecipe::bloom) == PEC_SLOPES_BLOOM && static_cast<int>(SlopeRecipe::mpt) == PEC_SLOPES_MPT);
static_assert(static_cast<int>(AlibiMode::causal) == PEC_ALIBI_CAUSAL && static_cast<int>(AlibiMode::last_key) == PEC_ALIBI_LAST_KEY);
static_assert(static_cast<int>(RoundsIn::compute) == PEC_IN_COMPUTE && static_cast<int>(RoundsIn::storage) == PEC_IN_STORAGE &&
              static_cast<int>(RoundsIn::bf16) == PEC_IN_BF16);
static_assert(static_cast<int>(PlanKind::yarn) == PEC_PLAN_YARN && static_cast<int>(PlanKind::custom) == PEC_PLAN_CUSTOM &&
              static_cast<int>(PlanKind::proportional) == PEC_PLAN_PROPORTIONAL);

std::vector<double> doubles(const std::vector<Decimal>& values) {
  std::vector<double> out(values.size());
  std::transform(values.begin(), values.end(), out.begin(), [](const Decimal& v) { return v.to_double(); });
  return out;
}

pec_plan flat_plan(const FrequencyPlan& plan) {
  pec_plan flat{};
  flat.kind = static_cast<std::int32_t>(plan.kind);
  flat.factor = plan.factor.to_double();
  flat.orig = plan.orig;
  flat.length = plan.length.value_or(0);
  flat.beta_fast = plan.beta_fast.to_double();
  flat.beta_slow = plan.beta_slow.to_double();
  flat.has_mscale = plan.mscale.has_value();
  flat.mscale = plan.mscale ? plan.mscale->to_double() : 0;
  flat.has_mscale_all_dim = plan.mscale_all_dim.has_value();
  flat.mscale_all_dim = plan.mscale_all_dim ? plan.mscale_all_dim->to_double() : 0;
  flat.has_attention = plan.attention.has_value();
  flat.attention = plan.attention ? plan.attention->to_double() : 0;
  flat.truncate = plan.truncate;
  flat.low = plan.low.to_double();
  flat.high = plan.high.to_double();
  return flat;
}

}  // namespace

AbiSpec::AbiSpec(const Spec& spec)
    : text_(spec.canonical()),
      short_factors_(doubles(spec.scaling.short_factors)),
      long_factors_(doubles(spec.scaling.long_factors)),
      freqs_(doubles(spec.scaling.freqs)),
      factors_(doubles(spec.scaling.factors)) {
  flat_.family = static_cast<std::int32_t>(spec.family);
  flat_.d = spec.d;
  flat_.rot = spec.rotary_dims();
  flat_.rot_last = spec.rot_at == RotaryPlacement::last;
  flat_.base = spec.base.to_double();
  flat_.layout = static_cast<std::int32_t>(spec.layout);
  flat_.sign = spec.sign;
  flat_.amp = spec.amp.to_double();
  flat_.dtype = dl_dtype(spec.dtype);
  flat_.precision = static_cast<std::int32_t>(spec.precision);
  flat_.theta = static_cast<std::int32_t>(spec.theta);
  flat_.slopes = static_cast<std::int32_t>(spec.slopes);
  flat_.cache = spec.cos_sin_in_storage() ? PEC_IN_STORAGE : PEC_IN_COMPUTE;
  flat_.math = static_cast<std::int32_t>(spec.math);
  flat_.position = static_cast<std::int32_t>(spec.position);
  flat_.scaling = flat_plan(spec.scaling);
  const auto point_at = [](const std::vector<double>& values) { return values.empty() ? nullptr : values.data(); };
  flat_.scaling.short_factors = point_at(short_factors_);
  flat_.scaling.short_count = static_cast<std::int64_t>(short_factors_.size());
  flat_.scaling.long_factors = point_at(long_factors_);
  flat_.scaling.long_count = static_cast<std::int64_t>(long_factors_.size());
  flat_.scaling.freqs = point_at(freqs_);
  flat_.scaling.freq_count = static_cast<std::int64_t>(freqs_.size());
  flat_.scaling.factors = point_at(factors_);
  flat_.scaling.factor_count = static_cast<std::int64_t>(factors_.size());
  flat_.cos_first = spec.order == SinusoidalOrder::cos_sin;
  flat_.geometric = spec.freq == FrequencyRule::geometric;
  flat_.offset = spec.offset;
  flat_.rows = spec.rows;
  flat_.scale_base = spec.scale_base.to_double();
  flat_.key_role = spec.role == XposRole::key;
  flat_.section_count = static_cast<std::int32_t>(std::min<std::size_t>(spec.sections.size(), 3));
  for (std::int32_t s = 0; s < flat_.section_count; ++s) flat_.sections[s] = spec.sections[static_cast<std::size_t>(s)];
  flat_.sections_interleaved = spec.section_mode == SectionMode::interleaved;
  flat_.heads = spec.heads;
  flat_.causal = spec.mode == AlibiMode::causal;
  flat_.alibi_mode = static_cast<std::int32_t>(spec.mode);
  flat_.buckets = spec.buckets;
  flat_.max_distance = spec.max_distance;
  flat_.bidirectional = spec.bidirectional;
  flat_.k = spec.k;
  flat_.right = spec.shaw_right();
  flat_.clamp_len = spec.clamp_len;
}

}  // namespace peconform::plugin
