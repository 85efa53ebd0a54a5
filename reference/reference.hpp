#pragma once
// Reference<Real>: every scheme of a Spec evaluated from its definition in the tier `Real`.
// Compiled once per tier (exact_tier.cpp, fast_tier.cpp); include this header, not the parts.
#include <cstdint>
#include <span>
#include <vector>

#include "reference/frequency_plans.hpp"
#include "reference/point.hpp"
#include "reference/real_types.hpp"
#include "spec/spec.hpp"

namespace peconform {

template <class Real> class Reference {
 public:
  // `sequence_length` is what dynamic NTK and LongRoPE key on; see plan_sequence_length().
  Reference(const Spec& spec, std::int64_t sequence_length);

  const Spec& spec() const { return spec_; }
  // How many input values evaluate() takes: d for the rotary families, the rows*d table for
  // learned, none for tables and relative families.
  std::size_t input_size() const;
  // How many values evaluate() returns per point: d, or heads for ALiBi, or 1 for T5 and Shaw.
  std::size_t output_size() const;
  // Throws SpecError for a point the scheme does not define (a learned row past the table,
  // a negative table position) or an input of the wrong size.
  std::vector<Real> evaluate(const Point& point, std::span<const Real> input) const;
  // Whether the T5 bucket of `point` sits exactly on a logarithmic boundary.
  bool is_t5_boundary(const Point& point) const;

  // The rotary frequencies (rope, xpos, mrope, rope2d) or table frequencies (sinusoidal, xl).
  const RotaryFrequencies<Real>& frequencies() const { return frequencies_; }
  const std::vector<Real>& alibi_slopes() const { return slopes_; }

 private:
  Spec spec_;
  RotaryFrequencies<Real> frequencies_;
  std::vector<Real> slopes_;
};

// The sequence length a call over `points` implies for `spec` (the plan's `len`, else one past
// the largest coordinate).
std::int64_t sequence_length_for(const Spec& spec, std::span<const Point> points);

extern template class Reference<ExactReal>;
extern template class Reference<FastReal>;

}  // namespace peconform
