#include <gtest/gtest.h>

#include <set>

#include "spec/spec_error.hpp"
#include "spec/spec_pattern.hpp"

namespace peconform {
namespace {

void expect_rejected(const std::string& text, const std::string& needle) {
  try {
    SpecPattern::parse_list(text);
    ADD_FAILURE() << "accepted pattern " << text;
  } catch (const SpecError& error) {
    EXPECT_NE(std::string(error.what()).find(needle), std::string::npos) << "message: " << error.what() << "\nmissing: " << needle;
  }
}

// A chooser that always takes choice `pick` (modulo the count).
auto always(std::uint64_t pick) {
  return [pick](std::uint64_t count) { return pick % count; };
}

TEST(SpecPattern, BadPatternsAreRefusedNamingTheBadPart) {
  expect_rejected("rope(dd=64)", "unknown key 'dd' for rope");
  expect_rejected("shaw(d=64)", "unknown key 'd' for shaw");
  expect_rejected("ropes(d=64)", "unknown family 'ropes'");
  expect_rejected("rope(d=64,d=128)", "gives key 'd' twice");
  expect_rejected("rope(d=64|*)", "'*' stands alone");
  expect_rejected("rope(d=64", "leaves a bracket open");
  expect_rejected("rope(d=64,scaling=yarn(factor=4)", "leaves a bracket open");
  expect_rejected("rope d=64", "not of the form");
  expect_rejected("rope(d=64,scaling=yarn(factor=4)))", "closes a bracket");
  expect_rejected("rope(d)", "is not key=value");
  expect_rejected("rope(d=6 4)", "value '6 4' of key 'd'");
  expect_rejected(" ; ", "holds no spec pattern");
}

TEST(SpecPattern, AListSplitsAtSemicolonsOutsideBrackets) {
  const std::vector<SpecPattern> patterns = SpecPattern::parse_list("rope(d=64,scaling=none|linear(factor=2)); xpos(*) ;alibi(heads=8)");
  ASSERT_EQ(patterns.size(), 3u);
  EXPECT_EQ(patterns[0].family(), Family::rope);
  EXPECT_FALSE(patterns[0].every_key_free());
  EXPECT_TRUE(patterns[1].every_key_free());
  EXPECT_EQ(patterns[2].family(), Family::alibi);
}

TEST(SpecPattern, DtypesAndClassesAreTheNamedChoicesElseTheDefaults) {
  const std::vector<Dtype> dtypes{Dtype::fp64, Dtype::fp32, Dtype::fp16, Dtype::bf16};
  const std::vector<PrecisionClass> classes{PrecisionClass::exact_angle, PrecisionClass::fp32_angle, PrecisionClass::lowp_cache};
  const SpecPattern named = SpecPattern::parse("rope(d=64,dtype=bf16|fp32,precision=fp32-angle)");
  EXPECT_EQ(named.dtypes(dtypes), (std::vector<Dtype>{Dtype::fp32, Dtype::bf16}));  // in the candidates' order
  EXPECT_EQ(named.precisions(classes), (std::vector<PrecisionClass>{PrecisionClass::fp32_angle}));
  const SpecPattern unnamed = SpecPattern::parse("rope(d=64)");
  EXPECT_EQ(unnamed.dtypes(dtypes), (std::vector<Dtype>{Dtype::fp32}));
  EXPECT_EQ(unnamed.precisions(classes), (std::vector<PrecisionClass>{PrecisionClass::exact_angle}));
  EXPECT_EQ(SpecPattern::parse("rope(d=64,dtype=*)").dtypes(dtypes), dtypes);
  EXPECT_EQ(SpecPattern::parse("rope(*)").precisions(classes), classes);
  EXPECT_THROW(SpecPattern::parse("rope(d=64,dtype=fp8)").dtypes(dtypes), SpecError);
}

TEST(SpecPattern, NarrowKeepsFreeKeysPicksChoicesAndDefaultsTheRest) {
  const Spec drawn = Spec::parse("rope(d=96,base=500000,layout=interleaved,rot=32,sign=-1,scaling=linear(factor=4),dtype=bf16)");
  const SpecPattern pattern = SpecPattern::parse("rope(d=64|128,base=*,rot=*,scaling=none|linear(factor=2),dtype=bf16|fp32)");
  EXPECT_EQ(pattern.narrow(drawn, always(0)).canonical(), "rope(d=64,base=500000,layout=half,rot=32,dtype=bf16)");
  EXPECT_EQ(pattern.narrow(drawn, always(1)).canonical(),
            "rope(d=128,base=500000,layout=half,rot=32,scaling=linear(factor=2),dtype=bf16)");
  // Every key of `rope(*)` is the drawn one's.
  EXPECT_EQ(SpecPattern::parse("rope(*)").narrow(drawn, always(0)), drawn);
  // A draw the pattern cannot take is an error, for the campaign to draw again.
  EXPECT_THROW(SpecPattern::parse("rope(d=16,rot=*)").narrow(drawn, always(0)), SpecError);
  EXPECT_THROW(SpecPattern::parse("xpos(d=16)").narrow(drawn, always(0)), SpecError);
}

TEST(SpecPattern, EveryChoiceIsReachedAndEveryNarrowedSpecIsAdmitted) {
  const Spec drawn = Spec::parse("rope(d=64,base=10000,layout=half,dtype=fp32,precision=fp32-angle,theta=ggml)");
  const SpecPattern pattern =
      SpecPattern::parse("rope(d=64|128|256,base=10000|1e6,layout=*,precision=fp32-angle,theta=hf|ggml,dtype=fp32)");
  std::set<std::string> made;
  for (std::uint64_t pick = 0; pick < 12; ++pick) {
    const Spec spec = pattern.narrow(drawn, always(pick));
    EXPECT_TRUE(pattern.admits(spec)) << spec.canonical();
    made.insert(spec.canonical());
  }
  EXPECT_EQ(made.size(), 6u);  // d cycles through 3 and base and theta through 2 together: lcm 6
}

TEST(SpecPattern, AdmitsOnlyTheSpecsThePatternMakes) {
  const SpecPattern pattern = SpecPattern::parse("rope(d=64|128,base=1e4,layout=half,rot=*,dtype=fp32|bf16)");
  EXPECT_TRUE(pattern.admits(Spec::parse("rope(d=64)")));
  EXPECT_TRUE(pattern.admits(Spec::parse("rope(d=128,base=10000,rot=32,dtype=bf16)")));
  EXPECT_FALSE(pattern.admits(Spec::parse("rope(d=96)")));                      // d not a choice
  EXPECT_FALSE(pattern.admits(Spec::parse("rope(d=64,base=500000)")));          // base fixed
  EXPECT_FALSE(pattern.admits(Spec::parse("rope(d=64,sign=-1)")));              // sign not named: default only
  EXPECT_FALSE(pattern.admits(Spec::parse("rope(d=64,dtype=fp16)")));           // dtype not a choice
  EXPECT_FALSE(pattern.admits(Spec::parse("rope(d=64,layout=interleaved)")));   // layout fixed
  EXPECT_FALSE(pattern.admits(Spec::parse("xpos(d=64)")));                      // another family
  EXPECT_TRUE(SpecPattern::parse("t5(*)").admits(Spec::parse("t5(buckets=64,max_distance=256,bidirectional=false)")));
}

}  // namespace
}  // namespace peconform
