#include "properties/variant_subject.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "precision/error_model.hpp"
#include "properties/generators.hpp"
#include "reference/point.hpp"
#include "reference/real_types.hpp"
#include "reference/rotary.hpp"

namespace peconform {
namespace {

Layout pairing_layout(VariantPairing pairing) {
  return pairing == VariantPairing::interleaved ? Layout::interleaved : Layout::half;
}

// The elements checked as one vector: each declared pair of a rotary variant or table, or a
// rotary variant's whole rotated slice when the pairing is unknown (a table's unknown pairing
// leaves none: its relations are refused).
std::vector<std::vector<std::size_t>> declared_groups(const VariantDeclaration& declaration, const Spec& carrier) {
  std::vector<std::vector<std::size_t>> groups;
  if (declaration.kind == VariantKind::rotary && declaration.pairing == VariantPairing::unknown) {
    const auto slice = rotary_slice(carrier);
    std::vector<std::size_t> slice_elements;
    for (int e = slice.start; e < slice.start + slice.dims; ++e) slice_elements.push_back(static_cast<std::size_t>(e));
    groups.push_back(slice_elements);
  } else if (declaration.kind == VariantKind::rotary) {
    for (const auto& [a, b] : rotary_pairs(carrier)) groups.push_back({a, b});
  } else if (declaration.kind == VariantKind::table && declaration.pairing != VariantPairing::unknown) {
    for (const auto& [a, b] : table_pairs(carrier)) groups.push_back({a, b});
  }
  return groups;
}

class VariantEvaluator final : public AxesEvaluator {
 public:
  VariantEvaluator(const VariantKernel& kernel, const VariantDeclaration& declaration)
      : kernel_(kernel), declaration_(declaration), carrier_(carrier_spec(declaration)),
        amplitude_(from_decimal<Wide>(declaration.amplitude)), max_frequency_(from_decimal<Wide>(declaration.max_frequency)) {
    // The angle error's growth at the worst frequency of the declared recipe (angle_growth).
    const int frequencies = std::max(1, (declaration.kind == VariantKind::rotary ? carrier_.rotary_dims() : declaration.d) / 2);
    growth_ = Wide(0);
    for (int index = 0; index < frequencies; ++index) growth_ = std::max(growth_, angle_growth<Wide>(carrier_, index));
    groups_ = declared_groups(declaration, carrier_);
  }

  std::vector<Wide> evaluate(const AxesPoint& point, std::span<const Wide> input) const override {
    if (cached_ && cached_point_.position == point.position && cached_point_.key == point.key &&
        std::equal(input.begin(), input.end(), cached_input_.begin(), cached_input_.end()))
      return cached_values_;
    VariantBatch batch;
    batch.axes = declaration_.axes;
    batch.positions = point.position;
    if (declaration_.kind == VariantKind::bias) batch.keys = point.key;
    for (const Wide& value : input) batch.inputs.push_back(static_cast<double>(value));
    const std::vector<double> out = kernel_.evaluate(batch);
    const auto expected = static_cast<std::size_t>(declaration_.d);
    if (out.size() != expected)
      throw std::runtime_error(fmt::format("wrong-return: the variant returned {} values for one row; the declaration says d = {}",
                                           out.size(), expected));
    cached_values_.assign(out.begin(), out.end());
    cached_point_ = point;
    cached_input_.assign(input.begin(), input.end());
    cached_ = true;
    return cached_values_;
  }

  std::vector<Wide> error_bounds(const AxesPoint& point, std::span<const Wide> input) const override {
    const std::vector<Wide> values = evaluate(point, input);
    switch (declaration_.kind) {
      case VariantKind::rotary: return rotary_bounds(point, input, values);
      case VariantKind::table: return table_bounds(point, values);
      case VariantKind::bias: return bias_bounds(values);
    }
    return {};
  }

 private:
  // |phi(p)| <= max_frequency |p|_1 (variant.hpp, axes).
  Wide angle_at(const AxesPoint& point) const {
    Wide sum(0);
    for (std::int64_t coordinate : point.position) sum += abs(Wide(coordinate));
    return max_frequency_ * sum;
  }

  std::vector<Wide> rotary_bounds(const AxesPoint& point, std::span<const Wide> input, const std::vector<Wide>& values) const {
    std::vector<Wide> bounds(values.size(), Wide(0));
    const Wide infinity = std::numeric_limits<Wide>::infinity();
    const auto terms = rotary_bound_terms<Wide>(carrier_, angle_at(point), log(amplitude_), growth_);
    const std::vector<Wide> x(input.begin(), input.end());
    for (const std::vector<std::size_t>& group : groups_) {
      const Wide r = group_norm(x, group);
      const bool claimed = terms.constrains() && isfinite(r) && within_claim(amplitude_ * std::max(r, Wide(1)), terms.largest);
      for (std::size_t e : group)
        bounds[e] = claimed ? terms.bound(amplitude_ * r, r, values[e]) / (1 - terms.final) : infinity;
    }
    return bounds;
  }

  std::vector<Wide> table_bounds(const AxesPoint& point, const std::vector<Wide>& values) const {
    std::vector<Wide> bounds(values.size());
    const Wide final = Wide(format_constants(carrier_.dtype).unit) +
                       (compute_dtype(carrier_.dtype) != carrier_.dtype ? Wide(format_constants(compute_dtype(carrier_.dtype)).unit) : Wide(0));
    const Wide amplitude_error = amplitude_ == 1 ? Wide(0) : (abs(log(amplitude_)) + 4) * ldexp(Wide(1), -52);
    for (std::size_t e = 0; e < values.size(); ++e) {
      const Wide entry = sinusoid_bound<Wide>(carrier_, angle_at(point), abs(values[e]) / amplitude_, growth_);
      bounds[e] = amplitude_ * (entry + amplitude_error) / (1 - final);
    }
    return bounds;
  }

  std::vector<Wide> bias_bounds(const std::vector<Wide>& values) const {
    std::vector<Wide> bounds(values.size());
    for (std::size_t head = 0; head < values.size(); ++head) {
      const auto terms = alibi_bound_terms<Wide>(carrier_, static_cast<int>(head));
      const Wide b = abs(values[head]);
      bounds[head] = isfinite(b) && within_claim(b, terms.largest) ? (b * terms.relative + terms.absolute) / (1 - terms.relative)
                                                                   : std::numeric_limits<Wide>::infinity();
    }
    return bounds;
  }

  const VariantKernel& kernel_;
  VariantDeclaration declaration_;
  Spec carrier_;
  Wide amplitude_, max_frequency_, growth_;
  std::vector<std::vector<std::size_t>> groups_;
  // The last call, which error_bounds() reads back rather than calling the kernel again.
  mutable bool cached_ = false;
  mutable AxesPoint cached_point_;
  mutable std::vector<Wide> cached_input_, cached_values_;
};

}  // namespace

Spec carrier_spec(const VariantDeclaration& declaration) {
  Spec spec;
  switch (declaration.kind) {
    case VariantKind::rotary:
      spec.family = Family::rope;
      spec.d = declaration.d;
      spec.rot = declaration.rot == declaration.d ? 0 : declaration.rot;
      spec.rot_at = declaration.rot_at;
      spec.layout = pairing_layout(declaration.pairing);
      break;
    case VariantKind::table:
      spec.family = Family::sinusoidal;
      spec.d = declaration.d;
      spec.layout = pairing_layout(declaration.pairing);
      break;
    case VariantKind::bias:
      spec.family = Family::alibi;
      spec.heads = declaration.d;
      break;
  }
  spec.dtype = declaration.dtype;
  spec.precision = declaration.precision;
  spec.theta = declaration.precision == PrecisionClass::fp32_angle ? declaration.theta : ThetaRecipe::exact;
  spec.base = declaration.base;
  return spec;
}

namespace {

// A spec's Evaluator at its own points: coordinate a of the position is the point's c[a] (one
// for rope and xPos, x and y for rope2d, t, h and w for mRoPE).
class SpecAtItsPoints final : public AxesEvaluator {
 public:
  explicit SpecAtItsPoints(const Evaluator& evaluator) : evaluator_(evaluator) {}
  std::vector<Wide> evaluate(const AxesPoint& point, std::span<const Wide> input) const override {
    return evaluator_.evaluate(spec_point(point), input);
  }
  std::vector<Wide> error_bounds(const AxesPoint& point, std::span<const Wide> input) const override {
    return evaluator_.error_bounds(spec_point(point), input);
  }

 private:
  static Point spec_point(const AxesPoint& point) {
    Point out;
    std::copy(point.position.begin(), point.position.end(), out.c.begin());
    return out;
  }
  const Evaluator& evaluator_;
};

}  // namespace

std::shared_ptr<const AxesEvaluator> variant_evaluator(const VariantKernel& kernel, const VariantDeclaration& declaration) {
  return std::make_shared<VariantEvaluator>(kernel, declaration);
}

RelationSubject variant_subject(const VariantKernel& kernel, const VariantDeclaration& declaration) {
  RelationSubject subject{variant_evaluator(kernel, declaration), carrier_spec(declaration), variant_text(declaration),
                          axis_limits(declaration), {}, from_decimal<Wide>(declaration.amplitude),
                          declaration.negative_positions, declaration.axes, {}};
  subject.groups = declared_groups(declaration, subject.carrier);
  return subject;
}

RelationSubject rotary_spec_subject(const Evaluator& evaluator, const Spec& spec) {
  const int axes = point_arity(spec.family);
  RelationSubject subject{std::make_shared<SpecAtItsPoints>(evaluator), spec, spec.canonical(),
                          std::vector<std::int64_t>(static_cast<std::size_t>(axes), position_limit(spec)), {},
                          from_decimal<Wide>(spec.amp), true, axes, {}, true};
  for (const auto& [a, b] : rotary_pairs(spec)) subject.groups.push_back({a, b});
  return subject;
}

std::vector<std::vector<int>> axis_scopes(AxisForms forms, int axes) {
  std::vector<std::vector<int>> scopes{{}};
  if (axes == 1 || forms == AxisForms::whole) return scopes;
  for (int axis = 0; axis < axes; ++axis) scopes.push_back({axis});
  if (forms != AxisForms::per_axis_and_pair) return scopes;
  for (int first = 0; first < axes; ++first)
    for (int second = first + 1; second < axes; ++second) scopes.push_back({first, second});
  return scopes;
}

std::vector<std::int64_t> draw_position(const std::vector<std::int64_t>& limits) {
  std::vector<std::int64_t> position;
  for (std::int64_t limit : limits) position.push_back(*gen_position(limit));
  return position;
}

std::string position_text(const std::vector<std::int64_t>& position) {
  if (position.size() == 1) return fmt::format("{}", position[0]);
  return fmt::format("({})", fmt::join(position, ","));
}

std::string RelationSubject::case_text(const AxesPoint& point) const { return case_text(std::vector<AxesPoint>{point}); }

std::string RelationSubject::case_text(const std::vector<AxesPoint>& points) const {
  std::string text = name + " at ";
  for (std::size_t i = 0; i < points.size(); ++i) {
    text += i == 0 ? "" : "; ";
    if (spec_points) {
      Point point;
      std::copy(points[i].position.begin(), points[i].position.end(), point.c.begin());
      text += format_point(carrier.family, point);
    } else {
      text += position_text(points[i].position);
    }
    if (!points[i].key.empty()) text += ":" + position_text(points[i].key);
  }
  return text;
}

Evaluation RelationSubject::evaluate(const AxesPoint& point, std::vector<Wide> input) const {
  // The Evaluation's Point is the first axis's, as one axis had it; the relations name their
  // cases from the AxesPoints (case_text), which hold every axis.
  const Point first{{point.position.at(0), point.key.empty() ? 0 : point.key[0], 0}};
  Evaluation out{carrier, first, std::move(input), {}, {}};
  try {
    out.values = evaluator->evaluate(point, out.input);
    out.bounds = evaluator->error_bounds(point, out.input);
  } catch (const std::exception& error) {
    require_holds(false, fmt::format("a thrown exception: {}", error.what()), [&] {
      return Site{"the variant evaluates every point it is given", case_text(point), "the whole call",
                  fmt::format("{} values", out.input.size()), carrier.dtype};
    });
  }
  return out;
}

Wide group_norm(const std::vector<Wide>& values, const std::vector<std::size_t>& elements) {
  Wide scale(0);
  for (std::size_t e : elements) scale = std::max(scale, abs(values[e]));
  if (scale == 0 || !isfinite(scale)) return scale;
  Wide sum(0);
  for (std::size_t e : elements) sum += (values[e] / scale) * (values[e] / scale);
  return scale * sqrt(sum);
}

}  // namespace peconform
