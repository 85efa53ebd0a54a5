#pragma once
// Broken kernels, registered only in tests: our CPU kernels with one real bug each (DESIGN.md
// section 5), to show that the campaign catches, shrinks, saves and replays them.
#include <memory>
#include <string>

#include "backends/tensor_backend.hpp"

namespace peconform::harness {

// "fp32-angle-as-exact": computes the angle in float32 while the call claims exact-angle
// (TensorRT-LLM #18774). "swapped-layout": pairs (i, i+d/2) where the spec says (2i, 2i+1) and
// back (llama.cpp #7451). "regrouped-written-interleaved": DeepSeek-V3's interleaved-to-half
// written back to (2i, 2i+1), where it was read. "position-off-by-one": rotates every token at its position plus one.
// "last-element-unwritten": leaves the last element of the last operand as it was (ggml #1324).
// "crash-on-bf16" and "hang-on-bf16": a segmentation fault, or a wait forever, on bf16 calls.
// "throws-on-bf16" and "refuses-bf16": an exception (a CUDA error's text), or a refusal
// (SpecError), on bf16 calls.
// "writes-its-input": right, but zeroes the first element of its (read-only) input.
// "first-32-heads": a launch grid of 32 heads, which leaves every later head as it was.
// "racy-one-token": a race on the first element of the last operand, which a call of several
// tokens always loses and a one-token call loses on every second such call (a counter, so that
// the test is deterministic): it leaves that element unwritten.
// "copies-past-each-row": right, but first copies the element one past each row of its input
// to the same place in its output, as ggml's pass-through loop does for odd d with partial
// rotary (dst[i0 + 1] = src[i0 + 1] at i0 = ne0 - 1): into padding, a guard, or the next row,
// which the kernel then overwrites.
// "zeroes-past-the-horizon": right, but writes zeros for every RoPE pair whose bound no
// longer constrains it (fp32-angle far out), which the error bound alone lets pass.
// "writes-negative-zeros": right, but writes -0 for every +0 of a sinusoid or Transformer-XL
// table (computed values: a conforming kernel).
std::unique_ptr<TensorBackend> make_broken_backend(const std::string& bug);

}  // namespace peconform::harness
