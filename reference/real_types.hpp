#pragma once
// The two reference tiers. The exact tier is MPFR at 60 decimal digits (about 200 bits): a
// position near 2^31 costs it 10 of those digits in the angle and still leaves 50, above the
// 40 that the fixtures are checked to. The fast tier is IEEE binary128 (113-bit significand,
// libquadmath), several times faster; tier_bounds.hpp states how far it may stray.
#include <boost/multiprecision/float128.hpp>
#include <boost/multiprecision/mpfr.hpp>
#include <string>

#include "spec/decimal.hpp"

namespace peconform {

using ExactReal = boost::multiprecision::number<boost::multiprecision::mpfr_float_backend<60>,
                                                boost::multiprecision::et_off>;
using FastReal = boost::multiprecision::float128;

// Spec numbers are decimal text, parsed by the tier itself so that "0.1" is one tenth to
// the tier's own precision rather than the double nearest to it.
template <class Real> Real from_decimal(const Decimal& value) { return Real(value.text()); }

// Scientific text with `digits` (>= 2) significant digits; "inf"/"-inf"/"nan" when non-finite.
// Boost's precision counts the digits after the point, and reads 0 as "all of them".
template <class Real> std::string to_decimal_string(const Real& value, int digits) {
  return value.str(digits - 1, std::ios_base::scientific);
}

}  // namespace peconform
