#include "harness/screened_cos_sin.hpp"

#include <boost/math/constants/constants.hpp>

namespace peconform::harness {

ScreenedCosSin screened_cos_sin(const Wide& angle) {
  static const Wide two_pi = 2 * boost::math::constants::pi<Wide>();
  static const Wide inverse_two_pi = 1 / two_pi;
  const Wide turns = round(angle * inverse_two_pi);
  const Wide reduced = angle - turns * two_pi;
  const double hi = static_cast<double>(reduced);
  const double lo = static_cast<double>(reduced - Wide(hi));
  const double s = std::sin(hi), c = std::cos(hi);
  const double magnitude = std::abs(static_cast<double>(angle));
  return {c - s * lo, s + c * lo, 0x1p-52 + magnitude * 0x1p-100};
}

}  // namespace peconform::harness
