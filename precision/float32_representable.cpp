#include "precision/float32_representable.hpp"

#include <cmath>
#include <limits>

#include <mpfr.h>

namespace peconform {

bool representable_in_float32(const Decimal& value) {
  // MPFR parses the decimal text at float32's 24 bits and says whether it had to round: a
  // double in between could round once on the way and hide a value float32 cannot hold.
  mpfr_t parsed;
  mpfr_init2(parsed, std::numeric_limits<float>::digits);
  const int rounding = mpfr_strtofr(parsed, value.text().c_str(), nullptr, 10, MPFR_RNDN);
  // Inside float32's normal range too (the spec's bases and factors are far from its ends).
  const double magnitude = std::abs(mpfr_get_d(parsed, MPFR_RNDN));
  mpfr_clear(parsed);
  return rounding == 0 && (magnitude == 0 || (magnitude >= std::numeric_limits<float>::min() &&
                                              magnitude <= std::numeric_limits<float>::max()));
}

}  // namespace peconform
