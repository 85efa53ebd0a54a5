#pragma once
// Definitions of Reference<Real>; included only by the per-tier instantiation files.
#include <fmt/format.h>

#include "reference/reference.hpp"
#include "reference/relative_bias.hpp"
#include "reference/rotary.hpp"
#include "reference/sinusoidal.hpp"
#include "spec/spec_error.hpp"

namespace peconform {

template <class Real>
Reference<Real>::Reference(const Spec& spec, std::int64_t sequence_length) : spec_(spec) {
  switch (spec.family) {
    case Family::rope:
    case Family::xpos:
    case Family::mrope:
      frequencies_ = rotary_frequencies<Real>(spec, sequence_length);
      break;
    case Family::rope2d:
      frequencies_.inv_freq = default_inv_freq(from_decimal<Real>(spec.base), spec.d / 2);
      frequencies_.attention = from_decimal<Real>(spec.amp);
      break;
    case Family::sinusoidal:
      frequencies_.inv_freq = sinusoidal_frequencies<Real>(spec);
      frequencies_.attention = from_decimal<Real>(spec.amp);
      break;
    case Family::xl:
      frequencies_.inv_freq = default_inv_freq(from_decimal<Real>(spec.base), spec.d);
      break;
    case Family::alibi:
      slopes_ = peconform::alibi_slopes<Real>(spec.heads);
      break;
    case Family::learned:
      frequencies_.attention = from_decimal<Real>(spec.amp);
      break;
    case Family::t5:
    case Family::shaw:
      break;
  }
}

template <class Real> std::size_t Reference<Real>::input_size() const {
  switch (spec_.family) {
    case Family::rope:
    case Family::xpos:
    case Family::mrope:
    case Family::rope2d: return static_cast<std::size_t>(spec_.d);
    case Family::learned: return static_cast<std::size_t>(spec_.rows) * static_cast<std::size_t>(spec_.d);
    default: return 0;
  }
}

template <class Real> std::size_t Reference<Real>::output_size() const {
  switch (spec_.family) {
    case Family::alibi: return static_cast<std::size_t>(spec_.heads);
    case Family::t5:
    case Family::shaw: return 1;
    default: return static_cast<std::size_t>(spec_.d);
  }
}

template <class Real>
std::vector<Real> Reference<Real>::evaluate(const Point& point, std::span<const Real> input) const {
  if (input.size() != input_size())
    throw SpecError(fmt::format("{} takes {} input values, found {}", spec_.canonical(), input_size(), input.size()));
  const std::int64_t p = point.c[0], q = point.c[1];
  switch (spec_.family) {
    case Family::rope:
    case Family::xpos:
    case Family::mrope:
    case Family::rope2d:
      return rotate(spec_, frequencies_, point, input);
    case Family::sinusoidal:
      if (p < 0) throw SpecError(fmt::format("sinusoidal positions start at 0, found {}", p));
      return sinusoidal_row(spec_, frequencies_.inv_freq, p, frequencies_.attention);
    case Family::learned: {
      if (p < 0 || p >= spec_.rows)
        throw SpecError(fmt::format("position {} is past the learned table of {} rows (valid: 0..{})", p, spec_.rows,
                                    spec_.rows - 1));
      const auto row = input.subspan(static_cast<std::size_t>(p) * static_cast<std::size_t>(spec_.d),
                                     static_cast<std::size_t>(spec_.d));
      std::vector<Real> out(row.begin(), row.end());
      for (Real& value : out) value *= frequencies_.attention;  // amp: x-transformers' AbsolutePositionalEmbedding
      return out;
    }
    case Family::xl:
      return xl_relative_row(spec_, frequencies_.inv_freq, p, q);
    case Family::alibi:
      return alibi_bias(spec_, slopes_, p, q, point.c[2]);
    case Family::t5:
      return {Real(t5_bucket<Real>(spec_, p, q).bucket)};
    case Family::shaw:
      return {Real(shaw_index(spec_, p, q))};
  }
  return {};
}

template <class Real> bool Reference<Real>::is_t5_boundary(const Point& point) const {
  return spec_.family == Family::t5 && t5_bucket<Real>(spec_, point.c[0], point.c[1]).boundary;
}

}  // namespace peconform
