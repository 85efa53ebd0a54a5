// Every buffer of a call starts with sentinels of its own (guards, padding, unwritten outputs),
// so that a kernel that copies one into another buffer shows; they are fixed bits, and no NaN
// an arithmetic or a draw produces is one of them.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <set>

#include "harness/case_description.hpp"
#include "harness/kernel_call.hpp"

namespace peconform::harness {
namespace {

constexpr ElementType kTypes[] = {ElementType::fp64, ElementType::fp32, ElementType::fp16, ElementType::bf16, ElementType::int32};

double widened(ElementType type, std::uint64_t bits) {
  Buffer one;
  one.type = type;
  one.bytes.resize(element_size(type));
  one.set_bits(0, bits);
  return one.value(0);
}

TEST(Sentinels, EveryBufferAndRoleHasItsOwnAndEachIsRecognised) {
  for (const ElementType type : kTypes) {
    std::set<std::uint64_t> seen;
    for (int slot = 0; slot < 2 * kMaxOperands; ++slot) {
      const Sentinels s = sentinels_of(type, slot);
      for (const auto& [bits, role] : {std::pair{s.guard, SentinelRole::guard}, std::pair{s.padding, SentinelRole::padding},
                                        std::pair{s.unwritten, SentinelRole::unwritten}}) {
        EXPECT_TRUE(seen.insert(bits).second) << "slot " << slot << " repeats " << std::hex << bits;
        const std::optional<SentinelOrigin> origin = sentinel_origin(type, bits);
        ASSERT_TRUE(origin) << std::hex << bits;
        EXPECT_EQ(origin->slot, slot);
        EXPECT_EQ(origin->role, role);
        if (type == ElementType::int32) continue;
        EXPECT_TRUE(std::isnan(widened(type, bits))) << std::hex << bits;
        const std::uint64_t negated = bits | std::uint64_t{1} << (8 * element_size(type) - 1);
        ASSERT_TRUE(sentinel_origin(type, negated)) << "a negated sentinel is still one";
        EXPECT_EQ(sentinel_origin(type, negated)->slot, slot);
      }
    }
    EXPECT_EQ(seen.size(), 12u);
  }
}

TEST(Sentinels, NoNanThatArithmeticOrAConversionMakesIsOne) {
  // The default NaNs of x86 and Arm (payload 0, either sign), CUDA's canonical (all ones).
  const std::pair<ElementType, std::uint64_t> produced[] = {
      {ElementType::fp64, 0x7ff8000000000000ull}, {ElementType::fp64, 0xfff8000000000000ull},
      {ElementType::fp64, 0x7fffffffffffffffull}, {ElementType::fp32, 0x7fc00000},
      {ElementType::fp32, 0xffc00000},            {ElementType::fp32, 0x7fffffff},
      {ElementType::fp16, 0x7e00},                {ElementType::fp16, 0xfe00},
      {ElementType::fp16, 0x7fff},                {ElementType::bf16, 0x7fc0},
      {ElementType::bf16, 0xffc0},                {ElementType::bf16, 0x7fff}};
  for (const auto& [type, bits] : produced) EXPECT_FALSE(sentinel_origin(type, bits)) << std::hex << bits;
  EXPECT_FALSE(sentinel_origin(ElementType::fp32, std::bit_cast<std::uint32_t>(std::nanf(""))));
  EXPECT_FALSE(sentinel_origin(ElementType::fp32, std::bit_cast<std::uint32_t>(0.0f * INFINITY)));
  for (std::uint64_t index = 0; index < 4096; ++index) EXPECT_FALSE(sentinel_origin(ElementType::int32, index)) << index;
}

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

TEST(Sentinels, InPlaceTheOutputIsItsInputWithItsSentinels) {
  const KernelCall call = materialize(CaseDescription::parse(
      "rope(d=8,base=10000,layout=half,dtype=fp32) | batch=1 seq=3 heads=2 order=bshd pad=1 place=in seed=3"));
  EXPECT_EQ(call.outputs[0].bytes, call.inputs[0].bytes);
  EXPECT_EQ(call.outputs[0].sentinels.guard, call.inputs[0].sentinels.guard);
  EXPECT_EQ(call.outputs[0].sentinels.padding, call.inputs[0].sentinels.padding);
}

}  // namespace
}  // namespace peconform::harness
