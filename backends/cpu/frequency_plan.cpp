#include "backends/cpu/frequency_plan.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <fmt/format.h>
#include <utility>

#include "spec/spec_error.hpp"
#include "support/bounded_memo.hpp"

namespace peconform::cpu {
namespace {

// base^(-2i/d) for i = 0 .. d/2 - 1: the exponent 2i/d is one correctly rounded division.
// Remembered per (base, d), as a kernel keeps its inverse frequencies between calls: the
// property catalog plans a call per spec it generates, most of them with a (base, d) seen before,
// and powq was a tenth of its time.
std::vector<Quad> default_theta(Quad base, int d) {
  static BoundedMemo<std::pair<std::array<std::uint64_t, 2>, int>, std::vector<Quad>> tables(4096);
  std::pair<std::array<std::uint64_t, 2>, int> key{{}, d};
  static_assert(sizeof base == sizeof key.first);
  std::memcpy(key.first.data(), &base, sizeof base);
  return tables.get(key, [&] {
    std::vector<Quad> theta;
    for (int i = 0; i < d / 2; ++i) theta.push_back(powq(base, -static_cast<Quad>(2 * i) / d));
    return theta;
  });
}

// transformers _compute_dynamic_ntk_parameters: base' = base (factor L/orig - (factor - 1))^(d/(d-2))
// with L = max(length, orig), so that below the original context base' = base.
std::vector<Quad> dynamic_theta(const FrequencyPlan& plan, Quad base, int d, std::int64_t sequence_length) {
  const Quad factor = quad_of(plan.factor);
  const Quad length = static_cast<Quad>(std::max(sequence_length, plan.orig));
  const Quad orig = static_cast<Quad>(plan.orig);
  const Quad scaled_base = base * powq(factor * length / orig - (factor - 1), static_cast<Quad>(d) / (d - 2));
  return default_theta(scaled_base, d);
}

// transformers get_mscale(scale, mscale): 0.1 mscale ln(scale) + 1 above scale 1, else 1.
Quad yarn_mscale(Quad scale, Quad mscale) { return scale <= 1 ? Quad(1) : mscale * logq(scale) / 10 + 1; }

// transformers _compute_yarn_parameters. The correction dim of r rotations over the original
// context, d ln(orig/(2 pi r)) / (2 ln base), floored (beta_fast) and ceiled (beta_slow) unless
// truncate=false, clamped to [0, d-1]; the ramp (i - low)/(high - low), clamped to [0, 1], blends
// interpolation (theta/factor) into extrapolation (theta): theta_i (1 - ramp) + theta_i/factor ramp.
Frequencies yarn_frequencies(const FrequencyPlan& plan, Quad base, int d) {
  const Quad factor = quad_of(plan.factor);
  const Quad log_base = logq(base);
  auto correction_dim = [&](const Decimal& rotations) {
    return d * logq(static_cast<Quad>(plan.orig) / (2 * quad_pi() * quad_of(rotations))) / (2 * log_base);
  };
  Quad low = correction_dim(plan.beta_fast), high = correction_dim(plan.beta_slow);
  if (plan.truncate) {
    low = floorq(low);
    high = ceilq(high);
  }
  low = fmaxq(low, 0);
  high = fminq(high, static_cast<Quad>(d - 1));
  if (low == high) high += Quad(1) / 1000;  // transformers' guard against a zero-width ramp
  Frequencies out;
  for (int i = 0; i < d / 2; ++i) {
    const Quad extrapolated = powq(base, -static_cast<Quad>(2 * i) / d);
    const Quad ramp = fminq(fmaxq((i - low) / (high - low), 0), 1);
    out.theta.push_back(extrapolated / factor * ramp + extrapolated * (1 - ramp));
  }
  // The attention factor: as given; else DeepSeek's ratio when mscale and mscale_all_dim are both
  // set and non-zero (transformers tests them for truth); else get_mscale(factor, 1).
  if (plan.attention) out.attention = quad_of(*plan.attention);
  else if (plan.mscale && plan.mscale_all_dim && quad_of(*plan.mscale) != 0 && quad_of(*plan.mscale_all_dim) != 0)
    out.attention = yarn_mscale(factor, quad_of(*plan.mscale)) / yarn_mscale(factor, quad_of(*plan.mscale_all_dim));
  else out.attention = yarn_mscale(factor, 1);
  return out;
}

// transformers _compute_llama3_parameters (Meta's apply_scaling): with wavelength 2 pi/theta,
// wavelengths above orig/low are divided by factor, below orig/high kept, and in between blended by
// s = (orig/wavelength - low)/(high - low): (1 - s) theta/factor + s theta.
std::vector<Quad> llama3_theta(const FrequencyPlan& plan, Quad base, int d) {
  const Quad factor = quad_of(plan.factor), low = quad_of(plan.low), high = quad_of(plan.high);
  const Quad orig = static_cast<Quad>(plan.orig);
  const Quad low_frequency_wavelength = orig / low, high_frequency_wavelength = orig / high;
  std::vector<Quad> theta = default_theta(base, d);
  for (Quad& value : theta) {
    const Quad wavelength = 2 * quad_pi() / value;
    if (wavelength > low_frequency_wavelength) {
      value /= factor;
    } else if (!(wavelength < high_frequency_wavelength)) {
      const Quad s = (orig / wavelength - low) / (high - low);
      value = (1 - s) * value / factor + s * value;
    }
  }
  return theta;
}

// transformers _compute_longrope_parameters: theta_i / ext_i with ext the long factors past the
// original context and the short ones within it; attention sqrt(1 + ln(factor)/ln(orig)) above
// factor 1 unless given.
Frequencies longrope_frequencies(const FrequencyPlan& plan, Quad base, int d, std::int64_t sequence_length) {
  const std::vector<Decimal>& ext = sequence_length > plan.orig ? plan.long_factors : plan.short_factors;
  Frequencies out{default_theta(base, d), 1};
  for (std::size_t i = 0; i < out.theta.size(); ++i) out.theta[i] /= quad_of(ext[i]);
  const Quad factor = quad_of(plan.factor);
  if (plan.attention) out.attention = quad_of(*plan.attention);
  else if (factor > 1) out.attention = sqrtq(1 + logq(factor) / logq(static_cast<Quad>(plan.orig)));
  return out;
}

}  // namespace

Frequencies rotary_frequencies(const Spec& spec, std::int64_t sequence_length) {
  if (spec.family != Family::rope && spec.family != Family::xpos && spec.family != Family::mrope)
    throw SpecError(fmt::format("{} has no rotary frequency plan", family_name(spec.family)));
  const FrequencyPlan& plan = spec.scaling;
  const Quad base = quad_of(spec.base);
  const int d = spec.rotary_dims();
  switch (plan.kind) {
    case PlanKind::none: return {default_theta(base, d), 1};
    case PlanKind::linear: {
      Frequencies out{default_theta(base, d), 1};
      for (Quad& theta : out.theta) theta /= quad_of(plan.factor);
      return out;
    }
    case PlanKind::dynamic: return {dynamic_theta(plan, base, d, sequence_length), 1};
    case PlanKind::yarn: return yarn_frequencies(plan, base, d);
    case PlanKind::llama3: return {llama3_theta(plan, base, d), 1};
    case PlanKind::longrope: return longrope_frequencies(plan, base, d, sequence_length);
    case PlanKind::proportional: {
      // transformers _compute_proportional_rope_parameters: linear's theta on the first `pairs`
      // pairs, 0 on the rest, which do not rotate.
      Frequencies out{default_theta(base, d), 1};
      for (std::size_t i = 0; i < out.theta.size(); ++i)
        out.theta[i] = i < static_cast<std::size_t>(plan.pairs) ? out.theta[i] / quad_of(plan.factor) : Quad(0);
      return out;
    }
    case PlanKind::custom: {
      // ggml's freq_factors divide the default; explicit freqs replace it.
      Frequencies out{default_theta(base, d), 1};
      for (std::size_t i = 0; i < out.theta.size(); ++i)
        out.theta[i] = plan.freqs.empty() ? out.theta[i] / quad_of(plan.factors[i]) : quad_of(plan.freqs[i]);
      return out;
    }
  }
  return {default_theta(base, d), 1};
}

std::vector<Quad> axial_frequencies(const Spec& spec) { return default_theta(quad_of(spec.base), spec.d / 2); }

std::vector<Quad> sinusoid_frequencies(const Spec& spec) {
  const Quad base = quad_of(spec.base);
  const int pairs = spec.d / 2;
  if (spec.family == Family::sinusoidal && spec.freq == FrequencyRule::geometric) {
    const Quad step = logq(base) / std::max(pairs - 1, 1);
    std::vector<Quad> theta;
    for (int i = 0; i < pairs; ++i) theta.push_back(expq(-i * step));
    return theta;
  }
  if (spec.family == Family::sinusoidal && spec.layout == Layout::interleaved && spec.d % 2 == 1) {
    // DistilBERT's odd-d table: p / base^(2 floor(j/2)/d), d itself in the exponent, and one
    // more frequency for the lone last column (transformers create_sinusoidal_embeddings).
    std::vector<Quad> theta = default_theta(base, spec.d);
    theta.push_back(powq(base, -static_cast<Quad>(2 * pairs) / spec.d));
    return theta;
  }
  return default_theta(base, 2 * pairs);
}

}  // namespace peconform::cpu
