#pragma once
// Properties for a variant that has no Spec (issue 21): a researcher's new scheme has no
// reference to compare with, but the catalog's relations that need only the implementation
// still apply. A variant is a kernel plus a declaration (kind, d, dtype, precision class and
// what a relation needs to know); run_variant_properties() runs every catalog property tagged
// as applying to the declared kind (property.hpp, Property::variant) and says, for each, held,
// failed (with RapidCheck's shrunk counterexample), not constrained, or refused with the reason.
// This is the C++ API the Python binding's `peconform.properties()` calls.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "spec/spec.hpp"

namespace peconform {

enum class VariantKind { rotary, table, bias };
// Which elements a rotary variant rotates together, or a table's sin/cos pairs: the layouts of
// docs/specs.md, `layout` (interleaved: (2i, 2i+1); half: (i, i + n/2)), or unknown, where the
// relations that hold pair by pair are checked over all rotated elements at once.
enum class VariantPairing { interleaved, half, unknown };

struct VariantDeclaration {
  VariantKind kind = VariantKind::rotary;
  int d = 0;  // rotary and table: elements per vector or row; bias: heads
  Dtype dtype = Dtype::fp32;
  PrecisionClass precision = PrecisionClass::exact_angle;
  VariantPairing pairing = VariantPairing::unknown;
  // Rotary: the rotated elements, as the spec keys rot and rot_at say (0: all of d); the rest
  // are declared pass-through and must come back bit-identical.
  int rot = 0;
  RotaryPlacement rot_at = RotaryPlacement::first;
  // Rotary and table: |f(x, p)| = amplitude |x| on the rotated elements (a table's pairs lie on
  // the circle of this radius); a YaRN-like attention factor is declared here.
  Decimal amplitude{1};
  // The largest angle per unit of position the variant turns any pair by, |phi(p)| <=
  // max_frequency |p| (1 for every RoPE and sinusoid: theta_0 = base^0). Under fp32-angle the
  // angle error grows with |phi|, so the bound needs it; a variant whose angle grows faster
  // than linearly declares the rate at its largest position.
  Decimal max_frequency{1};
  // Under fp32-angle, how theta is formed in float32 (docs/precision.md, `theta`) and from which base: the
  // error model's relative angle error for that recipe (theta_recipe_error) is what a variant
  // is charged, at its worst pair.
  ThetaRecipe theta = ThetaRecipe::hf;
  Decimal base{10000};
  // Positions drawn lie in [0, max_position].
  std::int64_t max_position = 2147483647;
  // Rotary: whether the variant takes negative positions (the transpose relation R(-a) =
  // R(a)^T needs them).
  bool negative_positions = false;
  // Bias: whether b(i, j) = b(j, i) is part of the scheme (ALiBi's symmetric mode).
  bool symmetric = false;
  // The position axes (issue 49): a position is `axes` int64 coordinates (x, y for an image,
  // t, h, w for a video), each drawn in [0, max_position]. 1 is a sequence, as before: the same
  // relations, drawing the same cases for the same seed. Under fp32-angle and for the bound,
  // |phi(p)| <= max_frequency (|p_1| + ... + |p_N|).
  int axes = 1;
  // Each axis's own largest coordinate (an image's width and height, a video's frame count), one
  // per axis; empty: max_position on every axis.
  std::vector<std::int64_t> axis_max_positions;
};
// The largest coordinate of each axis: axis_max_positions, or max_position `axes` times.
std::vector<std::int64_t> axis_limits(const VariantDeclaration& declaration);
// The most axes a declaration may have.
inline constexpr int kMostAxes = 16;

// Thrown for a declaration that names an impossible value; the message names the key and value.
class VariantError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};
// Throws VariantError unless every key of `declaration` holds a value a variant can have.
void validate(const VariantDeclaration& declaration);
// "variant(kind=rotary,d=64,dtype=fp32,precision=exact-angle,...)": how cases name the variant.
std::string variant_text(const VariantDeclaration& declaration);
// Names as the Python binding and variant_text() spell them; the *_named ones throw VariantError
// naming the text and the choices.
std::string_view variant_kind_name(VariantKind kind);
VariantKind variant_kind_named(std::string_view text);
VariantPairing variant_pairing_named(std::string_view text);

// A batch of evaluations of the variant, in the shapes the kind takes:
// rotary  rows positions and rows x d inputs (row-major) -> rows x d outputs;
// table   rows positions -> rows x d entries;
// bias    rows query positions and rows key positions -> rows x d biases (d = heads).
// A position is `axes` coordinates: positions (and keys) hold rows x axes of them, row-major.
// Inputs and outputs are doubles holding values of the declared dtype (each dtype's values are
// exact in double).
struct VariantBatch {
  int axes = 1;
  std::vector<std::int64_t> positions;
  std::vector<std::int64_t> keys;  // bias only
  std::vector<double> inputs;      // rotary only
  std::size_t rows() const { return positions.size() / static_cast<std::size_t>(axes); }
};

// The variant under test. It is called on the thread that runs the properties only (a Python
// callable holds the GIL there); an exception it throws fails the property that called it,
// with the exception's text.
class VariantKernel {
 public:
  virtual ~VariantKernel() = default;
  virtual std::vector<double> evaluate(const VariantBatch& batch) const = 0;
};

enum class VariantVerdict {
  held,             // every case checked something and held
  failed,           // a case failed; `counterexample` holds the shrunk one
  not_constrained,  // the declared class's bound constrains nothing the property compares
  refused,          // the property does not apply to this declaration; `reason` says why
};
std::string_view variant_verdict_name(VariantVerdict verdict);

struct VariantPropertyResult {
  // The catalog property's name; over N > 1 axes, a relation checked along one axis or across
  // two carries them: "innerProductDependsOnlyOnRelativePosition[axis 1]", "...[axes 0,2]".
  std::string name;
  std::string relation;   // what it states of a variant
  // What the relation was checked over: "all axes", "axis 1", "axes 0 and 2"; for the norm,
  // also "each declared pair" or "the whole rotated slice" (pairing unknown: a dense rotation).
  std::string scope;
  VariantVerdict verdict = VariantVerdict::held;
  std::string reason;          // refused or not constrained: why
  std::string counterexample;  // failed: the relation, the shrunk case, the values, the ratio to the tolerance
  std::uint64_t seed = 0;      // RapidCheck's seed for this property (replays it)
  int cases = 0;               // cases that held (for failed: before the failing one)
  std::uint64_t unconstrained_cases = 0;  // cases with some elements left out as unconstrained
};

struct VariantRunOptions {
  std::uint64_t seed = 20261121;
  int cases = 200;
};

// Validates the declaration (VariantError), then runs every catalog property that applies to
// its kind, in catalog order, each with its own seed derived from options.seed and its name.
std::vector<VariantPropertyResult> run_variant_properties(const VariantKernel& kernel, const VariantDeclaration& declaration,
                                                          const VariantRunOptions& options = {});

}  // namespace peconform
