#include "harness/verifier.hpp"

#include "harness/family_verifiers.hpp"

namespace peconform::harness {

CaseVerdict verify_call(const KernelCall& call) {
  ElementTally tally;
  switch (call.spec.family) {
    case Family::rope:
    case Family::xpos:
    case Family::mrope:
    case Family::rope2d: tally = verify_rotary(call); break;
    case Family::sinusoidal:
    case Family::xl: tally = verify_sinusoid(call); break;
    case Family::alibi: tally = verify_alibi(call); break;
    case Family::t5:
    case Family::shaw: tally = verify_indices(call); break;
    case Family::learned: tally = call.spec.amp == Decimal(1) ? verify_gather(call) : verify_scaled_gather(call); break;
  }
  tally.merge(verify_guards(call));
  return tally.verdict();
}

}  // namespace peconform::harness
