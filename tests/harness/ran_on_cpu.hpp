#pragma once
// A case's call, run by our CPU kernel: what the verifier tests hold to the verifier.
#include <string>

#include "backends/backend_registry.hpp"
#include "harness/case_call.hpp"
#include "harness/case_description.hpp"

namespace peconform::harness {

inline KernelCall ran(const std::string& text) {
  KernelCall call = materialize(CaseDescription::parse(text));
  make_backend("cpu")->run(call);
  return call;
}

}  // namespace peconform::harness
