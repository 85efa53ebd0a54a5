// An exported case's outputs are found again by the call's fingerprint (tensorfiles/call_arrays.hpp):
// two calls that differ in any one of the facts it hashes must not share it, so that a kernel's
// outputs are never checked against another call's.
#include <gtest/gtest.h>

#include <functional>

#include "tensorfiles/call_arrays.hpp"

namespace peconform::tensorfiles {
namespace {

KernelCall two_operand_call() {
  KernelCall call;
  call.spec = Spec::parse("rope(d=8,dtype=fp32)");
  call.sequence_length = 9;
  call.batch = 2;
  call.seq = 3;
  call.ids64_data = {0, 1, 2, 3, 4, 5};
  call.outputs.resize(2);
  for (Buffer& output : call.outputs) {
    output.shape = {2, 3, 4, 8};
    output.stride = {96, 32, 8, 1};
  }
  return call;
}

TEST(CallFingerprint, EachFactItHashesTellsTwoCallsApart) {
  const KernelCall base = two_operand_call();
  EXPECT_EQ(call_fingerprint(base), call_fingerprint(two_operand_call()));
  const std::vector<std::pair<const char*, std::function<void(KernelCall&)>>> changes{
      {"spec", [](KernelCall& c) { c.spec = Spec::parse("rope(d=8,dtype=fp32,sign=-1)"); }},
      {"sequence length", [](KernelCall& c) { c.sequence_length = 10; }},
      {"id offset", [](KernelCall& c) { c.id_offset = 1; }},
      {"in place", [](KernelCall& c) { c.in_place = true; }},
      {"an id", [](KernelCall& c) { c.ids64_data[5] = 7; }},
      {"the first output's extent", [](KernelCall& c) { c.outputs[0].shape[2] = 3; }},
      {"the second output's stride", [](KernelCall& c) { c.outputs[1].stride[1] = 40; }},
      {"the outputs' order of axes", [](KernelCall& c) { c.outputs[1].stride = {96, 8, 24, 1}; }},
  };
  for (const auto& [what, change] : changes) {
    KernelCall changed = two_operand_call();
    change(changed);
    EXPECT_NE(call_fingerprint(changed), call_fingerprint(base)) << what;
  }
}

}  // namespace
}  // namespace peconform::tensorfiles
