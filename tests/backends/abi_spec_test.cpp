// The spec a plugin reads as numbers (include/peconform/kernel_abi.h, pec_spec): where a rotation
// rounds, cache and math, as kernel_abi.h says an ABI-v1 library sees them.
#include <gtest/gtest.h>

#include <cstddef>

#include "backends/plugin/abi_spec.hpp"

namespace peconform::plugin {
namespace {

pec_spec flat_of(const char* text) { return AbiSpec(Spec::parse(text)).flat(); }

TEST(AbiSpec, CacheAndMathSayWhereTheRotationRounds) {
  const pec_spec model = flat_of("rope(d=128,dtype=bf16,precision=fp32-angle,theta=hf,cache=storage,math=storage)");
  EXPECT_EQ(model.precision, PEC_FP32_ANGLE);
  EXPECT_EQ(model.theta, PEC_THETA_HF);
  EXPECT_EQ(model.cache, PEC_IN_STORAGE);
  EXPECT_EQ(model.math, PEC_IN_STORAGE);
  const pec_spec plain = flat_of("rope(d=128,dtype=bf16)");
  EXPECT_EQ(plain.cache, PEC_IN_COMPUTE);
  EXPECT_EQ(plain.math, PEC_IN_COMPUTE);
  const pec_spec math_only = flat_of("xpos(d=8,dtype=fp16,math=storage)");
  EXPECT_EQ(math_only.cache, PEC_IN_COMPUTE);
  EXPECT_EQ(math_only.math, PEC_IN_STORAGE);
}

TEST(AbiSpec, Fp64AngleReachesALibraryAsItsOwnClass) {
  EXPECT_EQ(flat_of("sinusoidal(d=768,precision=fp64-angle)").precision, PEC_FP64_ANGLE);
  EXPECT_EQ(flat_of("xl(d=16,precision=fp64-angle)").precision, PEC_FP64_ANGLE);
}

TEST(AbiSpec, LowpCacheHoldsCosAndSinInStorageForALibraryReadingTheNewField) {
  const pec_spec lowp = flat_of("rope(d=16,dtype=bf16,precision=lowp-cache)");
  EXPECT_EQ(lowp.precision, PEC_LOWP_CACHE);
  EXPECT_EQ(lowp.cache, PEC_IN_STORAGE);
  EXPECT_EQ(lowp.math, PEC_IN_COMPUTE);
}

// Each recipe key reaches the library (issue 38: a mutant that left `slopes` at its default survived).
TEST(AbiSpec, SlopesSayHowFloat32SlopesAreFormed) {
  EXPECT_EQ(flat_of("alibi(heads=8,precision=fp32-angle,slopes=bloom)").slopes, PEC_SLOPES_BLOOM);
  EXPECT_EQ(flat_of("alibi(heads=8,precision=fp32-angle,slopes=mpt)").slopes, PEC_SLOPES_MPT);
}

TEST(AbiSpec, PositionSaysHowAFloat32PositionIsFormed) {
  EXPECT_EQ(flat_of("rope2d(d=16,precision=fp32-angle,position=fp32-sum)").position, PEC_POSITION_FP32_SUM);
  EXPECT_EQ(flat_of("rope(d=16,precision=fp32-angle)").position, PEC_POSITION_FP32);
}

// Session 39's draw: mutants that left rot_last, causal or a plan's factor unset survived.
TEST(AbiSpec, RotLastSaysWhereTheRotaryDimsSit) {
  EXPECT_EQ(flat_of("rope(d=16,rot=8,rot_at=last)").rot_last, 1);
  EXPECT_EQ(flat_of("rope(d=16,rot=8)").rot_last, 0);
}

TEST(AbiSpec, CausalAndThePlansFactorReachTheLibrary) {
  EXPECT_EQ(flat_of("alibi(heads=8,mode=causal)").causal, 1);
  EXPECT_EQ(flat_of("alibi(heads=8,mode=key)").causal, 0);
  EXPECT_EQ(flat_of("rope(d=16,scaling=linear(factor=2.5))").scaling.factor, 2.5);
  EXPECT_EQ(flat_of("rope(d=16,scaling=yarn(factor=4,orig=4096))").scaling.factor, 4.0);
}

TEST(AbiSpec, MathSaysWhereAnAlibiBiasRounds) {
  EXPECT_EQ(flat_of("alibi(heads=32,mode=key,precision=fp32-angle,slopes=bloom,math=bf16)").math, PEC_IN_BF16);
  EXPECT_EQ(flat_of("alibi(heads=32,mode=key,dtype=bf16,math=storage)").math, PEC_IN_STORAGE);
}

TEST(AbiSpec, RightIsShawsWindowPastTheQuery) {
  EXPECT_EQ(flat_of("shaw(k=64,right=8)").right, 8);
  EXPECT_EQ(flat_of("shaw(k=64,right=8)").k, 64);
  EXPECT_EQ(flat_of("shaw(k=4)").right, 4);
}

// Every field of pec_spec and pec_plan holds the spec's own value, set away from its default
// where the family has the key (a library reads these numbers, never the text): the checklist of
// the backends-calls room (tools/mutation/checklists/backends-calls.md) found most of them
// untested, and session 41's fresh draw left sign, long_factors and freq_count unset unseen.
TEST(AbiSpec, EveryFieldIsTheSpecsOwnValue) {
  const pec_spec rope = flat_of("rope(d=24,base=500,layout=interleaved,rot=16,rot_at=last,sign=-1,amp=0.5,dtype=bf16,"
                                "precision=fp32-angle,theta=meta,math=storage,position=fp32-sum)");
  EXPECT_EQ(rope.family, PEC_ROPE);
  EXPECT_EQ(rope.d, 24);
  EXPECT_EQ(rope.rot, 16);
  EXPECT_EQ(rope.rot_last, 1);
  EXPECT_EQ(rope.base, 500.0);
  EXPECT_EQ(rope.layout, PEC_LAYOUT_INTERLEAVED);
  EXPECT_EQ(rope.sign, -1);
  EXPECT_EQ(rope.amp, 0.5);
  EXPECT_EQ(rope.dtype.code, kDLBfloat);
  EXPECT_EQ(rope.dtype.bits, 16);
  EXPECT_EQ(rope.dtype.lanes, 1);
  EXPECT_EQ(rope.precision, PEC_FP32_ANGLE);
  EXPECT_EQ(rope.theta, PEC_THETA_META);
  EXPECT_EQ(rope.math, PEC_IN_STORAGE);
  EXPECT_EQ(rope.position, PEC_POSITION_FP32_SUM);
  EXPECT_EQ(rope.scaling.kind, PEC_PLAN_NONE);
  EXPECT_EQ(flat_of("rope(d=16,dtype=fp16)").dtype.code, kDLFloat);
  EXPECT_EQ(flat_of("rope(d=16,dtype=fp16)").dtype.bits, 16);
  EXPECT_EQ(flat_of("rope(d=16,dtype=fp64)").dtype.bits, 64);
  EXPECT_EQ(flat_of("rope(d=16,layout=interleaved-to-half)").layout, PEC_LAYOUT_INTERLEAVED_TO_HALF);

  const pec_plan yarn = flat_of("rope(d=16,scaling=yarn(factor=4,orig=2048,beta_fast=16,beta_slow=2,mscale=0.7,"
                                "mscale_all_dim=0.9,attention=1.25,truncate=false))").scaling;
  EXPECT_EQ(yarn.kind, PEC_PLAN_YARN);
  EXPECT_EQ(yarn.factor, 4.0);
  EXPECT_EQ(yarn.orig, 2048);
  EXPECT_EQ(yarn.beta_fast, 16.0);
  EXPECT_EQ(yarn.beta_slow, 2.0);
  EXPECT_EQ(yarn.has_mscale, 1);
  EXPECT_EQ(yarn.mscale, 0.7);
  EXPECT_EQ(yarn.has_mscale_all_dim, 1);
  EXPECT_EQ(yarn.mscale_all_dim, 0.9);
  EXPECT_EQ(yarn.has_attention, 1);
  EXPECT_EQ(yarn.attention, 1.25);
  EXPECT_EQ(yarn.truncate, 0);
  const pec_plan bare_yarn = flat_of("rope(d=16,scaling=yarn(factor=4,orig=2048))").scaling;
  EXPECT_EQ(bare_yarn.has_mscale + bare_yarn.has_mscale_all_dim + bare_yarn.has_attention, 0);
  EXPECT_EQ(bare_yarn.length, 0);
  EXPECT_EQ(flat_of("rope(d=16,scaling=dynamic(factor=2,orig=1024,len=5000))").scaling.length, 5000);
  EXPECT_EQ(bare_yarn.truncate, 1);
  const pec_plan llama3 = flat_of("rope(d=16,scaling=llama3(factor=16,orig=4096,low=2,high=8))").scaling;
  EXPECT_EQ(llama3.kind, PEC_PLAN_LLAMA3);
  EXPECT_EQ(llama3.low, 2.0);
  EXPECT_EQ(llama3.high, 8.0);
  // The factor arrays live in the AbiSpec, which must outlive the call that reads them.
  const AbiSpec longrope_spec(Spec::parse("rope(d=8,scaling=longrope(factor=8,orig=4096,short=[1,1.5,2,2.5],long=[3,4,5,6]))"));
  const pec_plan& longrope = longrope_spec.flat().scaling;
  EXPECT_EQ(longrope.kind, PEC_PLAN_LONGROPE);
  ASSERT_EQ(longrope.short_count, 4);
  ASSERT_EQ(longrope.long_count, 4);
  ASSERT_NE(longrope.short_factors, nullptr);
  ASSERT_NE(longrope.long_factors, nullptr);
  EXPECT_EQ(longrope.short_factors[1], 1.5);
  EXPECT_EQ(longrope.long_factors[3], 6.0);
  EXPECT_EQ(longrope.freqs, nullptr);
  EXPECT_EQ(longrope.factors, nullptr);
  const AbiSpec freqs_spec(Spec::parse("rope(d=6,scaling=custom(freqs=[1,0.25,0.0625]))"));
  const pec_plan& freqs = freqs_spec.flat().scaling;
  EXPECT_EQ(freqs.kind, PEC_PLAN_CUSTOM);
  ASSERT_EQ(freqs.freq_count, 3);
  ASSERT_NE(freqs.freqs, nullptr);
  EXPECT_EQ(freqs.freqs[2], 0.0625);
  EXPECT_EQ(freqs.factor_count, 0);
  EXPECT_EQ(freqs.factors, nullptr);
  const AbiSpec factors_spec(Spec::parse("rope(d=6,scaling=custom(factors=[1,2,4]))"));
  const pec_plan& factors = factors_spec.flat().scaling;
  ASSERT_EQ(factors.factor_count, 3);
  ASSERT_NE(factors.factors, nullptr);
  EXPECT_EQ(factors.factors[1], 2.0);
  EXPECT_EQ(factors.freq_count, 0);
  EXPECT_EQ(factors.freqs, nullptr);

  const pec_spec sinusoid = flat_of("sinusoidal(d=10,base=100,order=cos-sin,freq=geometric,offset=3)");
  EXPECT_EQ(sinusoid.family, PEC_SINUSOIDAL);
  EXPECT_EQ(sinusoid.cos_first, 1);
  EXPECT_EQ(sinusoid.geometric, 1);
  EXPECT_EQ(sinusoid.offset, 3);
  EXPECT_EQ(flat_of("learned(d=4,rows=77)").rows, 77);
  const pec_spec xpos = flat_of("xpos(d=16,scale_base=64,role=key)");
  EXPECT_EQ(xpos.scale_base, 64.0);
  EXPECT_EQ(xpos.key_role, 1);
  EXPECT_EQ(flat_of("xpos(d=16)").key_role, 0);
  const pec_spec mrope = flat_of("mrope(d=24,sections=[2,4,6],section_mode=interleaved)");
  EXPECT_EQ(mrope.section_count, 3);
  EXPECT_EQ(mrope.sections[0], 2);
  EXPECT_EQ(mrope.sections[1], 4);
  EXPECT_EQ(mrope.sections[2], 6);
  EXPECT_EQ(mrope.sections_interleaved, 1);
  EXPECT_EQ(flat_of("mrope(d=8,sections=[1,3])").section_count, 2);
  const pec_spec alibi = flat_of("alibi(heads=12,mode=last-key)");
  EXPECT_EQ(alibi.heads, 12);
  EXPECT_EQ(alibi.alibi_mode, PEC_ALIBI_LAST_KEY);
  EXPECT_EQ(alibi.causal, 0);
  const pec_spec t5 = flat_of("t5(buckets=16,max_distance=64,bidirectional=false)");
  EXPECT_EQ(t5.buckets, 16);
  EXPECT_EQ(t5.max_distance, 64);
  EXPECT_EQ(t5.bidirectional, 0);
  EXPECT_EQ(flat_of("t5(buckets=16,max_distance=64)").bidirectional, 1);
  EXPECT_EQ(flat_of("xl(d=8,clamp_len=40)").clamp_len, 40);
}

TEST(AbiSpec, TheNewFieldsFollowEveryFieldAnOlderLibraryKnows) {
  // Appended within version 1: a library built against the header before them reads a prefix.
  EXPECT_GT(offsetof(pec_spec, cache), offsetof(pec_spec, clamp_len));
  EXPECT_GT(offsetof(pec_spec, math), offsetof(pec_spec, cache));
  EXPECT_GT(offsetof(pec_spec, position), offsetof(pec_spec, alibi_mode));
  EXPECT_GT(offsetof(pec_spec, right), offsetof(pec_spec, position));
}

}  // namespace
}  // namespace peconform::plugin
