#include "tools/sample_points.hpp"

#include <algorithm>
#include <cmath>
#include <random>

#include "reference/tier_bounds.hpp"

namespace peconform {
namespace {

constexpr std::int64_t kEdgePositions[] = {0, 1, 2, 1000, (1 << 24) - 1, 1 << 24, (1 << 24) + 1, 2147483647};

// Largest position the family is evaluated at: learned tables end, xPos leaves binary128's
// exponent range past xpos_position_limit().
std::int64_t position_limit(const Spec& spec) {
  if (spec.family == Family::learned) return spec.rows - 1;
  if (spec.family == Family::xpos) return xpos_position_limit(spec);
  return 2147483647;
}

std::int64_t log_uniform(std::mt19937_64& engine, std::int64_t limit) {
  const double unit = static_cast<double>(engine() >> 11) * 0x1p-53;
  return std::min(limit, static_cast<std::int64_t>(std::exp2(unit * std::log2(static_cast<double>(limit) + 1.0))));
}

}  // namespace

std::vector<Point> sample_points(const Spec& spec, std::uint64_t seed, int random_count) {
  const std::int64_t limit = position_limit(spec);
  std::vector<std::int64_t> positions;
  for (std::int64_t edge : kEdgePositions) positions.push_back(std::min(edge, limit));
  std::mt19937_64 engine(seed);
  for (int k = 0; k < random_count; ++k) positions.push_back(log_uniform(engine, limit));

  std::vector<Point> points;
  const int arity = point_arity(spec.family);
  for (std::size_t k = 0; k < positions.size(); ++k) {
    Point point;
    for (int c = 0; c < arity; ++c)  // later coordinates take later positions, cyclically
      point.c[static_cast<std::size_t>(c)] = positions[(k + static_cast<std::size_t>(c) * 3) % positions.size()];
    if (!std::count(points.begin(), points.end(), point)) points.push_back(point);
  }
  return points;
}

}  // namespace peconform
