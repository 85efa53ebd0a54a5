#pragma once
// A variant as a RelationSubject: an Evaluator that calls the variant's kernel one row at a
// time and states the bound of the declared precision class, and the carrier spec that names
// its elements.
#include <memory>

#include "properties/variant_relations.hpp"

namespace peconform {

// The spec whose pairs, pass-through dims, dtype and theta recipe describe the declaration: a
// rope, sinusoidal or alibi spec with the declared d (heads for a bias), rot, rot_at, layout,
// dtype, precision, theta and base. It is never evaluated; it names elements and sizes bounds.
Spec carrier_spec(const VariantDeclaration& declaration);

// The evaluator of a variant, for one declaration, at points of the declared axes. The bound of each element is the error
// model's for the declared class (precision/error_model.hpp), with what only a reference knows
// taken from the declaration or the call itself:
// - rotary: B_e = P (1 + u_f) + u_f |y_e| + eta_s on each group of rotated elements, with
//   P = A r relative + r per_norm + absolute (rotary_bound_terms), A the declared amplitude,
//   r the norm of the group's input (a pair's when the pairing is declared; the whole rotated
//   slice's otherwise, which bounds every pair's r within it), |phi| <= max_frequency |p|_1
//   (the sum of the coordinates' magnitudes: one axis's |p| over one axis), and
//   the angle error's growth the declared theta recipe's at its worst pair. The exact |y_e| is
//   unknown; |y_e| <= |y_obs| + B gives B <= B(|y_obs|) / (1 - u_f). Pass-through: 0.
// - table: A times a sinusoid entry's bound (sinusoid_bound) at |phi| <= max_frequency |p| for
//   the entry |y_obs| / A, over (1 - u_f) as above; where A != 1, the amplitude's own
//   (|ln A| + 4) 2^-52 relative error (rotary_bound_terms' amplitude term).
// - bias: an ALiBi bias's |b| relative + absolute (alibi_bound_terms, head by head) with |b| <=
//   |b_obs| / (1 - relative).
// +inf marks an unconstrained element (checks.hpp), as claimed_error_bounds does.
// A kernel that returns other than d values per row fails the relation that called it with
// "wrong-return", naming what came back and what the declaration expects.
std::shared_ptr<const AxesEvaluator> variant_evaluator(const VariantKernel& kernel, const VariantDeclaration& declaration);

// The subject the variant relations check; `kernel` must outlive it.
RelationSubject variant_subject(const VariantKernel& kernel, const VariantDeclaration& declaration);

}  // namespace peconform
