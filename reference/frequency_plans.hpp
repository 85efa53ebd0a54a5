#pragma once
// Rotary frequencies for every frequency plan, exactly as defined in Hugging Face
// transformers' modeling_rope_utils (_compute_*_parameters), evaluated in the tier's own
// precision from the spec's decimal parameters. Sources and formulas:
// ../shared/notes/variants.md, section 3.
#include <boost/math/constants/constants.hpp>
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "reference/real_types.hpp"
#include "spec/spec.hpp"

namespace peconform {

template <class Real> struct RotaryFrequencies {
  std::vector<Real> inv_freq;  // radians per position, one per rotated pair
  Real attention = Real(1);    // multiplies cos and sin: YaRN/LongRoPE attention factor times amp
};

// base^(-2i/dims) for i = 0 .. dims/2 - 1: the unscaled RoPE frequencies.
template <class Real> std::vector<Real> powers_of_base(const Real& base, int dims) {
  std::vector<Real> out;
  for (int i = 0; i < dims / 2; ++i) out.push_back(pow(base, Real(-2 * i) / Real(dims)));
  return out;
}

// The same in the fast tier, remembered (fast_tier.cpp): the property catalog builds a fast
// reference for each spec it generates, three in four of them with a (base, dims) seen before,
// and libquadmath's powq was a fifth of its time.
std::vector<FastReal> remembered_powers_of_base(const FastReal& base, int dims);

template <class Real> std::vector<Real> default_inv_freq(const Real& base, int dims) {
  if constexpr (std::is_same_v<Real, FastReal>)
    return remembered_powers_of_base(base, dims);
  else
    return powers_of_base(base, dims);
}

// YaRN's correction dimension for `rotations` full turns over `orig` positions.
template <class Real> Real yarn_correction_dim(const Real& rotations, int dims, const Real& base, std::int64_t orig) {
  const Real two_pi = boost::math::constants::two_pi<Real>();
  return Real(dims) * log(Real(orig) / (rotations * two_pi)) / (Real(2) * log(base));
}

// YaRN's (low, high) pair-index range between which the ramp runs, clamped to [0, dims-1].
template <class Real> std::pair<Real, Real> yarn_correction_range(const Spec& spec) {
  const FrequencyPlan& plan = spec.scaling;
  const int dims = spec.rotary_dims();
  const Real base = from_decimal<Real>(spec.base);
  Real low = yarn_correction_dim(from_decimal<Real>(plan.beta_fast), dims, base, plan.orig);
  Real high = yarn_correction_dim(from_decimal<Real>(plan.beta_slow), dims, base, plan.orig);
  if (plan.truncate) {
    low = floor(low);
    high = ceil(high);
  }
  return {std::max(low, Real(0)), std::min(high, Real(dims - 1))};
}

template <class Real> Real yarn_mscale(const Real& scale, const Real& mscale) {
  return scale <= 1 ? Real(1) : Real(1) + Real("0.1") * mscale * log(scale);
}

enum class Llama3Band { kept, smoothed, divided };

// Which llama3 band each default frequency falls in: wavelength below L_old/high is kept,
// above L_old/low is divided by the factor, and in between is smoothed.
template <class Real> std::vector<Llama3Band> llama3_bands(const Spec& spec) {
  const FrequencyPlan& plan = spec.scaling;
  const Real orig(plan.orig);
  const Real low_wavelength = orig / from_decimal<Real>(plan.low);
  const Real high_wavelength = orig / from_decimal<Real>(plan.high);
  std::vector<Llama3Band> bands;
  for (const Real& inv : default_inv_freq(from_decimal<Real>(spec.base), spec.rotary_dims())) {
    const Real wavelength = boost::math::constants::two_pi<Real>() / inv;
    bands.push_back(wavelength < high_wavelength  ? Llama3Band::kept
                    : wavelength > low_wavelength ? Llama3Band::divided
                                                  : Llama3Band::smoothed);
  }
  return bands;
}

// The sequence length that dynamic NTK and LongRoPE key on: the plan's own `len`, or else, as
// transformers does, one past the largest position of the call.
inline std::int64_t plan_sequence_length(const Spec& spec, std::int64_t max_position) {
  return spec.scaling.length.value_or(max_position + 1);
}

template <class Real> RotaryFrequencies<Real> rotary_frequencies(const Spec& spec, std::int64_t sequence_length) {
  const FrequencyPlan& plan = spec.scaling;
  const int dims = spec.rotary_dims();
  const int pairs = dims / 2;
  const Real base = from_decimal<Real>(spec.base);
  const Real factor = from_decimal<Real>(plan.factor);
  RotaryFrequencies<Real> out;
  out.attention = from_decimal<Real>(spec.amp);
  switch (plan.kind) {
    case PlanKind::none:
      out.inv_freq = default_inv_freq(base, dims);
      break;
    case PlanKind::linear:
      out.inv_freq = default_inv_freq(base, dims);
      for (Real& inv : out.inv_freq) inv /= factor;
      break;
    case PlanKind::dynamic: {
      const Real length(std::max(sequence_length, plan.orig));
      const Real grown = base * pow(factor * length / Real(plan.orig) - (factor - 1), Real(dims) / Real(dims - 2));
      out.inv_freq = default_inv_freq(grown, dims);
      break;
    }
    case PlanKind::yarn: {
      auto [low, high] = yarn_correction_range<Real>(spec);
      if (low == high) high += Real("0.001");  // transformers' guard against a zero-width ramp
      for (int i = 0; i < pairs; ++i) {
        const Real extrapolated = pow(base, Real(-2 * i) / Real(dims));
        const Real interpolated = extrapolated / factor;
        const Real ramp = std::clamp((Real(i) - low) / (high - low), Real(0), Real(1));
        const Real keep = Real(1) - ramp;  // share of the unscaled frequency
        out.inv_freq.push_back(interpolated * (Real(1) - keep) + extrapolated * keep);
      }
      Real attention;
      if (plan.attention) {
        attention = from_decimal<Real>(*plan.attention);
      } else if (plan.mscale && plan.mscale_all_dim) {
        attention = yarn_mscale(factor, from_decimal<Real>(*plan.mscale)) /
                    yarn_mscale(factor, from_decimal<Real>(*plan.mscale_all_dim));
      } else {
        attention = yarn_mscale(factor, Real(1));
      }
      out.attention *= attention;
      break;
    }
    case PlanKind::llama3: {
      const std::vector<Llama3Band> bands = llama3_bands<Real>(spec);
      out.inv_freq = default_inv_freq(base, dims);
      const Real low = from_decimal<Real>(plan.low), high = from_decimal<Real>(plan.high);
      for (int i = 0; i < pairs; ++i) {
        Real& inv = out.inv_freq[static_cast<std::size_t>(i)];
        if (bands[static_cast<std::size_t>(i)] == Llama3Band::divided) {
          inv /= factor;
        } else if (bands[static_cast<std::size_t>(i)] == Llama3Band::smoothed) {
          const Real wavelength = boost::math::constants::two_pi<Real>() / inv;
          const Real smooth = (Real(plan.orig) / wavelength - low) / (high - low);
          inv = (Real(1) - smooth) * inv / factor + smooth * inv;
        }
      }
      break;
    }
    case PlanKind::longrope: {
      const auto& extensions = sequence_length > plan.orig ? plan.long_factors : plan.short_factors;
      out.inv_freq = default_inv_freq(base, dims);
      for (int i = 0; i < pairs; ++i)
        out.inv_freq[static_cast<std::size_t>(i)] /= from_decimal<Real>(extensions[static_cast<std::size_t>(i)]);
      if (plan.attention) {
        out.attention *= from_decimal<Real>(*plan.attention);
      } else if (factor > 1) {
        out.attention *= sqrt(Real(1) + log(factor) / log(Real(plan.orig)));
      }
      break;
    }
    case PlanKind::proportional:
      // The first `pairs` pairs as linear's; the others stand still (frequency 0).
      out.inv_freq = default_inv_freq(base, dims);
      for (int i = 0; i < pairs; ++i) {
        Real& inv = out.inv_freq[static_cast<std::size_t>(i)];
        inv = i < plan.pairs ? inv / factor : Real(0);
      }
      break;
    case PlanKind::custom:
      if (!plan.freqs.empty()) {
        for (const Decimal& value : plan.freqs) out.inv_freq.push_back(from_decimal<Real>(value));
      } else {
        out.inv_freq = default_inv_freq(base, dims);
        for (int i = 0; i < pairs; ++i)
          out.inv_freq[static_cast<std::size_t>(i)] /= from_decimal<Real>(plan.factors[static_cast<std::size_t>(i)]);
      }
      break;
  }
  return out;
}

}  // namespace peconform
