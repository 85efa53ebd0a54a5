#pragma once
// The relations of the catalog that need only the implementation (property.hpp tags each
// catalog property that has one with Property::variant). A relation is written against a
// RelationSubject: an evaluator, the spec whose element layout and dtype describe what it
// evaluates (the declaration's "carrier": rotary_pairs, pass_through_elements, table_pairs and
// the dtype of a rope, sinusoidal or alibi spec with the declared d, rot, layout and dtype), and
// what the relation may assume of it. A variant (variant.hpp) becomes one; so does a spec on any
// Implementation, for the relations the catalog also runs through the same body.
#include <cstdint>
#include <string>
#include <vector>

#include "backends/implementation.hpp"
#include "properties/checks.hpp"
#include "properties/variant.hpp"

namespace peconform {

struct RelationSubject {
  const Evaluator& evaluator;
  Spec carrier;
  std::string name;  // how case texts name the subject: a variant's text or a spec's canonical text
  std::int64_t position_limit = 0;
  // Rotary: the elements rotated together, each checked as one vector; the declared pairs, or
  // the whole rotated slice when the pairing is unknown. Tables: the sin/cos pairs.
  std::vector<std::vector<std::size_t>> groups;
  Wide amplitude{1};
  bool negative_positions = false;

  // "variant(...) at 5", "variant(...) at 3:7"; several points: "variant(...) at 5; 0; 12".
  std::string case_text(const Point& point) const;
  std::string case_text(const std::vector<Point>& points) const;
  // One evaluation, its failures and thrown exceptions named by case_text().
  Evaluation evaluate(const Point& point, std::vector<Wide> input) const;
};

// A relation's tag on a catalog property: which kind of variant it applies to, what it states,
// when it does not constrain a declaration (refusal returns the reason, or "" when it applies),
// and its body.
struct VariantRelation {
  VariantKind kind;
  std::string_view statement;
  std::string (*refusal)(const VariantDeclaration& declaration);
  void (*check)(const RelationSubject& subject);
};

// Rotary (variant_rotary_relations.cpp).
extern const VariantRelation kVariantNormPreserved;
extern const VariantRelation kVariantRelativePosition;
extern const VariantRelation kVariantComposition;
extern const VariantRelation kVariantIdentityAtZero;
extern const VariantRelation kVariantTranspose;
extern const VariantRelation kVariantPassThrough;
extern const VariantRelation kVariantLinearity;
// Tables (variant_table_relations.cpp).
extern const VariantRelation kVariantTableShift;
extern const VariantRelation kVariantTableRadius;
// Biases (variant_bias_relations.cpp).
extern const VariantRelation kVariantBiasTranslation;

// A rotary spec as a RelationSubject: its pairs, its amplitude left to the relation (1), the
// catalog's position limit. For catalog properties that run a relation's body on a spec.
RelationSubject rotary_spec_subject(const Evaluator& evaluator, const Spec& spec);

// The norm of `values` over `elements`, scaled so that it neither overflows nor underflows;
// of an evaluation's bounds, the bound on the norm of its error over those elements.
Wide group_norm(const std::vector<Wide>& values, const std::vector<std::size_t>& elements);

}  // namespace peconform
