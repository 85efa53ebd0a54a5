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


// T5 buckets and Shaw indices are int32 and may be negative in a faulty kernel's output: the
// widened value must be the signed one, so that a failing element's text shows -1, not 4294967295.
TEST(ElementValues, Int32BitsAreReadAsASignedInteger) {
  EXPECT_EQ(widened(ElementType::int32, 0xffffffffu), -1.0);
  EXPECT_EQ(widened(ElementType::int32, 0x80000000u), -2147483648.0);
  EXPECT_EQ(widened(ElementType::int32, 0x7fffffffu), 2147483647.0);
}

// element_bits rounds to nearest, each value chosen just past the halfway point between two
// neighbours of its type, so that truncation, or a second rounding through float for fp16, lands
// on the lower one. The expected bits are the IEEE encodings of 1 and of 1 + one ulp: fp32's ulp
// at 1 is 2^-23 (0x3f800001), fp16's 2^-10 (0x3c01), bf16's 2^-7 (0x3f81).
TEST(ElementBits, ADoubleIsRoundedToNearestInEachType) {
  const double past_fp32_half = 1 + 0x1p-24 + 0x1p-40;
  EXPECT_EQ(element_bits(ElementType::fp64, past_fp32_half), std::bit_cast<std::uint64_t>(past_fp32_half));
  EXPECT_EQ(element_bits(ElementType::fp32, past_fp32_half), 0x3f800001u);
  // 2^-30 is lost in float (below its half ulp, 2^-24): through float this would be a tie, even 0x3c00.
  EXPECT_EQ(element_bits(ElementType::fp16, 1 + 0x1p-11 + 0x1p-30), 0x3c01u);
  // Exact in float, past bf16's halfway point 1 + 2^-8: truncating the float's low half gives 0x3f80.
  EXPECT_EQ(element_bits(ElementType::bf16, 1 + 0x1p-8 + 0x1p-9), 0x3f81u);
  // bf16 rounds through float (kernel_call.hpp), as the CPU kernels store it: 1 + 2^-8 + 2^-32 is
  // 1 + 2^-8 in float, a tie that goes to even, 1.0, where one rounding from double gives 0x3f81.
  EXPECT_EQ(element_bits(ElementType::bf16, 1 + 0x1p-8 + 0x1p-32), 0x3f80u);
  // Each rounded value widens back to the type's own value.
  EXPECT_EQ(widened(ElementType::fp16, element_bits(ElementType::fp16, 1 + 0x1p-11 + 0x1p-30)), 1 + 0x1p-10);
}

// The sentinel codes run from 1 to 2 * kMaxOperands * 3 (sentinels_of): the base below them
// (code 0) and the code one past the last are plain values of the type, never a sentinel. The
// base is read off sentinels_of: slot 0's guard is base + 1.
TEST(Sentinels, TheCodesJustOutsideTheirRangeAreNoSentinels) {
  for (const ElementType type : kTypes) {
    const std::uint64_t base = sentinels_of(type, 0).guard - 1;
    const std::uint64_t past_last = sentinels_of(type, 2 * kMaxOperands - 1).unwritten + 1;
    EXPECT_EQ(past_last, base + 2 * kMaxOperands * 3 + 1);
    EXPECT_FALSE(sentinel_origin(type, base)) << std::hex << base;
    EXPECT_FALSE(sentinel_origin(type, past_last)) << std::hex << past_last;
  }
}

// Only a float's sign is ignored: an int32 sentinel with its top bit set is a negative integer
// (0xde171e01, about -5.5e8), which a kernel may compute, not a sentinel.
TEST(Sentinels, AnInt32SentinelWithItsTopBitSetIsNone) {
  const std::uint64_t guard = sentinels_of(ElementType::int32, 0).guard;
  ASSERT_TRUE(sentinel_origin(ElementType::int32, guard));
  EXPECT_FALSE(sentinel_origin(ElementType::int32, guard | 0x80000000u)) << std::hex << (guard | 0x80000000u);
}

// An element left holding an output's unwritten sentinel is "unwritten"; one holding a guard's or
// a padding's (a read out of bounds copied it there) is "out-of-bounds"; any other value is no kind.
// Where the kernel's own array supplied the elements, peconform wrote none of those bits: no kind.
TEST(Sentinels, EachRoleHasItsFailureKindExceptInAKernelsOwnArray) {
  for (const ElementType type : kTypes) {
    const Sentinels s = sentinels_of(type, output_slot(0));
    EXPECT_EQ(sentinel_kind(type, s.unwritten), "unwritten");
    EXPECT_EQ(sentinel_kind(type, s.guard), "out-of-bounds");
    EXPECT_EQ(sentinel_kind(type, s.padding), "out-of-bounds");
    EXPECT_EQ(sentinel_kind(type, element_bits(type, 1.0)), std::string_view{});
    Buffer out;
    out.type = type;
    EXPECT_EQ(sentinel_kind(out, s.unwritten), "unwritten");
    out.kernel_array = true;
    EXPECT_EQ(sentinel_kind(out, s.unwritten), std::string_view{});
    EXPECT_EQ(sentinel_kind(out, s.guard), std::string_view{});
  }
}

}  // namespace
}  // namespace peconform
