#pragma once
// peconform's own CPU kernels behind the Implementation interface, so that every property
// and the harness hold them to the exact reference. Each evaluation is one kernel call on a
// one-token tensor in the spec's dtype, under the spec's precision class, with the bounds of
// precision/error_model.hpp.
#include "backends/implementation.hpp"

namespace peconform {

const Implementation& cpu_backend();

}  // namespace peconform
