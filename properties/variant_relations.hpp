#pragma once
// The relations of the catalog that need only the implementation (property.hpp tags each
// catalog property that has one with Property::variant). A relation is written against a
// RelationSubject: an evaluator, the spec whose element layout and dtype describe what it
// evaluates (the declaration's "carrier": rotary_pairs, pass_through_elements, table_pairs and
// the dtype of a rope, sinusoidal or alibi spec with the declared d, rot, layout and dtype), and
// what the relation may assume of it. A variant (variant.hpp) becomes one; so does a spec on any
// Implementation, for the relations the catalog also runs through the same body.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "backends/implementation.hpp"
#include "properties/checks.hpp"
#include "properties/variant.hpp"

namespace peconform {

// Where a variant is evaluated: a position of `axes` coordinates, and for a bias the key's.
struct AxesPoint {
  std::vector<std::int64_t> position, key;
};

// Evaluates a subject at an AxesPoint: its values and the bound of each (checks.hpp's +inf
// for an unconstrained element), as an Evaluator does at a Point.
class AxesEvaluator {
 public:
  virtual ~AxesEvaluator() = default;
  virtual std::vector<Wide> evaluate(const AxesPoint& point, std::span<const Wide> input) const = 0;
  virtual std::vector<Wide> error_bounds(const AxesPoint& point, std::span<const Wide> input) const = 0;
};

struct RelationSubject {
  std::shared_ptr<const AxesEvaluator> evaluator;
  Spec carrier;
  std::string name;  // how case texts name the subject: a variant's text or a spec's canonical text
  // Each axis's largest coordinate: positions are drawn in [0, position_limits[a]].
  std::vector<std::int64_t> position_limits;
  // Rotary: the elements rotated together, each checked as one vector; the declared pairs, or
  // the whole rotated slice when the pairing is unknown. Tables: the sin/cos pairs.
  std::vector<std::vector<std::size_t>> groups;
  Wide amplitude{1};
  bool negative_positions = false;
  int axes = 1;
  // The axes a relation stated per axis moves positions along (VariantRelation::forms): one
  // axis, two (the first move along the first, the second along the second), or none: all.
  std::vector<int> scope;
  // A spec's positions print in its family's point form (3:7 for rope2d, 1:2:3 for mRoPE), as
  // its other catalog cases print them; a variant's print as (3,7).
  bool spec_points = false;

  // "variant(...) at 5", "variant(...) at (3,7)", a bias "at 5:2"; several points joined by "; ".
  std::string case_text(const AxesPoint& point) const;
  std::string case_text(const std::vector<AxesPoint>& points) const;
  // One evaluation, its failures and thrown exceptions named by case_text().
  Evaluation evaluate(const AxesPoint& point, std::vector<Wide> input) const;
};

// Which forms of a relation run over N > 1 axes: the relation over Z^N alone, also along each
// axis alone, or also across each pair of axes (the first move along one, the second along the
// other). Over one axis every relation runs once, as it always has.
enum class AxisForms { whole, per_axis, per_axis_and_pair };

// A relation's tag on a catalog property: which kind of variant it applies to, what it states,
// when it does not constrain a declaration (refusal returns the reason, or "" when it applies),
// its body, and the forms it takes over several axes.
struct VariantRelation {
  VariantKind kind;
  std::string_view statement;
  std::string (*refusal)(const VariantDeclaration& declaration);
  void (*check)(const RelationSubject& subject);
  AxisForms forms = AxisForms::whole;
  // What a run checked it over beyond the axes, for the result's scope ("" when only the axes).
  std::string (*checked_over)(const VariantDeclaration& declaration) = nullptr;
};

// Rotary (variant_rotary_relations.cpp).
extern const VariantRelation kVariantNormPreserved;
extern const VariantRelation kVariantRelativePosition;
extern const VariantRelation kVariantComposition;
extern const VariantRelation kVariantIdentityAtZero;
extern const VariantRelation kVariantTranspose;
extern const VariantRelation kVariantPassThrough;
extern const VariantRelation kVariantLinearity;
extern const VariantRelation kVariantReversible;
// Tables (variant_table_relations.cpp).
extern const VariantRelation kVariantTableShift;
extern const VariantRelation kVariantTableRadius;
// Biases (variant_bias_relations.cpp).
extern const VariantRelation kVariantBiasTranslation;

// A rotary spec as a RelationSubject over its family's axes (point_arity: one for rope and xPos,
// two for rope2d, three for mRoPE), each up to the catalog's position limit, with its pairs and
// spec.amp as the amplitude A. spec.amp is the whole amplitude of rope2d and of mRoPE (their
// plans, none and linear, scale none); a rope or xPos spec's may be more (YaRN's attention
// factor, xPos's zeta^(p/scale_base)), so only the relations that read no A (linearity) are run
// on those. For catalog properties that run a relation's body on a spec; `evaluator` must
// outlive the subject.
RelationSubject rotary_spec_subject(const Evaluator& evaluator, const Spec& spec);

// The scopes (RelationSubject::scope) a relation of `forms` runs under over `axes` axes: all axes
// ({}) first, then each axis alone, then each pair of axes (first < second), as the forms allow.
std::vector<std::vector<int>> axis_scopes(AxisForms forms, int axes);

// The N-D position drawn for a relation: one coordinate per axis, each as gen_position(limit of
// that axis) draws it (over one axis, exactly the draw of the one-axis relations before axes
// existed).
std::vector<std::int64_t> draw_position(const std::vector<std::int64_t>& limits);
// "5" over one axis, "(3,7)" over several.
std::string position_text(const std::vector<std::int64_t>& position);

// The norm of `values` over `elements`, scaled so that it neither overflows nor underflows;
// of an evaluation's bounds, the bound on the norm of its error over those elements.
Wide group_norm(const std::vector<Wide>& values, const std::vector<std::size_t>& elements);

}  // namespace peconform
