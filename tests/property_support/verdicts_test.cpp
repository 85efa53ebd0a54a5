// Unconstrained is a verdict, not a pass: a comparison against an infinite bound is counted
// and checks nothing, a relation drops its unconstrained terms and still checks the rest, and
// a property whose every comparison is unconstrained does not pass.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <functional>
#include <limits>

#include "properties/checks.hpp"
#include "property_support/evaluations.hpp"

namespace peconform {
namespace {

using support_test::evaluation, support_test::kInfinity;

Site test_site() { return Site{"test relation", "test case", "element 0", "(none)", Dtype::fp64}; }

// Runs `body` as a property through check_case(); true when RapidCheck passed it.
bool property_passes(const std::function<void()>& body) {
  return rc::check("verdicts", [&body] { check_case(body); });
}

TEST(Verdicts, AComparisonAgainstAnInfiniteBoundIsCountedAsUnconstrained) {
  const VerdictTally before = verdict_tally();
  check_case([] {
    require_close(Wide(1), Wide(1), Wide(0), test_site);
    require_close(Wide(1), Wide(5), kInfinity, test_site);
    require_at_most(Wide(3), kInfinity, test_site);
  });
  const VerdictTally after = verdict_tally();
  EXPECT_EQ(after.checked - before.checked, 1u);
  EXPECT_EQ(after.unconstrained - before.unconstrained, 2u);
  EXPECT_EQ(after.partly_unconstrained_cases - before.partly_unconstrained_cases, 1u);
}

TEST(Verdicts, APropertyWhoseEveryComparisonIsUnconstrainedDoesNotPass) {
  const VerdictTally before = verdict_tally();
  EXPECT_FALSE(property_passes([] { require_close(Wide(1), Wide(1), kInfinity, test_site); }));
  const VerdictTally after = verdict_tally();
  EXPECT_GT(after.wholly_unconstrained_cases, before.wholly_unconstrained_cases);
  EXPECT_EQ(after.checked, before.checked);
}

// Pair (0, 1) has an unconstrained element on the left and disagrees wildly; pair (2, 3)
// carries `right_pair_error` on one side.
bool products_agree(const Wide& right_pair_error) {
  const Evaluation a = evaluation({Wide(1), Wide(2), Wide(3), Wide(4)}, {kInfinity, Wide(0), Wide(0), Wide(0)});
  const Evaluation b = evaluation({Wide(1), Wide(1), Wide(1), Wide(1)}, {Wide(0), Wide(0), Wide(0), Wide(0)});
  const Evaluation c = evaluation({Wide(100), Wide(-7), Wide(3), Wide(4) + right_pair_error}, {Wide(0), Wide(0), Wide(0), Wide(0)});
  return property_passes([&] { require_equal_products_by_term(a, b, c, b, {{0, 1}, {2, 3}}, "test relation"); });
}

TEST(Verdicts, ARelationDropsItsUnconstrainedTermsAndChecksTheRest) {
  const VerdictTally before = verdict_tally();
  EXPECT_TRUE(products_agree(Wide(0)));
  const VerdictTally after = verdict_tally();
  EXPECT_GT(after.unconstrained, before.unconstrained);
  EXPECT_GT(after.partly_unconstrained_cases, before.partly_unconstrained_cases);
  EXPECT_EQ(after.wholly_unconstrained_cases, before.wholly_unconstrained_cases);
  EXPECT_FALSE(products_agree(ldexp(Wide(1), -20)));  // far past a few units of 2^-113
}

TEST(Verdicts, RotaryTermsArePairsThenPassThroughElements) {
  const std::vector<std::vector<std::size_t>> terms = rotary_terms(Spec::parse("rope(d=7,rot=4,layout=half)"));
  const std::vector<std::vector<std::size_t>> expected{{0, 2}, {1, 3}, {4}, {5}, {6}};
  EXPECT_EQ(terms, expected);
}

}  // namespace
}  // namespace peconform
