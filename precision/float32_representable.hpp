#pragma once
// Whether a spec's decimal survives the cast to float32 unchanged: the theta and slope recipes
// round a base or a factor to float32 first, and that rounding is charged only where it happens.
#include "spec/decimal.hpp"

namespace peconform {

bool representable_in_float32(const Decimal& value);

}  // namespace peconform
