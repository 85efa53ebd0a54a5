#pragma once
// Broken kernels, registered only in tests: our CPU kernels with one real bug each (DESIGN.md
// section 5), to show that the campaign catches, shrinks, saves and replays them.
#include <memory>
#include <string>

#include "harness/tensor_backend.hpp"

namespace peconform::harness {

// "fp32-angle-as-exact": computes the angle in float32 while the call claims exact-angle
// (TensorRT-LLM #18774). "swapped-layout": pairs (i, i+d/2) where the spec says (2i, 2i+1) and
// back (llama.cpp #7451). "regrouped-written-interleaved": DeepSeek-V3's interleaved-to-half
// written back to (2i, 2i+1), where it was read. "position-off-by-one": rotates every token at its position plus one.
// "last-element-unwritten": leaves the last element of the last operand as it was (ggml #1324).
// "crash-on-bf16" and "hang-on-bf16": a segmentation fault, or a wait forever, on bf16 calls.
// "writes-its-input": right, but zeroes the first element of its (read-only) input.
// "first-32-heads": a launch grid of 32 heads, which leaves every later head as it was.
// "racy-one-token": a race on the first element of the last operand, which a call of several
// tokens always loses and a one-token call loses on every second such call (a counter, so that
// the test is deterministic): it leaves that element unwritten.
std::unique_ptr<TensorBackend> make_broken_backend(const std::string& bug);

}  // namespace peconform::harness
