// The verifier passes what the CPU kernels write and rejects each way an output can be wrong:
// a numeric error past the bound, NaN, an unwritten element, a write into padding or a guard
// (even of another buffer's sentinel), a wrong index, a pair whose norm breaks past the horizon;
// and it counts elements whose bound constrains nothing apart, never as passes.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <fmt/format.h>

#include "backends/backend_registry.hpp"
#include "broken_backends.hpp"
#include "harness/case_call.hpp"
#include "harness/case_description.hpp"
#include "harness/escalation.hpp"
#include "harness/verifier.hpp"
#include "ran_on_cpu.hpp"

namespace peconform::harness {
namespace {

const std::string kRope =
    "rope(d=64,base=10000,layout=half,dtype=fp32) | batch=2 seq=50 heads=4 order=bhsd pad=2 place=out ids=int64 "
    "positions=run offset=1000 inputs=activations seed=5";

TEST(Verifier, PassesTheCpuKernels) {
  for (const std::string& text :
       {kRope, std::string("sinusoidal(d=33,base=10000,layout=half,dtype=fp16) | seq=40 pad=1 offset=100 seed=3"),
        std::string("xl(d=16,base=10000,dtype=bf16,precision=fp32-angle) | seq=20 offset=-10 seed=3"),
        std::string("alibi(heads=12,mode=causal,dtype=fp32) | seq=9 keys=11 offset=5 key_offset=0 seed=1"),
        std::string("t5(buckets=32,max_distance=128) | seq=40 keys=200 offset=0 key_offset=0 seed=1"),
        std::string("shaw(k=4) | seq=10 keys=10 seed=1"),
        std::string("learned(d=6,rows=20,dtype=bf16) | batch=3 seq=7 positions=scattered ids=int32 seed=2")}) {
    const CaseVerdict verdict = verify_call(ran(text));
    EXPECT_FALSE(verdict.failed()) << text << ": " << (verdict.first_failure ? verdict.first_failure->kind : "");
    EXPECT_GT(verdict.stats.elements, 0u) << text;
  }
  const CaseVerdict rope = verify_call(ran(kRope));
  EXPECT_EQ(rope.stats.elements, 2u * 50 * 4 * 64);
  EXPECT_EQ(rope.stats.bounded_elements, rope.stats.elements);
  EXPECT_GT(rope.stats.worst_ratio, 0.0);
  EXPECT_LE(rope.stats.worst_ratio, 1.0);
}

// One head's slope is 2^-8, so every bias is exact in fp32 and written here by hand: queries
// 5..7 against keys 7..17. key (Bloom, Falcon): +2^-8 j at every query; last-key (MPT): -2^-8
// (17 - j); causal: -2^-8 (i - j), -inf past i. Each mode's values pass its own spec, and a
// kernel that writes another mode's values (a bias anchored at the query, the sign of key) fails.
TEST(Verifier, JudgesEachAlibiModeAgainstItsOwnAnchor) {
  constexpr std::int64_t kFirstQuery = 5, kQueries = 3, kFirstKey = 7, kKeys = 11, kLastKey = kFirstKey + kKeys - 1;
  auto hand_bias = [](const std::string& mode, std::int64_t i, std::int64_t j) {
    if (mode == "key") return std::ldexp(static_cast<double>(j), -8);
    if (mode == "last-key") return -std::ldexp(static_cast<double>(kLastKey - j), -8);
    return j > i ? -INFINITY : -std::ldexp(static_cast<double>(i - j), -8);
  };
  auto case_text = [&](const std::string& mode) {
    return fmt::format("alibi(heads=1,mode={},dtype=fp32) | seq={} keys={} offset={} key_offset={} seed=1", mode, kQueries, kKeys,
                       kFirstQuery, kFirstKey);
  };
  for (const std::string mode : {"key", "last-key", "causal"}) {
    KernelCall call = ran(case_text(mode));
    const Buffer& out = call.outputs[0];
    for (std::int64_t q = 0; q < kQueries; ++q)
      for (std::int64_t k = 0; k < kKeys; ++k)
        ASSERT_EQ(static_cast<double>(out.value(out.offset_of(0, 0, q, k))), hand_bias(mode, kFirstQuery + q, kFirstKey + k))
            << mode << " query " << kFirstQuery + q << " key " << kFirstKey + k;
    EXPECT_FALSE(verify_call(call).failed()) << mode;
    for (const std::string other : {"key", "last-key", "causal"}) {
      if (other == mode) continue;
      KernelCall wrong = ran(case_text(mode));
      Buffer& written = wrong.outputs[0];
      for (std::int64_t q = 0; q < kQueries; ++q)
        for (std::int64_t k = 0; k < kKeys; ++k)
          written.set_bits(written.offset_of(0, 0, q, k),
                           std::bit_cast<std::uint32_t>(static_cast<float>(hand_bias(other, kFirstQuery + q, kFirstKey + k))));
      const CaseVerdict verdict = verify_call(wrong);
      ASSERT_TRUE(verdict.failed()) << other << "'s values under mode=" << mode;
      if (mode == "last-key") {
        EXPECT_NE(verdict.first_failure->input.find("last key 17"), std::string::npos) << verdict.first_failure->input;
      }
    }
  }
}

// Falcon's ALiBi rounds its slopes and key positions to bf16 and multiplies in bf16: in a bf16
// model (math=storage) and in a float32 one, whose bias is the bf16 product cast to float32
// (math=bf16). The CPU kernel's biases under each recipe pass it, and fail the float32-arithmetic
// recipe's bound, which cannot hold three bf16 roundings (positions past 256 round in bf16).
TEST(Verifier, AlibiWithBf16ArithmeticPassesItsRecipeAndNotTheFloat32One) {
  for (const char* recipe : {"dtype=bf16,precision=fp32-angle,slopes=bloom,math=storage",
                             "dtype=fp32,precision=fp32-angle,slopes=bloom,math=bf16"}) {
    KernelCall call = ran(fmt::format("alibi(heads=32,mode=key,{}) | seq=2 keys=2000 offset=0 key_offset=100 seed=1", recipe));
    EXPECT_FALSE(verify_call(call).failed()) << recipe;
    call.spec.math = RoundsIn::compute;
    const CaseVerdict float32 = verify_call(call);
    ASSERT_TRUE(float32.failed()) << recipe;
    EXPECT_EQ(float32.first_failure->kind, "numeric") << recipe;
  }
}

// amp on a learned table (x-transformers' AbsolutePositionalEmbedding, emb(pos) * 512^-0.5): the
// CPU's float32 products pass; the table unscaled, amp held in bf16, and a product two ulps off
// fail, each naming the entry and the amplitude.
TEST(Verifier, AScaledGatherIsHeldToItsAmplitudesRoundingAndTheProduct) {
  const std::string text =
      "learned(d=64,rows=50,amp=0.04419417382415922) | batch=2 seq=9 positions=scattered ids=int32 inputs=activations seed=2";
  const CaseVerdict verdict = verify_call(ran(text));
  EXPECT_FALSE(verdict.failed());
  EXPECT_GT(verdict.stats.bounded_elements, 0u);
  EXPECT_LE(verdict.stats.worst_ratio, 1.0);
  const auto rewritten = [&](auto&& value_of) {
    KernelCall call = ran(text);
    const Buffer& table = call.inputs[0];
    Buffer& out = call.outputs[0];
    for (std::int64_t b = 0; b < call.batch; ++b)
      for (std::int64_t s = 0; s < call.seq; ++s)
        for (std::int64_t e = 0; e < call.spec.d; ++e) {
          const auto entry = static_cast<float>(table.value(table.offset_of(0, 0, call.id(0, b, s), e)));
          const std::int64_t at = out.offset_of(b, s, 0, e);
          out.set_bits(at, std::bit_cast<std::uint32_t>(value_of(entry, static_cast<float>(out.value(at)))));
        }
    return verify_call(call);
  };
  const float amplitude = static_cast<float>(0.04419417382415922);
  const CaseVerdict unscaled = rewritten([](float entry, float) { return entry; });
  ASSERT_TRUE(unscaled.failed());
  EXPECT_EQ(unscaled.first_failure->kind, "numeric");
  EXPECT_NE(unscaled.first_failure->input.find("times amp 0.04419417382415922"), std::string::npos) << unscaled.first_failure->input;
  const float bf16_amplitude = std::bit_cast<float>(std::bit_cast<std::uint32_t>(amplitude) & 0xffff0000u);
  EXPECT_TRUE(rewritten([&](float entry, float) { return entry * bf16_amplitude; }).failed());
  EXPECT_TRUE(rewritten([](float, float written) { return std::nextafter(std::nextafter(written, INFINITY), INFINITY); }).failed());
}

// Under a power-of-two amp the product is exact and the bound is half an ulp of it: one ulp off
// is between one and two times the bound, and fails (a mutant that failed only past twice the
// bound survived session 39's draw).
TEST(Verifier, AScaledGatherOneUlpOffAnExactProductFails) {
  KernelCall call = ran("learned(d=64,rows=50,amp=0.5) | batch=1 seq=4 positions=scattered ids=int32 inputs=activations seed=3");
  ASSERT_FALSE(verify_call(call).failed());
  Buffer& out = call.outputs[0];
  for (std::int64_t e = 0; e < call.spec.d; ++e) {
    const std::int64_t at = out.offset_of(0, 0, 0, e);
    const auto value = static_cast<float>(out.value(at));
    int exponent = 0;
    // A normal value that is not a power of two: its ulp is under twice the bound.
    if (!std::isnormal(value) || std::abs(std::frexp(value, &exponent)) == 0.5f) continue;
    // One ulp up and one ulp down both fail.
    for (const float toward : {INFINITY, -INFINITY}) {
      out.set_bits(at, std::bit_cast<std::uint32_t>(std::nextafter(value, toward)));
      const CaseVerdict verdict = verify_call(call);
      ASSERT_TRUE(verdict.failed()) << toward;
      EXPECT_EQ(verdict.failing_elements, 1u);
      EXPECT_GT(verdict.first_failure->ratio, 1.0);
      EXPECT_LT(verdict.first_failure->ratio, 2.0);
    }
    return;
  }
  FAIL() << "no element of the call is a normal value other than a power of two";
}

// A scaled gather whose products underflow fp16 (amp 1e-9 on entries near 1): where the bound
// reaches the entry itself it pins the entry near 0 and no more, so those elements are counted
// unconstrained, never as bounded passes.
TEST(Verifier, AScaledGatherThatUnderflowsIsCountedUnconstrained) {
  const CaseVerdict verdict =
      verify_call(ran("learned(d=16,rows=8,amp=0.000000001,dtype=fp16) | batch=1 seq=4 positions=scattered ids=int32 seed=3"));
  EXPECT_FALSE(verdict.failed()) << (verdict.first_failure ? verdict.first_failure->kind : "");
  EXPECT_GT(verdict.stats.unconstrained_elements, 0u);
}

// amp on a sinusoid table (mlx's SinusoidalPositionalEncoding scale): the CPU's scaled table passes;
// the table of another amplitude, 1 or amp rounded to bf16, fails.
TEST(Verifier, AScaledSinusoidTableIsHeldToItsAmplitude) {
  const std::string held = "sinusoidal(d=64,base=10000,layout=half,amp=0.3) | seq=40 offset=100 seed=3";
  EXPECT_FALSE(verify_call(ran(held)).failed());
  for (const char* other : {"1", "0.30078125"}) {
    KernelCall call = ran(fmt::format("sinusoidal(d=64,base=10000,layout=half,amp={}) | seq=40 offset=100 seed=3", other));
    call.spec = Spec::parse("sinusoidal(d=64,base=10000,layout=half,amp=0.3)");
    const CaseVerdict verdict = verify_call(call);
    ASSERT_TRUE(verdict.failed()) << "amp=" << other << " written, amp=0.3 claimed";
    EXPECT_EQ(verdict.first_failure->kind, "numeric");
  }
}

TEST(Verifier, RejectsAnErrorPastTheBound) {
  KernelCall call = ran(kRope);
  Buffer& out = call.outputs[0];
  const std::int64_t at = out.offset_of(1, 7, 2, 5);
  const float wrong = static_cast<float>(out.value(at)) * (1 + 0x1p-10f);  // far past fp32's bound
  out.set_bits(at, std::bit_cast<std::uint32_t>(wrong));
  const CaseVerdict verdict = verify_call(call);
  ASSERT_TRUE(verdict.failed());
  EXPECT_EQ(verdict.failing_elements, 1u);
  EXPECT_EQ(verdict.first_failure->kind, "numeric");
  EXPECT_EQ(verdict.first_failure->at, (std::array<std::int64_t, 4>{1, 7, 2, 5}));
  EXPECT_EQ(verdict.first_failure->position, "1007");
  EXPECT_GT(verdict.first_failure->ratio, 1.0);
}

TEST(Verifier, ClassifiesNanUnwrittenAndOutOfBounds) {
  KernelCall nan_call = ran(kRope);
  nan_call.outputs[0].set_bits(nan_call.outputs[0].offset_of(0, 0, 0, 0), 0x7fc00000u);
  EXPECT_EQ(verify_call(nan_call).first_failure->kind, "nan");

  KernelCall unwritten = ran(kRope);
  unwritten.outputs[0].set_bits(unwritten.outputs[0].offset_of(1, 49, 3, 63), unwritten.outputs[0].sentinels.unwritten);
  EXPECT_EQ(verify_call(unwritten).first_failure->kind, "unwritten");

  KernelCall padding = ran(kRope);  // pad=2: two spare elements after every row
  const std::int64_t spare = padding.outputs[0].offset_of(0, 0, 0, 63) + 1;
  padding.outputs[0].set_bits(spare, 0);
  EXPECT_EQ(verify_call(padding).first_failure->kind, "out-of-bounds");
  EXPECT_EQ(verify_call(padding).first_failure->position,
            fmt::format("storage index {} (padding)", spare - padding.outputs[0].origin));

  // The first element of the guard before the tensor, and the last of the one after it.
  for (const bool before : {true, false}) {
    KernelCall guard = ran(kRope);
    guard.outputs[0].set_bits(before ? 0 : guard.outputs[0].size() - 1, 0);
    const CaseVerdict verdict = verify_call(guard);
    ASSERT_TRUE(verdict.first_failure.has_value()) << before;
    EXPECT_EQ(verdict.first_failure->kind, "out-of-bounds");
    const std::string where = before ? "64 elements before the tensor" : "(past the end)";
    EXPECT_NE(verdict.first_failure->position.find(where), std::string::npos) << verdict.first_failure->position;
  }
}

TEST(Verifier, RejectsAWrongIndex) {
  KernelCall call = ran("t5(buckets=32,max_distance=128) | seq=40 keys=200 offset=0 key_offset=0 seed=1");
  Buffer& out = call.outputs[0];
  const std::int64_t at = out.offset_of(0, 0, 3, 19);  // distance 16, a logarithmic boundary
  out.set_bits(at, static_cast<std::uint32_t>(static_cast<std::int32_t>(out.bits(at)) - 1));
  const CaseVerdict verdict = verify_call(call);
  ASSERT_TRUE(verdict.failed());
  EXPECT_EQ(verdict.first_failure->kind, "mismatch");
  EXPECT_GT(verdict.stats.boundary_elements, 0u);
  // An index is printed as the integer it is, and numbered query by query.
  EXPECT_EQ(verdict.first_failure->actual, fmt::format("{}", static_cast<std::int32_t>(out.bits(at))));
  EXPECT_EQ(verdict.first_failure->element, 3 * 200 + 19);
  // One case, and it failed; a case that passes counts no failed case.
  EXPECT_EQ(verdict.stats.cases, 1u);
  EXPECT_EQ(verdict.stats.failed_cases, 1u);
  const CaseVerdict passed = verify_call(ran("t5(buckets=32,max_distance=128) | seq=40 keys=200 offset=0 key_offset=0 seed=1"));
  EXPECT_EQ(passed.stats.cases, 1u);
  EXPECT_EQ(passed.stats.failed_cases, 0u);
}

// An escalation to the exact tier is timed, and the time adds up over decisions.
TEST(Verifier, AnEscalationCountsTheTimeItTakes) {
  const KernelCall call = ran(kRope);
  Escalation escalation(call);
  const std::vector<Wide> input = input_values(call, 0, 1, 7, 2);
  const Point point = token_point(call, 1, 7);
  const double actual = call.outputs[0].value(call.outputs[0].offset_of(1, 7, 2, 5));
  escalation.decide(point, input, 5, actual);
  const double once = escalation.seconds();
  EXPECT_GT(once, 0);
  escalation.decide(point, input, 6, actual);
  EXPECT_GT(escalation.seconds(), once);
}

TEST(Verifier, NanInAPairMustComeOutNanInBoth) {
  // Bit-pattern inputs hold NaNs; the CPU kernels propagate them, and a kernel that turned one
  // into a number would fail.
  const std::string text =
      "rope(d=32,base=10000,layout=interleaved,dtype=fp32) | batch=1 seq=64 heads=2 inputs=bit-patterns seed=11";
  KernelCall call = ran(text);
  EXPECT_FALSE(verify_call(call).failed());
  const Buffer& in = call.inputs[0];
  for (std::int64_t s = 0; s < 64; ++s)
    for (std::int64_t e = 0; e < 32; ++e)
      if (std::isnan(in.value(in.offset_of(0, s, 0, e)))) {
        call.outputs[0].set_bits(call.outputs[0].offset_of(0, s, 0, e), std::bit_cast<std::uint32_t>(1.0f));
        const CaseVerdict verdict = verify_call(call);
        ASSERT_TRUE(verdict.failed());
        EXPECT_EQ(verdict.first_failure->kind, "nan");
        return;
      }
  FAIL() << "the bit-pattern draw held no NaN; pick another seed";
}

TEST(Verifier, JudgesPairsOfSubnormalsInBinary128) {
  // Found by an audit: inputs of ±2^-1074 give r = sqrt(2) 2^-1074, which double rounds to
  // 2^-1074; the bound shrank by sqrt(2) and these correct CPU results were rejected.
  for (const char* text :
       {"xpos(d=46,base=100,layout=interleaved,sign=-1,scaling=yarn(factor=5.28,orig=512),scale_base=64,role=key,"
        "dtype=fp64,precision=lowp-cache) | batch=4 seq=40 heads=5 kv_heads=1 order=bshd pad=0 place=out ids=int64 "
        "positions=run offset=543016 inputs=bit-patterns seed=0xb8a0ea365c1ded6e select=b1,s6,h2,q",
        "xpos(d=24,base=10,layout=half,scaling=yarn(factor=33.5,orig=8192,beta_fast=17,beta_slow=3.01,truncate=false),"
        "scale_base=4096,role=key,dtype=fp64,precision=lowp-cache) | batch=4 seq=36 heads=9 kv_heads=2 order=bshd pad=0 "
        "place=out ids=int32 positions=cache offset=1044445 inputs=bit-patterns seed=0xb5c45ff1675baa3f select=b3,s30,h0,q"}) {
    const CaseVerdict verdict = verify_call(ran(text));
    EXPECT_FALSE(verdict.failed()) << text << ": " << (verdict.first_failure ? verdict.first_failure->actual : "");
  }
}

// A tiny pair (inputs near 2^-600, whose squares underflow in double) is checked in binary128
// or by the tiny-pair screen, which must be given the pair's own cos, sin and amplitude. Token
// 1 (position 14) turns by sin 1 where sin(14) = 0.9906 belongs, an error of 0.0094 of the
// input, past any bound. Token 0 (position 13, the same position bin), correct but for eight
// steps up on one output, sets the worst ratio and ULP count the screen must stay under (issue
// 38: a mutant that handed the screen the amplitude as sin and sin as the amplitude survived;
// the screen then judged this pair against the same wrong turn and called it neutral).
TEST(Verifier, ATinyPairTurnedByTheWrongSineFails) {
  KernelCall call = ran("rope(d=2,base=10000,layout=half,dtype=fp64) | seq=2 place=out ids=int64 positions=run offset=13 "
                        "inputs=activations seed=1");
  Buffer& in = call.inputs[0];
  Buffer& out = call.outputs[0];
  ASSERT_EQ(call.id(0, 0, 1), 14);  // angle 14 at token 1 (d = 2: one frequency, 1)
  // Token 0's first output eight steps up: still within its bound, it sets the worst ratio and
  // ULP count the screen compares with.
  const std::int64_t first = out.offset_of(0, 0, 0, 0);
  double raised = out.value(first);
  for (int step = 0; step < 8; ++step) raised = std::nextafter(raised, 1.0);
  out.set_bits(first, std::bit_cast<std::uint64_t>(raised));
  const double xa = 0x1p-600, xb = 0x1p-601;
  in.set_bits(in.offset_of(0, 1, 0, 0), std::bit_cast<std::uint64_t>(xa));
  in.set_bits(in.offset_of(0, 1, 0, 1), std::bit_cast<std::uint64_t>(xb));
  out.set_bits(out.offset_of(0, 1, 0, 0), std::bit_cast<std::uint64_t>(xa * std::cos(14.0) - xb));
  out.set_bits(out.offset_of(0, 1, 0, 1), std::bit_cast<std::uint64_t>(xa + xb * std::cos(14.0)));
  const CaseVerdict verdict = verify_call(call);
  ASSERT_TRUE(verdict.failed());
  EXPECT_EQ(verdict.first_failure->kind, "numeric");
  EXPECT_EQ(verdict.first_failure->at[1], 1);  // token 1, the tiny pair
}

// fp16 ALiBi past fp16's range: one head's slope is 2^-8, so queries 2·10^7 keys back have
// biases near -78125, past 65504 (1 - 2^-6) where the kernels claim a bound. Whatever the
// kernel writes there (it overflows) is unconstrained, not failed (issue 38: a mutant that
// failed every such bias survived, as no case reached past the range).
TEST(Verifier, AlibiPastTheDtypesRangeIsUnconstrained) {
  const CaseVerdict verdict = verify_call(ran("alibi(heads=1,mode=causal,dtype=fp16) | seq=2 keys=2 offset=20000000 key_offset=0 seed=1"));
  EXPECT_FALSE(verdict.failed()) << (verdict.first_failure ? verdict.first_failure->kind : "");
  EXPECT_EQ(verdict.stats.unconstrained_elements, 4u);
}

// An fp16 pair of norm 65024, within 2^-6 of fp16's largest value, where the kernels claim no
// bound (the rotation may overflow): counted unconstrained, both of its elements, although the
// CPU kernel's output lies well within what a bound would allow and the row screen, left to
// itself, would pass it.
TEST(Verifier, APairNearTheDtypesLargestValueIsUnconstrainedNotPassed) {
  KernelCall call = materialize(CaseDescription::parse(
      "rope(d=8,base=10000,layout=interleaved,dtype=fp16) | seq=3 heads=1 place=out positions=run offset=7 inputs=activations seed=2"));
  Buffer& in = call.inputs[0];
  in.set_bits(in.offset_of(0, 1, 0, 2), element_bits(ElementType::fp16, 65024));
  in.set_bits(in.offset_of(0, 1, 0, 3), element_bits(ElementType::fp16, 0));
  make_backend("cpu")->run(call);
  const CaseVerdict verdict = verify_call(call);
  EXPECT_FALSE(verdict.failed()) << (verdict.first_failure ? verdict.first_failure->kind : "");
  EXPECT_EQ(verdict.stats.unconstrained_elements, 2u);
  EXPECT_EQ(verdict.stats.bounded_elements, verdict.stats.elements - 2);
}

TEST(Verifier, StillRejectsUnwrittenAndNanWhereTheBoundReachesTheScale) {
  // Found by an audit: unconstrained elements skipped every check.
  const std::string text = "rope(d=16,base=10000,layout=half,dtype=fp32,precision=fp32-angle) | seq=4 offset=2147483600 seed=1";
  KernelCall unwritten = ran(text);
  unwritten.outputs[0].set_bits(unwritten.outputs[0].offset_of(0, 3, 0, 0), unwritten.outputs[0].sentinels.unwritten);
  EXPECT_EQ(verify_call(unwritten).first_failure->kind, "unwritten");
  KernelCall nan = ran(text);
  nan.outputs[0].set_bits(nan.outputs[0].offset_of(0, 3, 0, 0), 0x7fc00000u);
  EXPECT_EQ(verify_call(nan).first_failure->kind, "nan");
}

TEST(Verifier, RejectsErrorsOnPairsWhoseSquaresOverflow) {
  // fp64 inputs past 1e154 overflow x_a^2 + x_b^2; r must still be their norm (hypot), or the
  // pair falls outside the claim and anything passes.
  KernelCall call = ran("rope(d=16,base=10000,layout=interleaved,dtype=fp64) | batch=1 seq=6 heads=2 inputs=bit-patterns seed=11397");
  const Buffer& in = call.inputs[0];
  Buffer& out = call.outputs[0];
  for (std::int64_t s = 0; s < 6; ++s)
    for (std::int64_t h = 0; h < 2; ++h)
      for (std::int64_t e = 0; e < 16; e += 2) {
        const double xa = in.value(in.offset_of(0, s, h, e)), xb = in.value(in.offset_of(0, s, h, e + 1));
        const double r = std::hypot(xa, xb);
        if (!(r > 1e160 && r < 1e300)) continue;
        const std::int64_t at = out.offset_of(0, s, h, e);
        out.set_bits(at, std::bit_cast<std::uint64_t>(out.value(at) + r * 1e-9));  // far past 2^-48 r
        const CaseVerdict verdict = verify_call(call);
        ASSERT_TRUE(verdict.failed());
        EXPECT_EQ(verdict.first_failure->kind, "numeric");
        return;
      }
  FAIL() << "the bit-pattern draw held no pair near 1e160..1e300; pick another seed";
}

TEST(Verifier, CountsUnconstrainedElementsApart) {
  // fp32-angle at positions near 2^31: the angle allowance |phi| 2^-22 exceeds the pair's scale.
  const CaseVerdict verdict = verify_call(
      ran("rope(d=16,base=10000,layout=half,dtype=fp32,precision=fp32-angle) | seq=4 offset=2147483600 seed=1"));
  EXPECT_FALSE(verdict.failed());
  EXPECT_GT(verdict.stats.unconstrained_elements, 0u);
  EXPECT_EQ(verdict.stats.elements, verdict.stats.bounded_elements + verdict.stats.unconstrained_elements);
}

KernelCall ran_on(const std::string& text, const std::string& bug) {
  KernelCall call = materialize(CaseDescription::parse(text));
  make_broken_backend(bug)->run(call);
  return call;
}

TEST(Verifier, CatchesACopyOfTheInputsSentinelPastEachRow) {
  // ggml's pass-through loop for odd d with partial rotary writes dst[i0 + 1] = src[i0 + 1] at
  // i0 = ne0 - 1: the input's padding into the output's, the input's guard into the output's.
  // With one sentinel for every buffer, memory did not change and the write was invisible.
  for (const char* text :
       {"rope(d=65,base=10000,layout=half,rot=64,dtype=fp32) | batch=1 seq=6 heads=2 order=bshd pad=1 place=out seed=4",
        "rope(d=65,base=10000,layout=half,rot=64,dtype=bf16) | batch=1 seq=6 heads=2 kv_heads=1 order=bshd pad=0 place=out seed=4",
        "rope(d=9,base=10000,layout=interleaved,rot=8,dtype=fp16) | batch=2 seq=3 heads=1 order=bhsd pad=3 place=out seed=4"}) {
    EXPECT_FALSE(verify_call(ran(text)).failed()) << text;
    const CaseVerdict verdict = verify_call(ran_on(text, "copies-past-each-row"));
    ASSERT_TRUE(verdict.failed()) << text;
    EXPECT_EQ(verdict.first_failure->kind, "out-of-bounds") << text;
    EXPECT_NE(verdict.first_failure->actual.find("sentinel of input"), std::string::npos) << verdict.first_failure->actual;
  }
}

TEST(Verifier, ANanPairMustNotComeOutAsAnotherBuffersSentinel) {
  // A NaN matches any NaN but a sentinel: a kernel that read past its input and negated what
  // it found (rotate_half's -x) writes a NaN that came from a guard, not from the input.
  const std::string text =
      "rope(d=32,base=10000,layout=interleaved,dtype=fp32) | batch=1 seq=64 heads=2 inputs=bit-patterns seed=11";
  KernelCall call = ran(text);
  const Buffer& in = call.inputs[0];
  for (std::int64_t s = 0; s < 64; ++s)
    for (std::int64_t e = 0; e < 32; ++e)
      if (std::isnan(in.value(in.offset_of(0, s, 0, e)))) {
        call.outputs[0].set_bits(call.outputs[0].offset_of(0, s, 0, e), in.sentinels.guard | 0x80000000u);
        const CaseVerdict verdict = verify_call(call);
        ASSERT_TRUE(verdict.failed());
        EXPECT_EQ(verdict.first_failure->kind, "out-of-bounds");
        EXPECT_NE(verdict.first_failure->actual.find("the guard sentinel of input q"), std::string::npos)
            << verdict.first_failure->actual;
        return;
      }
  FAIL() << "the bit-pattern draw held no NaN; pick another seed";
}

// An output copied from the kernel's own array (a Python callable's numpy.empty) holds, where
// the kernel wrote nothing, whatever the memory held, and that can be a freed peconform buffer
// with its sentinels (issue 48): such bits are not read as a sentinel peconform put there, so
// not as an out-of-bounds read or an unwritten element of peconform's, and the failure says
// what they are. The same bits in peconform's own output stay a sentinel.
TEST(Verifier, SentinelBitsInTheKernelsOwnArrayAreLeftoverMemoryNotASentinel) {
  for (const bool kernel_array : {false, true}) {
    for (const auto role : {SentinelRole::guard, SentinelRole::unwritten}) {
      KernelCall call = ran(kRope);
      Buffer& out = call.outputs[0];
      out.kernel_array = kernel_array;
      const std::uint64_t bits = role == SentinelRole::guard ? call.inputs[0].sentinels.guard : out.sentinels.unwritten;
      out.set_bits(out.offset_of(1, 49, 3, 0), bits);
      const CaseVerdict verdict = verify_call(call);
      ASSERT_TRUE(verdict.failed());
      const ElementFailure& failure = *verdict.first_failure;
      if (!kernel_array) {
        EXPECT_EQ(failure.kind, role == SentinelRole::guard ? "out-of-bounds" : "unwritten");
        continue;
      }
      EXPECT_EQ(failure.kind, "nan") << failure.actual;
      EXPECT_EQ(failure.at, (std::array<std::int64_t, 4>{1, 49, 3, 0}));
      const std::string held = role == SentinelRole::guard ? "the guard sentinel of input q" : "the unwritten sentinel of output q";
      EXPECT_EQ(failure.actual, fmt::format("bits {:#x} in the kernel's own array, which peconform never filled: most likely an "
                                            "element the kernel did not write, in memory that had held {}", bits, held));
    }
  }
  // Its guards and padding are still peconform's: a write there is out of bounds as ever.
  KernelCall padding = ran(kRope);
  padding.outputs[0].kernel_array = true;
  padding.outputs[0].set_bits(padding.outputs[0].offset_of(0, 0, 0, 63) + 1, 0);
  EXPECT_EQ(verify_call(padding).first_failure->kind, "out-of-bounds");
}

const std::string kFarOut = "rope(d=16,base=10000,layout=half,dtype=fp32,precision=fp32-angle) | seq=4 offset=2147483600 seed=1";

TEST(Verifier, HoldsTheNormOfPairsPastTheHorizon) {
  // Past the horizon the bound reaches A r and the angle is free, but cos^2 + sin^2 = 1 is not:
  // zeros (or anything off the circle) fail as `norm`, where they used to pass unconstrained.
  const CaseVerdict correct = verify_call(ran(kFarOut));
  EXPECT_FALSE(correct.failed());
  EXPECT_GT(correct.stats.norm_checked_pairs, 0u);
  EXPECT_LE(correct.stats.norm_checked_pairs * 2, correct.stats.unconstrained_elements);

  KernelCall zeroed = ran(kFarOut);
  Buffer& out = zeroed.outputs[0];
  for (const std::int64_t e : {0, 8}) out.set_bits(out.offset_of(0, 3, 0, e), 0);  // pair 0 (theta = 1) at 2^31 - 45
  const CaseVerdict verdict = verify_call(zeroed);
  ASSERT_TRUE(verdict.failed());
  EXPECT_EQ(verdict.failing_elements, 2u);
  EXPECT_EQ(verdict.first_failure->kind, "norm");
  EXPECT_EQ(verdict.first_failure->at, (std::array<std::int64_t, 4>{0, 3, 0, 0}));
  EXPECT_NE(verdict.first_failure->input.find("y[8]="), std::string::npos) << verdict.first_failure->input;
  EXPECT_GT(verdict.first_failure->ratio, 1e5);

  // The pair rotated by a wrong angle keeps its norm: past the horizon it still passes.
  KernelCall turned = ran(kFarOut);
  Buffer& y = turned.outputs[0];
  const std::int64_t a = y.offset_of(0, 3, 0, 0), b = y.offset_of(0, 3, 0, 8);
  const std::uint64_t ya = y.bits(a);
  y.set_bits(a, y.bits(b) ^ 0x80000000u);  // a quarter turn: (y_a, y_b) -> (-y_b, y_a)
  y.set_bits(b, ya);
  EXPECT_FALSE(verify_call(turned).failed());
}

TEST(Verifier, TheNormCheckPassesTheCpuKernelsUnderEveryRecipeToTheLastPosition) {
  // The check must be sound: our kernels under every fp32-angle recipe, every dtype, positions
  // to 2^31 - 1 (scattered ids reach the limit), both input kinds.
  std::uint64_t checked = 0;
  for (const char* theta : {"exact", "hf", "meta", "ggml"})
    for (const char* dtype : {"fp64", "fp32", "fp16", "bf16"})
      for (const char* inputs : {"activations", "bit-patterns"}) {
        const std::string text =
            fmt::format("rope(d=128,base=500000,layout=half,dtype={},precision=fp32-angle,theta={}) | batch=2 seq=48 heads=2 "
                        "positions=scattered inputs={} seed=9",
                        dtype, theta, inputs);
        const CaseVerdict verdict = verify_call(ran(text));
        EXPECT_FALSE(verdict.failed()) << text << ": " << (verdict.first_failure ? verdict.first_failure->kind + " " +
                                                                                      verdict.first_failure->actual + " vs " +
                                                                                      verdict.first_failure->reference
                                                                                : "");
        checked += verdict.stats.norm_checked_pairs;
      }
  EXPECT_GT(checked, 1000u);
}

TEST(Verifier, TheNormOfATinyPairIsNotItsSquaresUnderflowed) {
  // Found by `peconform run --profile ci --seed 2` (session 33): an xPos query at 788,084 with
  // base 65.1 scales its pairs by about 2^-860, so a pair of inputs near 2^77 comes out near
  // 2^-791, above the 2^-900 the double screen takes, and its squares (2^-1582) summed to 0:
  // a norm of 0 against A r, a correct kernel failed as `norm` at 5e12 times the bound.
  const std::string text =
      "xpos(d=256,base=65.1,layout=half,dtype=fp64,precision=fp32-angle,theta=ggml) | batch=2 seq=29 heads=128 kv_heads=0 "
      "order=bshd pad=0 place=out ids=int64 positions=scattered offset=0 inputs=bit-patterns seed=0x55eb1cb2cc59dca4 "
      "select=b0,s3,h0";
  const CaseVerdict correct = verify_call(ran(text));
  EXPECT_FALSE(correct.failed()) << (correct.first_failure ? correct.first_failure->kind + " " + correct.first_failure->input : "");
  EXPECT_GT(correct.stats.norm_checked_pairs, 0u);
  // And a tiny pair off its circle still fails: element 70's pair (70, 198) halved.
  KernelCall halved = ran(text);
  Buffer& out = halved.outputs[0];
  for (const std::int64_t e : {70, 198}) {
    const std::int64_t at = out.offset_of(0, 0, 0, e);
    out.set_bits(at, std::bit_cast<std::uint64_t>(out.value(at) / 2));
  }
  const CaseVerdict verdict = verify_call(halved);
  ASSERT_TRUE(verdict.failed());
  EXPECT_EQ(verdict.first_failure->kind, "norm");
}

// xPos queries far out: pairs whose amplitude is below 2^-900 (ln of the factor below -700
// at offset 1e6 for pairs 0 to 9 of d=64, about -660 at offset 270000 for d=2's one pair). The
// kernel writes zeros there; the verifier counts them without binary128 only where no tally's
// maximum can move, and takes every other output there through the binary128 check.
std::string xpos_queries_far_out(const char* dtype, const char* offset) {
  return fmt::format("xpos(d=64,base=10000,layout=half,scale_base=512,role=query,dtype={}) | batch=1 seq=6 heads=3 offset={} seed=2",
                     dtype, offset);
}

TEST(Verifier, TalliesZerosOfXposQueriesFarOutAsTheBinary128CheckDoes) {
  for (const char* dtype : {"fp32", "bf16", "fp16", "fp64"}) {
    const std::string text = xpos_queries_far_out(dtype, "1000000");
    const CaseVerdict verdict = verify_call(ran(text));
    EXPECT_FALSE(verdict.failed()) << text << ": " << (verdict.first_failure ? verdict.first_failure->kind : "");
    EXPECT_EQ(verdict.stats.elements, 6u * 3 * 64) << text;
    EXPECT_EQ(verdict.stats.bounded_elements, verdict.stats.elements) << text;
  }
  // One pair, all of it far out: no other element lifts the maxima past 2^-600, so every zero
  // is checked in binary128 and its (tiny, nonzero) ratio and ULPs are the maxima. ln of the
  // factor is about -660 at offset 270000 (formed at once) and -734 at 300000 (formed on need);
  // from about -850 on the ratio itself rounds to a double zero.
  for (const char* offset : {"270000", "300000"}) {
    const std::string text = fmt::format(
        "xpos(d=2,base=10000,layout=half,scale_base=512,role=query,dtype=fp32) | batch=1 seq=6 heads=3 offset={} seed=2", offset);
    KernelCall call = ran(text);
    const Buffer& out = call.outputs[0];
    for (std::int64_t s = 0; s < 6; ++s) ASSERT_EQ(out.value(out.offset_of(0, s, 0, 0)), 0.0) << text;
    const CaseVerdict verdict = verify_call(call);
    EXPECT_FALSE(verdict.failed()) << text;
    EXPECT_EQ(verdict.stats.ratio_histogram[0], 6u * 3 * 2) << text;
    const int bin = position_bin(std::stoll(offset) + 5);
    EXPECT_GT(verdict.stats.worst_ratio_by_position[static_cast<std::size_t>(bin)], 0.0) << text;
    EXPECT_LT(verdict.stats.worst_ratio_by_position[static_cast<std::size_t>(bin)], 0x1p-600) << text;
    EXPECT_GT(verdict.stats.max_ulp, 0.0) << text;
  }
}

TEST(Verifier, RejectsANonzeroWhereAnXposQueryFarOutRoundsToZero) {
  // 2^-146 where the exact value is below 2^-770: eight subnormal spacings, past the bound's two.
  for (const char* offset : {"270000", "300000", "1000000"}) {
    const std::string text = xpos_queries_far_out("fp32", offset);
    KernelCall call = ran(text);
    Buffer& out = call.outputs[0];
    out.set_bits(out.offset_of(0, 4, 1, 32), std::bit_cast<std::uint32_t>(0x1p-146f));  // pair 0's second element
    const CaseVerdict verdict = verify_call(call);
    ASSERT_TRUE(verdict.failed()) << text;
    EXPECT_EQ(verdict.failing_elements, 1u) << text;
    EXPECT_EQ(verdict.first_failure->kind, "numeric") << text;
    EXPECT_EQ(verdict.first_failure->at, (std::array<std::int64_t, 4>{0, 4, 1, 32})) << text;
    EXPECT_GT(verdict.first_failure->ratio, 2.0) << text;
  }
}

TEST(Verifier, XposKeysFarOutAreUnconstrainedButMustBeWritten) {
  // Keys far out: a factor past e^700 (e^710 for fp64) is outside every input's claim.
  for (const char* dtype : {"fp32", "fp64"}) {
    const std::string text = fmt::format(
        "xpos(d=64,base=10000,layout=half,scale_base=512,role=key,dtype={}) | batch=1 seq=6 heads=3 offset=1000000 seed=2", dtype);
    KernelCall call = ran(text);
    const CaseVerdict verdict = verify_call(call);
    EXPECT_FALSE(verdict.failed()) << text;
    EXPECT_GE(verdict.stats.unconstrained_elements, 6u * 3 * 2 * 9) << text;
    Buffer& out = call.outputs[0];
    out.set_bits(out.offset_of(0, 2, 2, 0), out.sentinels.unwritten);
    const CaseVerdict unwritten = verify_call(call);
    ASSERT_TRUE(unwritten.failed()) << text;
    EXPECT_EQ(unwritten.first_failure->kind, "unwritten") << text;
  }
  // Pair 19's factor is e^669 = 2^965: an fp64 pair of r below 2^58 is still inside the claim.
  KernelCall call = ran(
      "xpos(d=64,base=10000,layout=half,scale_base=512,role=key,dtype=fp64) | batch=1 seq=6 heads=3 offset=1000000 seed=2");
  Buffer& out = call.outputs[0];
  const std::int64_t at = out.offset_of(0, 1, 0, 19);
  out.set_bits(at, std::bit_cast<std::uint64_t>(out.value(at) * (1 + 0x1p-20)));
  const CaseVerdict verdict = verify_call(call);
  ASSERT_TRUE(verdict.failed());
  EXPECT_EQ(verdict.first_failure->kind, "numeric");
  EXPECT_EQ(verdict.first_failure->at, (std::array<std::int64_t, 4>{0, 1, 0, 19}));
}

TEST(Verifier, AComputedZeroIsANumberButACopyKeepsItsBits) {
  // The spare column of an odd-d half sinusoid is computed: -0 is 0. A pass-through dim is a
  // copy: -0 for +0 is a different element.
  const std::string sinusoid = "sinusoidal(d=33,base=10000,layout=half,dtype=fp16) | seq=40 pad=1 offset=100 seed=3";
  KernelCall table = ran(sinusoid);
  Buffer& out = table.outputs[0];
  for (std::int64_t row = 0; row < 40; ++row) {
    ASSERT_EQ(out.bits(out.offset_of(0, row, 0, 32)), 0u);
    out.set_bits(out.offset_of(0, row, 0, 32), 0x8000u);
  }
  const CaseVerdict negative_zeros = verify_call(table);
  EXPECT_FALSE(negative_zeros.failed()) << (negative_zeros.first_failure ? negative_zeros.first_failure->kind : "");
  // Anything but a zero there is wrong: the column is 0 (fairseq, tensor2tensor).
  out.set_bits(out.offset_of(0, 7, 0, 32), 0x3c00u);  // 1.0
  const CaseVerdict one = verify_call(table);
  ASSERT_TRUE(one.failed());
  EXPECT_EQ(one.failing_elements, 1u);
  EXPECT_EQ(one.first_failure->at, (std::array<std::int64_t, 4>{0, 7, 0, 32}));

  KernelCall rope = ran("rope(d=9,base=10000,layout=half,rot=8,dtype=fp32) | batch=1 seq=64 heads=4 inputs=bit-patterns seed=2");
  const Buffer& in = rope.inputs[0];
  for (std::int64_t s = 0; s < 64; ++s)
    for (std::int64_t h = 0; h < 4; ++h)
      if (in.bits(in.offset_of(0, s, h, 8)) == 0) {
        rope.outputs[0].set_bits(rope.outputs[0].offset_of(0, s, h, 8), 0x80000000u);
        const CaseVerdict verdict = verify_call(rope);
        ASSERT_TRUE(verdict.failed());
        EXPECT_EQ(verdict.first_failure->kind, "mismatch");
        return;
      }
  FAIL() << "the bit-pattern draw held no +0 in the pass-through dim; pick another seed";
}

}  // namespace
}  // namespace peconform::harness
