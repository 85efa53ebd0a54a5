// Our CPU kernels under every fp32-angle recipe, at positions around 2^24 and up to 2^31 - 1,
// where each rounding a recipe makes shows: no element may break the recipe's bound, and the
// bound stays tight. Issue 18: ggml's 1.0f / (float)factor rounds twice and was charged once (a
// false failure on ggml and on our own kernel); sinusoid tables formed by exp-log and Bloom's
// ALiBi slopes had no recipe of their own.
#include <gtest/gtest.h>

#include <iostream>
#include <map>

#include <fmt/format.h>

#include "backends/backend_registry.hpp"
#include "harness/case_description.hpp"
#include "harness/case_run.hpp"

namespace peconform::harness {
namespace {

TEST(Fp32RecipeConformance, UnrepresentableLinearFactorsAroundTwoToTheTwentyFourAndTheLastPosition) {
  const std::unique_ptr<TensorBackend> cpu = make_backend("cpu");
  std::map<std::string, double> worst_ratio;
  const std::int64_t seq = 1024;
  std::uint64_t seed = 1;
  for (const char* recipe : {"exact", "hf", "meta", "ggml"}) {
    for (const char* factor : {"63.1", "1.1", "7.3", "13.37"}) {
      for (const char* layout : {"half", "interleaved"}) {
        // The first call straddles 2^24, where fl(p) starts to round; the last ends at 2^31 - 1.
        for (const std::int64_t offset : {(std::int64_t{1} << 24) - seq / 2, (std::int64_t{1} << 31) - seq}) {
          const std::string text = fmt::format(
              "rope(d=64,base=10000,layout={},scaling=linear(factor={}),dtype=fp32,precision=fp32-angle,theta={}) | "
              "batch=1 seq={} heads=2 order=bshd pad=0 place=out ids=int64 positions=run offset={} inputs=activations "
              "seed={}",
              layout, factor, recipe, seq, offset, seed++);
          const CaseOutcome outcome = run_case(CaseDescription::parse(text), *cpu);
          EXPECT_TRUE(outcome.error.empty()) << text << ": " << outcome.error;
          EXPECT_EQ(outcome.verdict.failing_elements, 0u)
              << text << ": " << (outcome.verdict.first_failure ? outcome.verdict.first_failure->kind : "");
          worst_ratio[recipe] = std::max(worst_ratio[recipe], outcome.verdict.stats.worst_ratio);
        }
      }
    }
  }
  for (const auto& [recipe, ratio] : worst_ratio) {
    std::cout << recipe << ": worst error / bound " << ratio << "\n";
    EXPECT_GE(ratio, 0.1) << recipe << "'s bound is loose (DESIGN.md section 2)";
  }
}

TEST(Fp32RecipeConformance, ExpLogTablesAndBloomSlopes) {
  const std::unique_ptr<TensorBackend> cpu = make_backend("cpu");
  const std::string cases[] = {
      "sinusoidal(d=16,base=83200,layout=half,freq=geometric,dtype=fp64,precision=fp32-angle,theta=exp-log) | seq=4096 "
      "offset=54000 seed=1",
      "sinusoidal(d=512,base=10000,layout=interleaved,dtype=fp32,precision=fp32-angle,theta=exp-log) | seq=2048 "
      "offset=16776192 seed=2",
      "sinusoidal(d=33,base=10000,layout=interleaved,dtype=fp64,precision=fp32-angle,theta=exp-log) | seq=1024 "
      "offset=2000000 seed=3",
      "xl(d=64,base=10000,dtype=fp64,precision=fp32-angle,theta=exp-log) | seq=2048 offset=-1000 seed=4",
      "alibi(heads=44,mode=causal,dtype=fp64,precision=fp32-angle,slopes=bloom) | seq=64 keys=2048 offset=16777000 "
      "key_offset=16775000 seed=5",
      "alibi(heads=128,mode=symmetric,dtype=fp32,precision=fp32-angle,slopes=bloom) | seq=16 keys=512 offset=2147483000 "
      "key_offset=0 seed=6"};
  for (const std::string& text : cases) {
    const CaseOutcome outcome = run_case(CaseDescription::parse(text), *cpu);
    EXPECT_TRUE(outcome.error.empty()) << text << ": " << outcome.error;
    EXPECT_EQ(outcome.verdict.failing_elements, 0u)
        << text << ": " << (outcome.verdict.first_failure ? outcome.verdict.first_failure->kind : "");
    EXPECT_GE(outcome.verdict.stats.worst_ratio, 0.1) << text;
    std::cout << outcome.verdict.stats.worst_ratio << " " << text << "\n";
  }
}

}  // namespace
}  // namespace peconform::harness
