#pragma once
// Absolute sinusoidal tables and the Transformer-XL relative sinusoid.
// Definitions: ../shared/notes/variants.md sections 1 and 7.
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "reference/real_types.hpp"
#include "spec/spec.hpp"

namespace peconform {

// Whether a sinusoidal row ends in a column of its own: odd d under interleaved, as DistilBERT's
// create_sinusoidal_embeddings builds it (column j holds sin for even j and cos for odd j of
// p / base^(2 floor(j/2)/d), so column d-1 is a sine whose cosine would lie past the end).
inline bool has_lone_column(const Spec& spec) {
  return spec.family == Family::sinusoidal && spec.layout == Layout::interleaved && spec.d % 2 == 1;
}

// The frequencies of a sinusoidal table: floor(d/2), one more for a lone column. power:
// base^(-2i/(2n)) (Vaswani; base^(-2i/d) for even d), and base^(-2i/d) with the lone column's
// i = n (DistilBERT, odd d interleaved). geometric: exp(-i ln(base)/max(n-1, 1)), from 1 down
// to exactly 1/base (tensor2tensor get_timing_signal_1d with min_timescale 1, fairseq
// get_embedding).
template <class Real> std::vector<Real> sinusoidal_frequencies(const Spec& spec) {
  const int n = spec.d / 2;
  const bool lone = has_lone_column(spec);
  const Real base = from_decimal<Real>(spec.base);
  std::vector<Real> out;
  for (int i = 0; i < n + (lone ? 1 : 0); ++i) {
    if (spec.freq == FrequencyRule::power)
      out.push_back(pow(base, Real(-2 * i) / Real(lone ? spec.d : 2 * n)));
    else
      out.push_back(exp(-Real(i) * log(base) / Real(std::max(n - 1, 1))));
  }
  return out;
}

// One table row. Interleaved puts pair i at (2i, 2i+1), half puts sines then cosines
// ([sin..., cos...]); cos-sin swaps the two within each place; odd d under half ends in a zero
// column, under interleaved in the lone first member (sin, or cos under cos-sin) of pair n.
// The row is that of position + offset (fairseq: offset = padding_idx + 1), every entry times
// `amplitude`, the spec's amp (mlx's SinusoidalPositionalEncoding scale, sqrt(2/dims) by default).
template <class Real>
std::vector<Real> sinusoidal_row(const Spec& spec, const std::vector<Real>& frequencies, std::int64_t position,
                                 const Real& amplitude) {
  const int n = spec.d / 2;
  std::vector<Real> row(static_cast<std::size_t>(spec.d), Real(0));
  const Real shifted(position + spec.offset);
  for (int i = 0; i < n; ++i) {
    const Real angle = shifted * frequencies[static_cast<std::size_t>(i)];
    Real first = sin(angle) * amplitude, second = cos(angle) * amplitude;
    if (spec.order == SinusoidalOrder::cos_sin) std::swap(first, second);
    const auto [a, b] = spec.layout == Layout::interleaved ? std::pair{2 * i, 2 * i + 1} : std::pair{i, i + n};
    row[static_cast<std::size_t>(a)] = first;
    row[static_cast<std::size_t>(b)] = second;
  }
  if (has_lone_column(spec)) {
    const Real angle = shifted * frequencies[static_cast<std::size_t>(n)];
    row[static_cast<std::size_t>(spec.d - 1)] = (spec.order == SinusoidalOrder::cos_sin ? cos(angle) : sin(angle)) * amplitude;
  }
  return row;
}

// Transformer-XL's relative distance i - j, capped at clamp_len when clamp_len > 0.
inline std::int64_t xl_distance(const Spec& spec, std::int64_t query, std::int64_t key) {
  return spec.clamp_len > 0 ? std::min(query - key, spec.clamp_len) : query - key;
}

// Transformer-XL's R_{i-j} = [sin((i-j) inv), cos((i-j) inv)], inv = base^(-2k/d)
// (kimiyoung/transformer-xl mem_transformer.py).
template <class Real>
std::vector<Real> xl_relative_row(const Spec& spec, const std::vector<Real>& frequencies, std::int64_t query,
                                  std::int64_t key) {
  const std::int64_t distance = xl_distance(spec, query, key);
  const int n = spec.d / 2;
  std::vector<Real> row(static_cast<std::size_t>(spec.d));
  for (int k = 0; k < n; ++k) {
    const Real angle = Real(distance) * frequencies[static_cast<std::size_t>(k)];
    row[static_cast<std::size_t>(k)] = sin(angle);
    row[static_cast<std::size_t>(k + n)] = cos(angle);
  }
  return row;
}

}  // namespace peconform
