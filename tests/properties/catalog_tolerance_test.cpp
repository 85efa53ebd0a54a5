// The catalog's tolerances carry the properties' own binary128 arithmetic, not only the bounds
// an implementation claims: values cross the interface in binary128, and no implementation is
// judged on that rounding (backends/implementation.hpp). A kernel exact up to it must pass even
// when it claims no error of its own. Linked into mutant_test, whose main sets the profile.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "backends/reference_tiers.hpp"
#include "property_runs.hpp"

namespace peconform {
namespace {

// The exact tier's values (MPFR, rounded once to binary128) with a bound of zero.
class ExactClaimingNoErrorEvaluator final : public Evaluator {
 public:
  explicit ExactClaimingNoErrorEvaluator(std::unique_ptr<Evaluator> exact) : exact_(std::move(exact)) {}
  std::vector<Wide> evaluate(const Point& point, std::span<const Wide> input) const override {
    return exact_->evaluate(point, input);
  }
  std::vector<Wide> error_bounds(const Point& point, std::span<const Wide> input) const override {
    return std::vector<Wide>(exact_->evaluate(point, input).size(), Wide(0));
  }

 private:
  std::unique_ptr<Evaluator> exact_;
};

class ExactClaimingNoError final : public Implementation {
 public:
  std::string name() const override { return "exact-tier claiming no error"; }
  std::unique_ptr<Evaluator> prepare(const Spec& spec, std::int64_t sequence_length) const override {
    return std::make_unique<ExactClaimingNoErrorEvaluator>(exact_tier().prepare(spec, sequence_length));
  }
};

// The table relations that compute with the values themselves (the block rotation M_k and its
// products, the unit circle's norm, DistilBERT's table from base^x, sin and cos) allow for their
// own roundings, so the exact tables pass with nothing else to cover the difference.
TEST(CatalogTolerance, TablesExactToBinary128PassClaimingNoError) {
  constexpr int kCases = 500;
  const ExactClaimingNoError kernel;
  for (const std::string_view name :
       {"sinusoidShiftIsAFixedBlockRotation", "sinusoidEntriesLieOnTheUnitCircle", "oddInterleavedSinusoidIsDistilBertsTable"}) {
    const rc::detail::TestResult result =
        run_property(property_named(name), kernel, kCases, "CatalogTolerance/" + std::string(name));
    EXPECT_TRUE(result.template is<rc::detail::SuccessResult>()) << name << ": " << result;
  }
}

// The same for the rotary and plan relations that compute with the values: a pair's norm (and
// xPos's growth), and a pair's angle by atan2 at p = 1 (the frequency series, llama3's order,
// YaRN's ramp).
TEST(CatalogTolerance, RotaryRelationsExactToBinary128PassClaimingNoError) {
  constexpr int kCases = 500;
  const ExactClaimingNoError kernel;
  for (const std::string_view name : {"rotationPreservesNormPerPair", "defaultFrequenciesFormTheBasePowerSeries",
                                      "llama3KeepsFrequenciesDecreasing", "yarnFrequenciesFollowTheRampFromDefaultToLinear"}) {
    const rc::detail::TestResult result =
        run_property(property_named(name), kernel, kCases, "CatalogTolerance/" + std::string(name));
    EXPECT_TRUE(result.template is<rc::detail::SuccessResult>()) << name << ": " << result;
  }
}

}  // namespace
}  // namespace peconform
