#include "reference/tier_conversion.hpp"

// mpfr.h declares these only under MPFR_WANT_FLOAT128 and with the C type _Float128, which
// g++ 12 does not know in C++; __float128 has the same representation and calling convention.
extern "C" {
int mpfr_set_float128(mpfr_ptr, __float128, mpfr_rnd_t);
__float128 mpfr_get_float128(mpfr_srcptr, mpfr_rnd_t);
}

namespace peconform {

ExactReal to_exact_tier(const FastReal& value) {
  ExactReal out;
  mpfr_set_float128(out.backend().data(), value.backend().value(), MPFR_RNDN);
  return out;
}

FastReal to_fast_tier(const ExactReal& value) { return FastReal(mpfr_get_float128(value.backend().data(), MPFR_RNDN)); }

}  // namespace peconform
