#include "properties/rotary_support.hpp"

#include <boost/math/constants/constants.hpp>

namespace peconform {

std::vector<Wide> unit_pairs_input(const Spec& spec) {
  std::vector<Wide> input(static_cast<std::size_t>(spec.d), Wide(0));
  for (const auto& [a, b] : rotary_input_pairs(spec)) input[a] = 1;
  return input;
}

PairAngles pair_angles(const Evaluator& evaluator, const Spec& spec, const Point& point) {
  PairAngles out{{}, {}, evaluate(evaluator, spec, point, unit_pairs_input(spec))};
  const Wide half_pi = boost::math::constants::half_pi<Wide>();
  for (const auto& [a, b] : rotary_pairs(spec)) {
    const std::vector<Wide>& y = out.evaluation.values;
    out.angle.push_back(atan2(y[b], y[a]));
    out.tolerance.push_back(half_pi * pair_bound(out.evaluation, a, b) / pair_norm(y, a, b) + check_rounding(Wide(1), 8));
  }
  return out;
}

std::vector<Wide> pair_gains(const Evaluator& evaluator, const Spec& spec, const Point& point) {
  const Evaluation unit = evaluate(evaluator, spec, point, unit_pairs_input(spec));
  std::vector<Wide> gains;
  for (const auto& [a, b] : rotary_pairs(spec)) gains.push_back(pair_norm(unit.values, a, b) + pair_bound(unit, a, b));
  return gains;
}

Point add_points(const Point& a, const Point& b) {
  Point out;
  for (std::size_t axis = 0; axis < out.c.size(); ++axis) out.c[axis] = a.c[axis] + b.c[axis];
  return out;
}

Point negated(const Point& point) {
  Point out;
  for (std::size_t axis = 0; axis < out.c.size(); ++axis) out.c[axis] = -point.c[axis];
  return out;
}

}  // namespace peconform
