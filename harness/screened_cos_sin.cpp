#include "harness/screened_cos_sin.hpp"

#include <boost/math/constants/constants.hpp>
#include <cmath>

namespace peconform::harness {
namespace {

// round(x) (half away from zero), exactly as binary128's roundq gives it, through double where
// |x| < 2^52: d = x rounded to double lies within 1/2 of x there, so F = floor(|d|) lies in
// (|x| - 3/2, |x| + 1/2] and |x| - F, a multiple of x's ulp no larger than |x|, is exact in
// binary128 and lies in [-1/2, 3/2); the nearest integer is F + 1 when it is at least 1/2 (a tie,
// exactly 1/2, goes away from zero), else F. Elsewhere (and for NaN) roundq itself.
Wide nearest_integer(const Wide& x) {
  const Wide magnitude = abs(x);
  if (!(magnitude < Wide(0x1p52))) return round(x);
  const double floor = std::floor(static_cast<double>(magnitude));
  const Wide nearest = Wide(magnitude - Wide(floor) >= Wide(0.5) ? floor + 1 : floor);
  return x < 0 ? Wide(-nearest) : nearest;
}

}  // namespace

ScreenedCosSin screened_cos_sin(const Wide& angle) {
  static const Wide two_pi = 2 * boost::math::constants::pi<Wide>();
  static const Wide inverse_two_pi = 1 / two_pi;
  const Wide turns = nearest_integer(angle * inverse_two_pi);
  const Wide reduced = angle - turns * two_pi;
  const double hi = static_cast<double>(reduced);
  const double lo = static_cast<double>(reduced - Wide(hi));
  const double s = std::sin(hi), c = std::cos(hi);
  const double magnitude = std::abs(static_cast<double>(angle));
  return {c - s * lo, s + c * lo, 0x1p-52 + magnitude * 0x1p-100, magnitude};
}

}  // namespace peconform::harness
