// checks.cpp's failure text, tolerances and guards, and rotary_support's probes, tested
// directly (issue 51): what a property prints and allows when it compares, without a kernel.
#include <gtest/gtest.h>
#include <fmt/format.h>
#include <rapidcheck.h>

#include <functional>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "properties/checks.hpp"
#include "properties/rotary_support.hpp"
#include "property_support/evaluations.hpp"

// A namespace of its own: the unity build compiles this file with verdicts_test.cpp.
namespace peconform::checks_test {
namespace {

using support_test::evaluation, support_test::kInfinity, support_test::rope4;

// The description a check fails with (RC_FAIL throws it as a CaseResult), or "" when it passes.
std::string failure_of(const std::function<void()>& check) {
  try {
    check();
  } catch (const rc::detail::CaseResult& result) {
    return result.description;
  }
  return {};
}

// Runs `check` as one case through check_case() and expects it discarded (RC_DISCARD).
void check_case_expecting_discard(const std::function<void()>& check) {
  try {
    check_case(check);
  } catch (const rc::detail::CaseResult& result) {
    EXPECT_EQ(result.type, rc::detail::CaseResult::Type::Discard) << result.description;
    return;
  }
  ADD_FAILURE() << "the case was judged, not discarded";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

SiteFunction site_in(Dtype dtype) {
  return [dtype] { return Site{"test relation", "test case", "element 0", "(none)", dtype}; };
}

TEST(Checks, AFailedComparisonPrintsItsSiteBothValuesTheErrorInUlpsAndAsARatioAndTheSeed) {
  // 1 + 3 ulp against 1 in fp32 (23 fraction bits: ulp(1) = 2^-23) with a tolerance of one ulp:
  // the error is 3 ulp and 3 x the tolerance. %Qa writes 3 * 2^-23 past 1 as the hex digits
  // 0x.000006 (2^-24 = 0x.000001), and %.36Qg the decimal 3 / 2^23 = 3.5762786865234375e-07 exactly.
  const Wide ulp = ldexp(Wide(1), -23);
  const std::string text = failure_of([&] { require_close(Wide(1) + 3 * ulp, Wide(1), ulp, site_in(Dtype::fp32)); });
  EXPECT_TRUE(contains(text,
                       "test relation\n  case: test case\n  element 0; input (none)\n"
                       "  expected 0x1p+0 (1)\n  actual   0x1.000006p+0 (1.00000035762786865234375)\n"
                       "  error    0x1.8p-22 (3.5762786865234375e-07) = 3 ulp(fp32) = 3 x the tolerance "
                       "0x1p-23 (1.1920928955078125e-07)\n  seed: "))
      << text;
}

struct DtypeSpacing {
  Dtype dtype;
  const char* name;
  int fraction_bits, smallest_exponent;  // IEEE 754 binary64, binary32, binary16, and bfloat16
};
constexpr DtypeSpacing kSpacings[] = {{Dtype::fp64, "fp64", 52, -1022},
                                      {Dtype::fp32, "fp32", 23, -126},
                                      {Dtype::fp16, "fp16", 10, -14},
                                      {Dtype::bf16, "bf16", 7, -126}};

TEST(Checks, TheErrorIsCountedInUlpsOfTheSitesDtypeWithTheSubnormalSpacingBelowItsSmallestNormal) {
  for (const DtypeSpacing& dtype : kSpacings) {
    // The spacing at 1 is 2^-fraction_bits; at 0 and below the smallest normal, the subnormal
    // spacing 2^(smallest_exponent - fraction_bits). An error of one spacing is one ulp, and a
    // tolerance of 0 makes the ratio "inf (tolerance 0)".
    const Wide subnormal_spacing = ldexp(Wide(1), dtype.smallest_exponent - dtype.fraction_bits);
    const Wide below_normal = ldexp(Wide(1), dtype.smallest_exponent - 2);
    const std::vector<std::pair<Wide, Wide>> expected_and_spacing{
        {Wide(1), ldexp(Wide(1), -dtype.fraction_bits)}, {Wide(0), subnormal_spacing}, {below_normal, subnormal_spacing}};
    for (const auto& [expected, spacing] : expected_and_spacing) {
      const std::string text =
          failure_of([&] { require_close(expected + spacing, expected, Wide(0), site_in(dtype.dtype)); });
      EXPECT_TRUE(contains(text, fmt::format(" = 1 ulp({}) = inf (tolerance 0) x the tolerance", dtype.name)))
          << dtype.name << " at " << static_cast<double>(expected) << ": " << text;
    }
  }
}

TEST(Checks, SiteTextsNameTheElementItsInputsAndTheCase) {
  EXPECT_EQ(element_text(5), "element 5");
  Evaluation with_input = evaluation({Wide(0), Wide(0), Wide(0), Wide(0)}, {Wide(0), Wide(0), Wide(0), Wide(0)});
  EXPECT_EQ(input_text(with_input, 0, 1), "(none)");
  with_input.input = {Wide(1), Wide(2), Wide(0.5), Wide(0)};
  EXPECT_EQ(input_text(with_input, 1, 1), "0x1p+1 (2)");
  EXPECT_EQ(input_text(with_input, 0, 2), "x0 = 0x1p+0 (1), x2 = 0x1p-1 (0.5)");
  // The case text replays the call: the spec's canonical text, then the point as the family writes it.
  with_input.point.c[0] = 7;
  EXPECT_EQ(with_input.case_text(), with_input.spec.canonical() + " at 7");
}

// An evaluator that returns fixed values and bounds, or throws from one of its two calls.
class FixedEvaluator final : public Evaluator {
 public:
  enum class Throws { never, from_evaluate, from_error_bounds };
  FixedEvaluator(std::vector<Wide> values, std::vector<Wide> bounds, Throws throws = Throws::never)
      : values_(std::move(values)), bounds_(std::move(bounds)), throws_(throws) {}
  std::vector<Wide> evaluate(const Point&, std::span<const Wide>) const override {
    if (throws_ == Throws::from_evaluate) throw std::runtime_error("no values here");
    return values_;
  }
  std::vector<Wide> error_bounds(const Point&, std::span<const Wide>) const override {
    if (throws_ == Throws::from_error_bounds) throw std::runtime_error("no bounds here");
    return bounds_;
  }

 private:
  std::vector<Wide> values_, bounds_;
  Throws throws_;
};

TEST(Checks, EvaluateKeepsValuesAndBoundsApartAndReportsAThrowAsAFailure) {
  const FixedEvaluator fixed({Wide(1), Wide(2), Wide(3), Wide(4)}, {Wide(0), Wide(0.5), Wide(0), Wide(0)});
  const Evaluation evaluated = evaluate(fixed, rope4(), Point{}, {});
  EXPECT_EQ(evaluated.values, (std::vector<Wide>{Wide(1), Wide(2), Wide(3), Wide(4)}));
  EXPECT_EQ(evaluated.bounds, (std::vector<Wide>{Wide(0), Wide(0.5), Wide(0), Wide(0)}));
  for (const auto& [throws, message] : {std::pair{FixedEvaluator::Throws::from_evaluate, "no values here"},
                                        std::pair{FixedEvaluator::Throws::from_error_bounds, "no bounds here"}}) {
    const FixedEvaluator throwing({}, {}, throws);
    const std::string text = failure_of([&] { evaluate(throwing, rope4(), Point{}, {}); });
    EXPECT_TRUE(contains(text, "the implementation evaluates every point the scheme defines\n  case: " +
                                   rope4().canonical() + " at 0\n  the whole call; input 0 values\n  threw: " + message))
        << text;
  }
}

TEST(RotarySupport, APairsGainIsItsImageNormPlusItsBoundsNorm) {
  // Pair (0, 1) comes back as (3, 4) with bounds (0.375, 0.5): norm 5, bound norm 0.625 (both
  // 3-4-5 triangles, exact in binary128); pair (2, 3) as (0, 2) with no error.
  const FixedEvaluator fixed({Wide(3), Wide(4), Wide(0), Wide(2)}, {Wide(0.375), Wide(0.5), Wide(0), Wide(0)});
  EXPECT_EQ(pair_gains(fixed, rope4(), Point{}), (std::vector<Wide>{Wide(5.625), Wide(2)}));
}

TEST(RotarySupport, PointsAddAndNegateOnEveryAxis) {
  const Point a{{1, 2, 3}}, b{{10, 20, 30}};
  EXPECT_EQ(add_points(a, b), (Point{{11, 22, 33}}));
  EXPECT_EQ(negated(a), (Point{{-1, -2, -3}}));
}

TEST(Checks, AnInnerProductsToleranceIsItsWorstCaseErrorPlusItsOwnRounding) {
  // Every value and bound positive, so the largest error is every element off by its whole
  // bound in the same direction: <a + B_a, b + B_b> - <a, b>. All dyadic, so exact.
  const Evaluation a = evaluation({Wide(3), Wide(4), Wide(0), Wide(0)}, {Wide(0.5), Wide(0.25), Wide(0), Wide(0)});
  const Evaluation b = evaluation({Wide(2), Wide(1), Wide(0), Wide(0)}, {Wide(0.125), Wide(0.5), Wide(0), Wide(0)});
  const Evaluation a_off = evaluation({Wide(3.5), Wide(4.25), Wide(0), Wide(0)}, {Wide(0), Wide(0), Wide(0), Wide(0)});
  const Evaluation b_off = evaluation({Wide(2.125), Wide(1.5), Wide(0), Wide(0)}, {Wide(0), Wide(0), Wide(0), Wide(0)});
  const std::vector<std::size_t> elements{0, 1};
  const InnerProduct product = inner_product(a, b, elements);
  const Wide worst_error = inner_product(a_off, b_off, elements).value - product.value;
  EXPECT_EQ(product.value, Wide(10));
  // n products and n additions round at most n + 2 times in the summed magnitude sum |a b| = 10.
  EXPECT_EQ(product.tolerance, worst_error + check_rounding(Wide(10), 4));
}

TEST(Checks, ARelationWhoseEveryTermIsUnconstrainedComparesNothing) {
  const Evaluation unbounded = evaluation({Wide(1), Wide(2), Wide(3), Wide(4)}, {kInfinity, Wide(0), Wide(0), kInfinity});
  const Evaluation other = evaluation({Wide(1), Wide(1), Wide(1), Wide(1)}, {Wide(0), Wide(0), Wide(0), Wide(0)});
  // Nothing compared leaves the case wholly unconstrained, so check_case() discards it.
  const VerdictTally before = verdict_tally();
  check_case_expecting_discard([&] {
    require_equal_products_by_term(unbounded, other, other, other, {{0, 1}, {2, 3}}, "test relation");
  });
  EXPECT_EQ(verdict_tally().checked, before.checked);
}

TEST(Checks, ARelationsFailureCountsTheTermsItKeptAndLeftOut) {
  // Element 3 is unconstrained, so its term drops; the pair (0, 1) disagrees (1 + 1 against 2 + 1).
  const Evaluation a = evaluation({Wide(1), Wide(1), Wide(1), Wide(1)}, {Wide(0), Wide(0), Wide(0), kInfinity});
  const Evaluation b = evaluation({Wide(1), Wide(1), Wide(1), Wide(1)}, {Wide(0), Wide(0), Wide(0), Wide(0)});
  const Evaluation c = evaluation({Wide(2), Wide(1), Wide(1), Wide(1)}, {Wide(0), Wide(0), Wide(0), Wide(0)});
  const std::string text = failure_of(
      [&] { require_equal_products_by_term(a, b, c, b, {{0, 1}, {2}, {3}}, "test relation", "the four calls"); });
  EXPECT_TRUE(contains(text, "  case: the four calls\n  the inner product over 2 of 3 terms (1 unconstrained, left out)"))
      << text;
}

TEST(Checks, IdenticalMeansTheSameSignAndNaNMatchesOnlyNaN) {
  const Wide nan = std::numeric_limits<Wide>::quiet_NaN();
  EXPECT_TRUE(contains(failure_of([] { require_identical(-Wide(0), Wide(0), site_in(Dtype::fp64)); }), "must be identical"));
  EXPECT_TRUE(contains(failure_of([&] { require_identical(nan, Wide(0), site_in(Dtype::fp64)); }), "must be identical"));
  EXPECT_EQ(failure_of([&] { require_identical(nan, nan, site_in(Dtype::fp64)); }), "");
  EXPECT_EQ(failure_of([] { require_identical(-Wide(0), -Wide(0), site_in(Dtype::fp64)); }), "");
}

TEST(Checks, APairNormOfZeroOrInfinityIsThatMagnitudeNotNaN) {
  // Scaling by the larger magnitude would divide 0 by 0 or infinity by infinity.
  EXPECT_EQ(pair_norm({Wide(0), Wide(0)}, 0, 1), Wide(0));
  EXPECT_EQ(pair_norm({Wide(1), -kInfinity}, 0, 1), kInfinity);
}

TEST(Checks, UnroundedValuesCarryZeroBoundsAndNoInput) {
  const Evaluation exact = unrounded(rope4(), {Wide(1), Wide(2), Wide(3), Wide(4)});
  EXPECT_EQ(exact.values, (std::vector<Wide>{Wide(1), Wide(2), Wide(3), Wide(4)}));
  EXPECT_EQ(exact.bounds, std::vector<Wide>(4, Wide(0)));
  EXPECT_TRUE(exact.input.empty());
}

}  // namespace
}  // namespace peconform::checks_test
