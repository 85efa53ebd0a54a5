#pragma once
// Shared steps of the rotary properties: preparing an evaluator, probing a rotation on unit
// vectors, and reading each pair's angle back.
#include <memory>

#include "properties/checks.hpp"
#include "properties/generators.hpp"

namespace peconform {

// The input with 1 on the first element of every rotated pair and 0 elsewhere: its image shows
// each pair's cos and sin (times the amplitude).
std::vector<Wide> unit_pairs_input(const Spec& spec);

// Each rotated pair's angle at `point`, read back as atan2 of the image of (1, 0), with the
// error that the evaluation's bound allows on it (pi/2 B / |y|, plus the atan2's own rounding).
struct PairAngles {
  std::vector<Wide> angle, tolerance;
  Evaluation evaluation;
};
PairAngles pair_angles(const Evaluator& evaluator, const Spec& spec, const Point& point);

// The largest gain each pair's rotation at `point` may have: |R(point)(1, 0)| plus its bound.
std::vector<Wide> pair_gains(const Evaluator& evaluator, const Spec& spec, const Point& point);

// Coordinate-wise sum and negation of points.
Point add_points(const Point& a, const Point& b);
Point negated(const Point& point);

}  // namespace peconform
