#pragma once
// One verifier per kind of output, each filling an ElementTally (verifier.hpp says what they
// check and in which order).
#include "harness/element_tally.hpp"

namespace peconform::harness {

ElementTally verify_rotary(const KernelCall& call);       // rope, xpos, mrope, rope2d
ElementTally verify_sinusoid(const KernelCall& call);     // sinusoidal, xl
ElementTally verify_alibi(const KernelCall& call);
ElementTally verify_indices(const KernelCall& call);      // t5, shaw
ElementTally verify_gather(const KernelCall& call);       // learned
ElementTally verify_scaled_gather(const KernelCall& call);  // learned with amp != 1
// Guards and padding of every output: still the sentinel, or the kernel wrote out of bounds.
ElementTally verify_guards(const KernelCall& call);

}  // namespace peconform::harness
