#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "spec/spec.hpp"
#include "tools/family_examples.hpp"

namespace peconform {
namespace {

// Canonical forms covering every family, every key and every frequency plan.
const char* const kCanonical[] = {
    "sinusoidal(d=4,base=10000,layout=interleaved)",
    "sinusoidal(d=7,base=10000,layout=half,order=cos-sin,freq=geometric,offset=2,dtype=bf16,precision=lowp-cache)",
    "learned(d=3,rows=4,dtype=fp16)",
    "rope(d=4,base=10000,layout=interleaved)",
    "rope(d=128,base=500000,layout=half,rot=64,rot_at=last,sign=-1,amp=0.5,dtype=fp64,precision=fp32-angle)",
    "rope(d=16,base=10000,layout=half,scaling=linear(factor=4))",
    "rope(d=64,base=10000,layout=half,scaling=linear(factor=2),precision=fp32-angle,theta=hf)",
    "rope2d(d=8,base=100,layout=interleaved,precision=fp32-angle,theta=ggml)",
    "rope(d=128,base=10000,layout=half,dtype=bf16,precision=fp32-angle,theta=hf,cache=storage,math=storage)",
    "mrope(d=16,base=10000,layout=half,sections=[2,3,3],dtype=fp16,cache=storage)",
    "xpos(d=8,base=10000,layout=interleaved,dtype=bf16,precision=lowp-cache,math=storage)",
    "rope2d(d=8,base=100,layout=interleaved,dtype=bf16,math=storage)",
    "sinusoidal(d=16,base=83200,layout=half,freq=geometric,dtype=fp64,precision=fp32-angle,theta=exp-log)",
    "xl(d=64,base=10000,precision=fp32-angle,theta=exp-log)",
    "sinusoidal(d=768,base=10000,layout=interleaved,precision=fp64-angle)",
    "alibi(heads=44,mode=causal,precision=fp32-angle,slopes=bloom)",
    "rope2d(d=80,base=10000,layout=interleaved,precision=fp32-angle,theta=meta,position=fp32-sum)",
    "rope(d=16,base=10000,layout=half,scaling=dynamic(factor=2,orig=64,len=1000))",
    "rope(d=16,base=10000,layout=half,scaling=yarn(factor=40,orig=4096,beta_fast=16,beta_slow=2,mscale=0.707,mscale_all_dim=1,attention=1.25,truncate=false))",
    "rope(d=128,base=500000,layout=half,scaling=llama3(factor=8,orig=8192))",
    "rope(d=128,base=500000,layout=half,scaling=llama3(factor=16,orig=4096,low=2,high=8))",
    "rope(d=8,base=10000,layout=half,scaling=longrope(factor=4,orig=16,len=20,attention=1.1,short=[1,1.25,1.5,2],long=[2,4,8,16]))",
    "rope(d=4,base=10000,layout=half,scaling=custom(freqs=[0.1,1e-7]))",
    "rope(d=4,base=10000,layout=half,scaling=custom(factors=[1,2]))",
    "rope(d=512,base=1000000,layout=half,scaling=proportional(factor=1,pairs=64),precision=fp32-angle,theta=hf)",
    "xpos(d=8,base=10000,layout=interleaved,scale_base=256,role=key)",
    "mrope(d=16,base=10000,layout=half,sections=[2,3,3],section_mode=interleaved)",
    "rope2d(d=8,base=100,layout=interleaved,sign=-1)",
    "alibi(heads=12)",
    "alibi(heads=20,mode=causal,dtype=bf16)",
    "alibi(heads=32,mode=key,precision=fp32-angle,math=bf16,slopes=bloom)",
    "t5(buckets=32,max_distance=128)",
    "t5(buckets=64,max_distance=256,bidirectional=false)",
    "learned(d=512,rows=1024,amp=0.04419417382415922)",
    "sinusoidal(d=320,base=10000,layout=half,amp=0.07905694150420949,order=cos-sin,freq=geometric)",
    "shaw(k=4)",
    "shaw(k=64,right=8)",
    "shaw(k=3,right=0)",
    "xl(d=8,base=10000,clamp_len=3)",
};

// YaRN's ramp ends as transformers' find_correction_range computes them: d_rot ln(orig / (2 pi
// beta)) / (2 ln base) for beta_fast and beta_slow, floored and ceiled unless truncate=false,
// clamped to [0, d_rot - 1]. Llama-like d=128, base 10000, orig 4096: 20.944... and 45.026...
TEST(SpecText, YarnRampEndsAreTransformersCorrectionRange) {
  const auto ends = [](const char* text) { return transformers_yarn_ramp_ends(Spec::parse(text)); };
  EXPECT_EQ(ends("rope(d=128,base=10000,scaling=yarn(factor=4,orig=4096))"), (std::pair<double, double>{20, 46}));
  const auto [low, high] = ends("rope(d=128,base=10000,scaling=yarn(factor=4,orig=4096,truncate=false))");
  EXPECT_NEAR(low, 20.94448162063605, 1e-12);
  EXPECT_NEAR(high, 45.02688127375455, 1e-12);
  const auto [low_64, high_64] = ends("rope(d=64,base=500000,scaling=yarn(factor=8,orig=8192,truncate=false))");
  EXPECT_NEAR(low_64, 9.040567517168792, 1e-12);
  EXPECT_NEAR(high_64, 17.492059500736204, 1e-12);
  // Clamped: a tiny orig puts beta_fast's end below 0, a huge one beta_slow's past d_rot - 1.
  EXPECT_EQ(ends("rope(d=16,base=10000,scaling=yarn(factor=4,orig=8))").first, 0);
  EXPECT_EQ(ends("rope(d=16,base=10,scaling=yarn(factor=4,orig=1000000))").second, 15);
}

TEST(SpecText, CanonicalFormRoundTripsUnchanged) {
  for (const char* text : kCanonical) EXPECT_EQ(Spec::parse(text).canonical(), text);
}

TEST(SpecText, JsonFormRoundTrips) {
  for (const char* text : kCanonical) {
    const Spec spec = Spec::parse(text);
    const nlohmann::json json = spec.to_json();
    EXPECT_EQ(Spec::from_json(json), spec) << json.dump();
    EXPECT_EQ(Spec::from_json(nlohmann::json::parse(json.dump())).canonical(), text);
  }
}

TEST(SpecText, JsonUsesNumbersBooleansAndNestedPlans) {
  const nlohmann::json json = Spec::parse("rope(d=16,base=1e4,layout=half,scaling=yarn(factor=4,orig=64,truncate=false))").to_json();
  EXPECT_EQ(json.at("family"), "rope");
  EXPECT_EQ(json.at("d"), 16);
  EXPECT_EQ(json.at("base"), 10000);
  EXPECT_EQ(json.at("scaling").at("type"), "yarn");
  EXPECT_EQ(json.at("scaling").at("truncate"), false);
}

// JSON numbers are doubles: a value whose digits a double does not keep stays a string, so the
// JSON form loses nothing (10000 and 0.5 print back as written; 10000.000000000000000001 would
// print back as 10000.0).
TEST(SpecText, JsonKeepsAsAStringADecimalADoubleWouldRound) {
  const char* text = "rope(d=8,base=10000.000000000000000001,layout=half)";
  const Spec spec = Spec::parse(text);
  const nlohmann::json json = spec.to_json();
  EXPECT_EQ(json.at("base"), "10000.000000000000000001");
  EXPECT_EQ(Spec::from_json(nlohmann::json::parse(json.dump())).canonical(), text);
}

TEST(SpecText, KeysInAnyOrderAndSpacingGiveTheSameSpec) {
  const Spec a = Spec::parse("rope(layout=interleaved,d=4,base=10000)");
  const Spec b = Spec::parse(" rope( base = 1e4 , d=4, layout=interleaved ) ");
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.canonical(), "rope(d=4,base=10000,layout=interleaved)");
}

TEST(SpecText, DefaultsAreOmittedAndPrimaryKeysAlwaysShown) {
  EXPECT_EQ(Spec::parse("rope(d=8)").canonical(), "rope(d=8,base=10000,layout=half)");
  EXPECT_EQ(Spec::parse("sinusoidal(d=8)").canonical(), "sinusoidal(d=8,base=10000,layout=interleaved)");
  EXPECT_EQ(Spec::parse("rope(d=8,rot=8,sign=1,scaling=none,amp=1,dtype=fp32)").canonical(), "rope(d=8,base=10000,layout=half)");
  EXPECT_EQ(Spec::parse("t5()").canonical(), "t5(buckets=32,max_distance=128)");
  // A Shaw window's right side equal to k is the symmetric window, spelled one way.
  EXPECT_EQ(Spec::parse("shaw(k=4,right=4)").canonical(), "shaw(k=4)");
  EXPECT_EQ(Spec::parse("shaw(k=4,right=4)"), Spec::parse("shaw(k=4)"));
}

TEST(SpecText, CacheAndMathDefaultToComputeAndNameWhereARotationRounds) {
  const Spec model = Spec::parse("rope(d=128,dtype=bf16,precision=fp32-angle,theta=hf,cache=storage,math=storage)");
  EXPECT_EQ(model.cache, RoundsIn::storage);
  EXPECT_EQ(model.math, RoundsIn::storage);
  EXPECT_EQ(Spec::parse("rope(d=8,cache=compute,math=compute)").canonical(), "rope(d=8,base=10000,layout=half)");
  // lowp-cache is exact-angle with cache=storage, and keeps its spelling.
  const Spec lowp = Spec::parse("rope(d=8,dtype=bf16,precision=lowp-cache)");
  EXPECT_EQ(lowp.cache, RoundsIn::compute);
  EXPECT_TRUE(lowp.cos_sin_in_storage());
  EXPECT_TRUE(Spec::parse("rope(d=8,dtype=bf16,cache=storage)").cos_sin_in_storage());
  EXPECT_FALSE(Spec::parse("rope(d=8,dtype=bf16,math=storage)").cos_sin_in_storage());
}

TEST(SpecText, CacheAndMathAreRefusedWhereTheyMeanNothingOrContradict) {
  const auto refusal = [](const char* text) {
    try {
      return "accepted as " + Spec::parse(text).canonical();
    } catch (const std::exception& error) {
      return std::string(error.what());
    }
  };
  EXPECT_NE(refusal("rope(d=8,dtype=bf16,precision=lowp-cache,cache=storage)").find("drop cache=storage"), std::string::npos);
  EXPECT_NE(refusal("rope(d=8,dtype=bf16,precision=lowp-cache,cache=compute)").find("drop cache=compute"), std::string::npos);
  EXPECT_NE(refusal("sinusoidal(d=8,cache=storage)").find("unknown key 'cache'"), std::string::npos);
  EXPECT_NE(refusal("alibi(heads=8,cache=storage)").find("unknown key 'cache'"), std::string::npos);
  EXPECT_EQ(refusal("alibi(heads=8,dtype=bf16,math=storage)"), "accepted as alibi(heads=8,dtype=bf16,math=storage)");
  // bf16 is a place only ALiBi's arithmetic rounds (Falcon's math=bf16); a rotation's is refused.
  EXPECT_NE(refusal("rope(d=8,math=bf16)").find("rope takes math=compute or math=storage"), std::string::npos);
  EXPECT_NE(refusal("rope(d=8,math=twice)").find("expects one of compute|storage|bf16, found 'twice'"), std::string::npos);
}

TEST(SpecText, ListExamplesParseAndCoverEveryFamily) {
  ASSERT_EQ(kFamilyExamples.size(), all_families().size());
  for (std::size_t k = 0; k < kFamilyExamples.size(); ++k) {
    const Spec spec = Spec::parse(kFamilyExamples[k].spec);
    EXPECT_EQ(spec.family, all_families()[k]);
    EXPECT_EQ(family_name(spec.family), kFamilyExamples[k].family);
  }
}

// Issue 51: what the rules accept at their edges, and the names and scopes the tests above do
// not reach. Each expected text is the documented canonical form (docs/specs.md).

TEST(SpecText, DefaultNamesAreAcceptedAndLeftOutOfTheCanonicalForm) {
  EXPECT_EQ(Spec::parse("rope(d=8,rot=4,rot_at=first)").canonical(), "rope(d=8,base=10000,layout=half,rot=4)");
  EXPECT_EQ(Spec::parse("sinusoidal(d=8,order=sin-cos)").canonical(), "sinusoidal(d=8,base=10000,layout=interleaved)");
  EXPECT_EQ(Spec::parse("xpos(d=8,role=query)").canonical(), "xpos(d=8,base=10000,layout=interleaved)");
  EXPECT_EQ(Spec::parse("mrope(d=16,sections=[2,3,3],section_mode=blocked)").canonical(),
            "mrope(d=16,base=10000,layout=half,sections=[2,3,3])");
  EXPECT_EQ(Spec::parse("alibi(heads=8,mode=symmetric)").canonical(), "alibi(heads=8)");
  EXPECT_EQ(Spec::parse("alibi(heads=8,precision=fp32-angle,slopes=exact)").canonical(), "alibi(heads=8,precision=fp32-angle)");
}

TEST(SpecText, NamesThatAreNoDefaultRoundTrip) {
  for (const char* text : {"alibi(heads=8,mode=last-key)", "alibi(heads=8,precision=fp32-angle,slopes=mpt)",
                           "rope2d(d=8,base=100,layout=interleaved,amp=0.5)", "xl(d=8,base=10000,dtype=bf16)",
                           "rope2d(d=8,base=100,layout=interleaved,dtype=bf16,cache=storage)",
                           "mrope(d=16,base=10000,layout=half,sections=[2,3,3],precision=fp32-angle,position=fp32-sum)"})
    EXPECT_EQ(Spec::parse(text).canonical(), text);
}

// docs/specs.md: layout defaults to interleaved for sinusoidal, xpos and rope2d; a llama3 plan to
// Meta's Llama 3.1 factor=8, orig=8192.
TEST(SpecText, FamilyAndPlanDefaultsAreTheDocumentedOnes) {
  EXPECT_EQ(Spec::parse("xpos(d=8)").canonical(), "xpos(d=8,base=10000,layout=interleaved)");
  EXPECT_EQ(Spec::parse("rope2d(d=8)").canonical(), "rope2d(d=8,base=10000,layout=interleaved)");
  EXPECT_EQ(Spec::parse("mrope(d=16,sections=[2,3,3])").canonical(), "mrope(d=16,base=10000,layout=half,sections=[2,3,3])");
  const Spec llama3 = Spec::parse("rope(d=8,scaling=llama3())");
  EXPECT_EQ(llama3.scaling.factor, Decimal(8));
  EXPECT_EQ(llama3.scaling.orig, 8192);
  EXPECT_EQ(llama3.canonical(), "rope(d=8,base=10000,layout=half,scaling=llama3(factor=8,orig=8192))");
}

// The `>`, `&&` and `||` terms of validate, at the values where they decide.
TEST(SpecText, RulesAcceptTheirEdgeCases) {
  // Proportional over every pair of the rotary dims.
  EXPECT_NO_THROW(Spec::parse("rope(d=8,scaling=proportional(factor=2,pairs=4))"));
  // DistilBERT's odd table: interleaved power frequencies end in a lone sine.
  EXPECT_EQ(Spec::parse("sinusoidal(d=5)").canonical(), "sinusoidal(d=5,base=10000,layout=interleaved)");
  // Tables take hf's powf; xl's table may be built in float64.
  EXPECT_NO_THROW(Spec::parse("sinusoidal(d=8,precision=fp32-angle,theta=hf)"));
  EXPECT_NO_THROW(Spec::parse("xl(d=8,precision=fp32-angle,theta=hf)"));
  EXPECT_EQ(Spec::parse("xl(d=8,precision=fp64-angle)").canonical(), "xl(d=8,base=10000,precision=fp64-angle)");
  // mlx's exponent stays normal while |ln(base)| < 64: ln(1e27) = 62.2 is inside, ln(1e28) = 64.5 not.
  EXPECT_NO_THROW(Spec::parse("rope(d=64,base=1e27,precision=fp32-angle,theta=mlx)"));
  EXPECT_NO_THROW(Spec::parse("rope(d=64,base=1e-27,precision=fp32-angle,theta=mlx)"));
  for (const char* text : {"rope(d=64,base=1e28,precision=fp32-angle,theta=mlx)", "rope(d=64,base=1e-28,precision=fp32-angle,theta=mlx)"}) {
    std::string message = "accepted";
    try {
      Spec::parse(text);
    } catch (const std::exception& error) {
      message = error.what();
    }
    EXPECT_NE(message.find("|ln(base)| < 64"), std::string::npos) << text << ": " << message;
  }
}

// theta_recipes: which recipe each rotary plan takes (docs/specs.md, `theta`).
TEST(SpecText, ThetaRecipesFollowTheFamilyAndThePlan) {
  using T = ThetaRecipe;
  const auto refused = [](const char* text) {
    try {
      Spec::parse(text);
      return std::string("accepted");
    } catch (const std::exception& error) {
      return std::string(error.what());
    }
  };
  EXPECT_NO_THROW(Spec::parse("rope(d=64,precision=fp32-angle,theta=mlx)"));
  EXPECT_NO_THROW(Spec::parse("rope(d=64,precision=fp32-angle,theta=meta,scaling=linear(factor=2))"));
  EXPECT_NO_THROW(Spec::parse("rope(d=64,precision=fp32-angle,theta=ggml,scaling=linear(factor=2))"));
  EXPECT_NO_THROW(Spec::parse("rope(d=64,precision=fp32-angle,theta=hf,scaling=yarn(factor=4,orig=4096))"));
  EXPECT_NO_THROW(Spec::parse("rope(d=64,precision=fp32-angle,theta=meta,scaling=yarn(factor=4,orig=4096))"));
  EXPECT_NO_THROW(Spec::parse("rope(d=64,precision=fp32-angle,theta=ggml,scaling=yarn(factor=4,orig=4096))"));
  // A YaRN that ggml does not form still takes hf and meta.
  EXPECT_NO_THROW(Spec::parse("rope(d=64,precision=fp32-angle,theta=hf,scaling=yarn(factor=4,orig=4096,truncate=false))"));
  EXPECT_NO_THROW(Spec::parse("rope(d=64,precision=fp32-angle,theta=meta,scaling=yarn(factor=4,orig=4096,attention=1.2))"));
  // custom(factors=...) is llama.cpp's rope_freqs: ggml takes it, hf does not.
  EXPECT_NO_THROW(Spec::parse("rope(d=4,precision=fp32-angle,theta=ggml,scaling=custom(factors=[1,2]))"));
  EXPECT_NE(refused("rope(d=4,precision=fp32-angle,theta=hf,scaling=custom(factors=[1,2]))").find("theta=hf is not defined for scaling custom"),
            std::string::npos);
  // mrope and rope2d are rotary: mlx forms rope's theta only.
  EXPECT_NE(refused("rope2d(d=8,precision=fp32-angle,theta=mlx)").find("theta=mlx is not defined for scaling none"), std::string::npos);
  EXPECT_NE(refused("mrope(d=16,sections=[2,3,3],precision=fp32-angle,theta=mlx)").find("theta=mlx is not defined for scaling none"),
            std::string::npos);
  // Asked directly (validate never asks for a non-rotary family's list).
  EXPECT_EQ(theta_recipes(Spec::parse("sinusoidal(d=8)")), (std::vector<T>{T::exact, T::hf, T::exp_log}));
  EXPECT_EQ(theta_recipes(Spec::parse("xl(d=8)")), (std::vector<T>{T::exact, T::hf, T::exp_log}));
  EXPECT_EQ(theta_recipes(Spec::parse("alibi(heads=8)")), (std::vector<T>{T::exact}));
  EXPECT_EQ(theta_recipes(Spec::parse("rope(d=8)")), (std::vector<T>{T::exact, T::hf, T::meta, T::ggml, T::mlx}));
  EXPECT_EQ(theta_recipes(Spec::parse("rope2d(d=8)")), (std::vector<T>{T::exact, T::hf, T::meta, T::ggml}));
  EXPECT_EQ(theta_recipes(Spec::parse("rope(d=8,scaling=custom(factors=[1,1,1,1]))")), (std::vector<T>{T::exact, T::ggml}));
  EXPECT_EQ(theta_recipes(Spec::parse("rope(d=8,scaling=custom(freqs=[1,1,1,1]))")), (std::vector<T>{T::exact}));
}

TEST(SpecText, FamilyKindsAreTheDocumentedOnes) {
  for (Family family : all_families()) {
    const bool relative = family == Family::alibi || family == Family::t5 || family == Family::shaw || family == Family::xl;
    const bool rotary = family == Family::rope || family == Family::xpos || family == Family::mrope || family == Family::rope2d;
    EXPECT_EQ(is_relative(family), relative) << family_name(family);
    EXPECT_EQ(is_rotary(family), rotary) << family_name(family);
  }
}

// The names other rooms print and read (reports, patterns, the command line).
TEST(SpecText, NamesOfEachKindAreTheSpecsOwn) {
  EXPECT_EQ(dtype_name(Dtype::fp64), "fp64");
  EXPECT_EQ(dtype_name(Dtype::bf16), "bf16");
  EXPECT_EQ(precision_name(PrecisionClass::lowp_cache), "lowp-cache");
  EXPECT_EQ(precision_name(PrecisionClass::fp64_angle), "fp64-angle");
  EXPECT_EQ(theta_recipe_name(ThetaRecipe::exp_log), "exp-log");
  EXPECT_EQ(theta_recipe_name(ThetaRecipe::ggml), "ggml");
  EXPECT_EQ(slope_recipe_name(SlopeRecipe::mpt), "mpt");
  EXPECT_EQ(alibi_mode_name(AlibiMode::last_key), "last-key");
  EXPECT_EQ(rounds_in_name(RoundsIn::storage), "storage");
  EXPECT_EQ(position_recipe_name(PositionRecipe::fp32_sum), "fp32-sum");
  EXPECT_EQ(rounds_in_named("storage", "math"), RoundsIn::storage);
  EXPECT_EQ(rounds_in_named("bf16", "math"), RoundsIn::bf16);
  try {
    rounds_in_named("twice", "math");
    ADD_FAILURE() << "accepted twice";
  } catch (const std::exception& error) {
    EXPECT_EQ(std::string(error.what()), "key 'math' expects one of compute|storage|bf16, found 'twice'");
  }
}

}  // namespace
}  // namespace peconform
