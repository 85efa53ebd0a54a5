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

TEST(AbiSpec, TheNewFieldsFollowEveryFieldAnOlderLibraryKnows) {
  // Appended within version 1: a library built against the header before them reads a prefix.
  EXPECT_GT(offsetof(pec_spec, cache), offsetof(pec_spec, clamp_len));
  EXPECT_GT(offsetof(pec_spec, math), offsetof(pec_spec, cache));
  EXPECT_GT(offsetof(pec_spec, position), offsetof(pec_spec, alibi_mode));
  EXPECT_GT(offsetof(pec_spec, right), offsetof(pec_spec, position));
}

}  // namespace
}  // namespace peconform::plugin
