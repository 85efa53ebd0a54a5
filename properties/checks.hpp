#pragma once
// What every property compares with: evaluations that carry their implementation's error
// bounds, tolerances derived from those bounds, and failure messages that replay the case.
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "backends/implementation.hpp"

namespace peconform {

// binary128's unit roundoff: the properties' own arithmetic rounds in it.
inline const Wide kCheckUnit = ldexp(Wide(1), -113);
// What `operations` roundings of the properties' own binary128 arithmetic can add to a
// quantity of size `magnitude`.
inline Wide check_rounding(const Wide& magnitude, int operations) { return magnitude * Wide(operations) * kCheckUnit; }

// One call of an implementation: the case, what came back, and the bound it claims per element.
struct Evaluation {
  Spec spec;
  Point point;
  std::vector<Wide> input, values, bounds;
  std::string case_text() const;  // "spec at point", the string that replays the call
};

Evaluation evaluate(const Evaluator& evaluator, const Spec& spec, const Point& point, std::vector<Wide> input);

// Where a comparison sits, for its failure message; built only when the comparison fails.
struct Site {
  std::string relation;   // the statement that failed
  std::string case_text;  // the evaluations involved
  std::string element;    // which element, pair or head
  std::string input;      // the input values that element depends on
  Dtype dtype = Dtype::fp32;
};
using SiteFunction = std::function<Site()>;

// Unconstrained elements (DESIGN.md section 2). An implementation reports +inf as the bound of
// an element it does not constrain: the bound reached the scale it is measured against (A r
// for an element of a rotated pair, 1 for a table entry, |b| for a bias) or the kernel makes
// no claim (near its dtype's overflow). Such an element is never a pass: a comparison whose
// tolerance is not finite checks nothing and is counted as unconstrained, and the rest of the
// relation is checked. with_verdicts() turns the counts of one case into its verdict.
struct VerdictTally {
  std::uint64_t checked = 0;                     // comparisons made (finite tolerance, identity, predicate)
  std::uint64_t unconstrained = 0;               // elements or terms left out as unconstrained
  std::uint64_t partly_unconstrained_cases = 0;  // cases that checked the rest; tagged "unconstrained elements"
  std::uint64_t wholly_unconstrained_cases = 0;  // cases with nothing to check; discarded, never passed
};
// The counts so far on this thread (properties run on one), for tests and reports.
VerdictTally verdict_tally();
// Counts `terms` elements or terms a relation left out as unconstrained.
void count_unconstrained(std::uint64_t terms);
// Runs one case of a property and gives it a verdict beyond pass or fail: a case that left
// some comparisons out as unconstrained is tagged "unconstrained elements" (RC_TAG, so
// RapidCheck's distribution shows their share); a case whose every comparison was
// unconstrained is discarded (RC_DISCARD), so it is counted apart and never as a pass.
void check_case(const std::function<void()>& check);
// A property's check with its cases judged by check_case(), as the catalog stores it.
template <void (*Check)(const Implementation&)> void with_verdicts(const Implementation& implementation) {
  check_case([&implementation] { Check(implementation); });
}

// Fails the property (RC_FAIL) unless |actual - expected| <= tolerance, printing the site, both
// values in hex and decimal, the error in ULPs of the spec's dtype and as a ratio to the
// tolerance, and the seed. A tolerance that is not finite (from an unconstrained element)
// checks nothing: the comparison is counted as unconstrained.
void require_close(const Wide& actual, const Wide& expected, const Wide& tolerance, const SiteFunction& site);
// Fails unless `holds`, printing the site and what was observed.
void require_holds(bool holds, const std::string& observed, const SiteFunction& site);
// Fails unless value <= limit; a limit that is not finite is counted as unconstrained, as above.
void require_at_most(const Wide& value, const Wide& limit, const SiteFunction& site);
// Same value and sign, NaN matching NaN: what pass-through dims, gathers and indices promise.
void require_identical(const Wide& actual, const Wide& expected, const SiteFunction& site);

// Element e of `evaluation` for a site: "element 5".
std::string element_text(std::size_t element);
// The input values for the pair of elements (a, b), or for one element when a == b.
std::string input_text(const Evaluation& evaluation, std::size_t a, std::size_t b);

// The rotated pairs of a rotary spec as the element pairs (a, b) they are written to, in pair order.
std::vector<std::pair<std::size_t, std::size_t>> rotary_pairs(const Spec& spec);
// The same pairs as the elements they are read from (other than rotary_pairs only under
// layout=interleaved-to-half).
std::vector<std::pair<std::size_t, std::size_t>> rotary_input_pairs(const Spec& spec);
// The elements a rotary spec passes through unchanged.
std::vector<std::size_t> pass_through_elements(const Spec& spec);
// The frequency pairs (sin-or-cos element, its partner) of a sinusoidal or xl row.
std::vector<std::pair<std::size_t, std::size_t>> table_pairs(const Spec& spec);

// The map of elements that sends pair i of `from` to pair i of `to` (first to first, second to
// second) and leaves every element outside the pairs where it is.
std::vector<std::size_t> pair_permutation(const std::vector<std::pair<std::size_t, std::size_t>>& from,
                                          const std::vector<std::pair<std::size_t, std::size_t>>& to, int d);

// A pair's error as a vector from its two elements' bounds.
Wide pair_bound(const Evaluation& evaluation, std::size_t a, std::size_t b);
Wide pair_norm(const std::vector<Wide>& values, std::size_t a, std::size_t b);

// <a, b> over `elements`, with the tolerance its two evaluations' bounds and the summation's own
// rounding allow: sum of B_a|b| + (|a| + B_a) B_b, plus n u sum |a b| for n elements.
struct InnerProduct {
  Wide value;
  Wide tolerance;
};
InnerProduct inner_product(const Evaluation& a, const Evaluation& b, const std::vector<std::size_t>& elements);

// The terms a rotary inner product splits into: each rotated pair, then each pass-through
// element alone. A rotation acts pair by pair, so a relation between inner products of
// rotated vectors (<(R_m q)_i, (R_n k)_i> = <(R_(m-n) q)_i, k_i>) holds term by term.
std::vector<std::vector<std::size_t>> rotary_terms(const Spec& spec);
// <a, b> = <c, d> where the relation holds term by term: a term with an unconstrained element
// in any of the four evaluations is dropped and counted, the others are summed on both sides
// and compared within both tolerances. When every term drops, nothing is compared. A failure
// names the case as `case_text`, or as the four evaluations' case texts when it is empty.
void require_equal_products_by_term(const Evaluation& a, const Evaluation& b, const Evaluation& c, const Evaluation& d,
                                    const std::vector<std::vector<std::size_t>>& terms, const std::string& relation,
                                    const std::string& case_text = {});

// Fails unless two evaluations agree element by element within both bounds.
void require_same_values(const Evaluation& lhs, const Evaluation& rhs, const std::string& relation);

// `count` finite values of `spec`'s dtype, tagged with what they hold.
std::vector<Wide> finite_input(const Spec& spec, std::size_t count);
// The same for one side of an inner product: gen_comparable_values(), so that several pairs
// contribute at comparable magnitudes.
std::vector<Wide> comparable_input(const Spec& spec, std::size_t count);
// Values that carry no error of their own (an input vector on one side of an inner product).
Evaluation unrounded(const Spec& spec, std::vector<Wide> values);

}  // namespace peconform
