// Every buffer of a call and each of its roles (guards, padding, unwritten outputs) has a
// sentinel of its own, so that a kernel that copies one into another buffer shows; they are
// fixed bits, and no NaN an arithmetic or a conversion produces is one of them.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <set>

#include "backends/kernel_call.hpp"

namespace peconform {
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

// The campaign fingerprints a call's inputs before and after the kernel to catch a kernel that
// writes what it only reads: a change to any input byte, int64 id or int32 id must show (issue
// 38: a mutant that left the int64 ids out survived).
TEST(InputFingerprint, EveryInputByteAndIdCounts) {
  KernelCall call;
  call.inputs.resize(2);
  for (Buffer& buffer : call.inputs) buffer.bytes.assign(16, std::byte{0});
  call.ids64_data = {0, 1, 2};
  call.ids32_data = {3, 4};
  const std::uint64_t untouched = input_fingerprint(call);
  EXPECT_EQ(input_fingerprint(call), untouched);
  const auto changed = [&](auto change) {
    KernelCall copy = call;
    change(copy);
    return input_fingerprint(copy) != untouched;
  };
  EXPECT_TRUE(changed([](KernelCall& c) { c.inputs[0].bytes[15] = std::byte{1}; }));
  EXPECT_TRUE(changed([](KernelCall& c) { c.inputs[1].bytes[0] = std::byte{1}; }));
  EXPECT_TRUE(changed([](KernelCall& c) { c.ids64_data[2] = 5; }));
  EXPECT_TRUE(changed([](KernelCall& c) { c.ids32_data[0] = 5; }));
}

// An ALiBi point (query, key, anchor) as the one-query, one-key call a kernel computes
// (kernel_call.hpp): the point itself outside last-key; under last-key, the causal bias of the
// anchor at the key, or the key-mode bias of the key's distance past the anchor.
TEST(AlibiPointCall, EachModeKeepsOrMovesThePointAsItsBiasRequires) {
  const auto expect_call = [](const char* spec, Point point, AlibiMode mode, std::int64_t query, std::int64_t key) {
    const AlibiPointCall call = alibi_point_call(Spec::parse(spec), point);
    EXPECT_EQ(call.mode, mode) << spec;
    EXPECT_EQ(call.query, query) << spec;
    EXPECT_EQ(call.key, key) << spec;
  };
  expect_call("alibi(heads=4)", Point{{7, 3, 0}}, AlibiMode::symmetric, 7, 3);
  expect_call("alibi(heads=4,mode=causal)", Point{{2, 9, 0}}, AlibiMode::causal, 2, 9);
  expect_call("alibi(heads=4,mode=last-key)", Point{{1, 5, 8}}, AlibiMode::causal, 8, 5);  // before the anchor
  expect_call("alibi(heads=4,mode=last-key)", Point{{1, 11, 8}}, AlibiMode::key, 0, 3);   // past it
}

// A learned call's input is its whole table, row by row, as the reference takes it.
TEST(InputValues, ALearnedCallsInputIsItsWholeTableInRowOrder) {
  KernelCall call;
  call.spec = Spec::parse("learned(d=2,rows=3)");
  Buffer table;
  table.type = ElementType::fp32;
  table.shape = {1, 1, 3, 2};
  table.stride = {6, 6, 2, 1};
  table.bytes.resize(static_cast<std::size_t>(table.origin + 6 + kGuardElements) * 4);
  for (std::int64_t index = 0; index < table.size(); ++index) table.set_bits(index, std::bit_cast<std::uint32_t>(-1.0f));
  for (int e = 0; e < 6; ++e) table.set_bits(table.origin + e, std::bit_cast<std::uint32_t>(static_cast<float>(10 + e)));
  call.inputs.push_back(table);
  const std::vector<Wide> values = input_values(call, 0, 0, 0, 0);
  ASSERT_EQ(values.size(), 6u);
  for (int e = 0; e < 6; ++e) EXPECT_EQ(values[static_cast<std::size_t>(e)], Wide(10 + e)) << e;
}

}  // namespace
}  // namespace peconform
