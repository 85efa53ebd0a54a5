// Every buffer of a drawn call starts with its own sentinels (backends/kernel_call.hpp) wherever
// nothing was drawn, the same bits on every draw, and no drawn input is one; in place, the
// output starts as its input, sentinels and all.
#include <gtest/gtest.h>

#include <set>

#include "harness/case_call.hpp"
#include "harness/case_description.hpp"

namespace peconform::harness {
namespace {

// Where each storage index of `buffer` is a guard, padding or a logical element.
SentinelRole role_at(const Buffer& buffer, std::int64_t index) {
  if (buffer.in_guard(index)) return SentinelRole::guard;
  for (std::int64_t b = 0; b < buffer.shape[0]; ++b)
    for (std::int64_t s = 0; s < buffer.shape[1]; ++s)
      for (std::int64_t h = 0; h < buffer.shape[2]; ++h)
        for (std::int64_t e = 0; e < buffer.shape[3]; ++e)
          if (buffer.offset_of(b, s, h, e) == index) return SentinelRole::unwritten;
  return SentinelRole::padding;
}

TEST(Sentinels, EachBufferStartsWithItsOwnInEachPlaceAndTheSameOnEveryDraw) {
  const std::string text =
      "rope(d=9,base=10000,layout=half,rot=8,dtype=bf16) | batch=2 seq=3 heads=2 kv_heads=1 order=bhsd pad=2 place=out "
      "ids=int64 positions=run offset=5 inputs=bit-patterns seed=3";
  const KernelCall call = materialize(CaseDescription::parse(text));
  ASSERT_EQ(call.inputs.size(), 2u);
  ASSERT_EQ(call.outputs.size(), 2u);
  std::set<std::uint64_t> seen;
  for (std::size_t o = 0; o < 2; ++o) {
    for (const auto& [buffer, slot] : {std::pair{&call.inputs[o], input_slot(o)}, std::pair{&call.outputs[o], output_slot(o)}}) {
      const Sentinels expected = sentinels_of(ElementType::bf16, slot);
      EXPECT_EQ(buffer->sentinels.guard, expected.guard);
      EXPECT_EQ(buffer->sentinels.padding, expected.padding);
      EXPECT_EQ(buffer->sentinels.unwritten, expected.unwritten);
      for (std::int64_t i = 0; i < buffer->size(); ++i) {
        const SentinelRole role = role_at(*buffer, i);
        const bool input = slot < kMaxOperands;
        if (role == SentinelRole::unwritten && input) {
          EXPECT_FALSE(sentinel_origin(ElementType::bf16, buffer->bits(i))) << "a drawn input is never a sentinel";
          continue;
        }
        const std::uint64_t own = role == SentinelRole::guard     ? expected.guard
                                  : role == SentinelRole::padding ? expected.padding
                                                                  : expected.unwritten;
        ASSERT_EQ(buffer->bits(i), own) << "slot " << slot << " index " << i;
        seen.insert(own);
      }
    }
  }
  EXPECT_EQ(seen.size(), 10u) << "guards and padding of 4 buffers, unwritten elements of 2";

  const KernelCall again = materialize(CaseDescription::parse(text));
  for (std::size_t o = 0; o < 2; ++o) {
    EXPECT_EQ(call.inputs[o].bytes, again.inputs[o].bytes);
    EXPECT_EQ(call.outputs[o].bytes, again.outputs[o].bytes);
  }
}

// A dense call large enough for the drawing team (harness/parallel_work.hpp): its buffers' bytes
// are not zeroed on allocation (backends/buffer_storage.hpp), so every one must have been written,
// the output's by the team: guards hold the guard sentinel, the output's elements the unwritten
// one, the input's drawn values, none of them a sentinel.
TEST(Sentinels, ALargeDenseCallIsWrittenWholeBeforeTheKernel) {
  const KernelCall call = materialize(CaseDescription::parse(
      "rope(d=64,base=10000,layout=half,dtype=fp32) | batch=1 seq=2048 heads=2 order=bshd pad=0 place=out ids=int64 "
      "positions=run offset=0 inputs=activations seed=4"));
  const Buffer& in = call.inputs[0];
  const Buffer& out = call.outputs[0];
  const std::int64_t logical = 2048 * 2 * 64;
  ASSERT_EQ(out.size(), logical + 2 * kGuardElements);
  for (std::int64_t i = 0; i < out.size(); ++i) {
    const bool guard = out.in_guard(i);
    ASSERT_EQ(out.bits(i), guard ? out.sentinels.guard : out.sentinels.unwritten) << i;
    if (guard) ASSERT_EQ(in.bits(i), in.sentinels.guard) << i;
    else ASSERT_FALSE(sentinel_origin(ElementType::fp32, in.bits(i))) << i;
  }
}

TEST(Sentinels, InPlaceTheOutputIsItsInputWithItsSentinels) {
  const KernelCall call = materialize(CaseDescription::parse(
      "rope(d=8,base=10000,layout=half,dtype=fp32) | batch=1 seq=3 heads=2 order=bshd pad=1 place=in seed=3"));
  EXPECT_EQ(call.outputs[0].bytes, call.inputs[0].bytes);
  EXPECT_EQ(call.outputs[0].sentinels.guard, call.inputs[0].sentinels.guard);
  EXPECT_EQ(call.outputs[0].sentinels.padding, call.inputs[0].sentinels.padding);
}

}  // namespace
}  // namespace peconform::harness
