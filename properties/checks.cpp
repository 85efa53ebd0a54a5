#include "properties/checks.hpp"

#include <fmt/format.h>
#include <quadmath.h>
#include <rapidcheck.h>

#include <algorithm>
#include <utility>

#include "properties/generators.hpp"
#include "reference/rotary.hpp"

namespace peconform {
namespace {

std::string hex_text(const Wide& value) {
  char buffer[64];
  quadmath_snprintf(buffer, sizeof buffer, "%Qa", value.backend().value());
  return buffer;
}

std::string decimal_text(const Wide& value) {
  char buffer[64];
  quadmath_snprintf(buffer, sizeof buffer, "%.36Qg", value.backend().value());
  return buffer;
}

std::string value_text(const Wide& value) { return fmt::format("{} ({})", hex_text(value), decimal_text(value)); }

// One unit in the last place of `value` in `dtype`, subnormal spacing included.
Wide dtype_ulp(const Wide& value, Dtype dtype) {
  int mantissa_bits = 23, min_exponent = -126;
  switch (dtype) {
    case Dtype::fp64: mantissa_bits = 52; min_exponent = -1022; break;
    case Dtype::fp32: break;
    case Dtype::fp16: mantissa_bits = 10; min_exponent = -14; break;
    case Dtype::bf16: mantissa_bits = 7; break;
  }
  int exponent = min_exponent + 1;
  if (value != 0 && isfinite(value)) frexp(value, &exponent);
  return ldexp(Wide(1), std::max(exponent - 1, min_exponent) - mantissa_bits);
}

[[noreturn]] void fail(const Site& site, const std::string& comparison) {
  const std::string failure =
      fmt::format("{}\n  case: {}\n  {}; input {}\n{}\n  seed: {} (RapidCheck's reproduce string follows the run)",
                  site.relation, site.case_text, site.element, site.input, comparison,
                  rc::detail::configuration().testParams.seed);
  RC_FAIL(failure);
}

// The counts of the run, and of the case check_case() is running (none outside one).
struct CaseCounts {
  std::uint64_t checked = 0, unconstrained = 0;
};
thread_local VerdictTally run_tally;
thread_local CaseCounts* current_case = nullptr;

void count_checked() {
  ++run_tally.checked;
  if (current_case != nullptr) ++current_case->checked;
}

bool same_special(const Wide& a, const Wide& b) {
  if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
  return a == b && signbit(a) == signbit(b);
}

}  // namespace

VerdictTally verdict_tally() { return run_tally; }

void count_unconstrained(std::uint64_t terms) {
  run_tally.unconstrained += terms;
  if (current_case != nullptr) current_case->unconstrained += terms;
}

void check_case(const std::function<void()>& check) {
  CaseCounts counts;
  struct Restore {
    CaseCounts* outer;
    ~Restore() { current_case = outer; }
  } restore{std::exchange(current_case, &counts)};
  check();
  if (counts.unconstrained == 0) return;
  if (counts.checked == 0) {
    ++run_tally.wholly_unconstrained_cases;
    RC_DISCARD("every element of the case is unconstrained");
  }
  ++run_tally.partly_unconstrained_cases;
  RC_TAG("unconstrained elements");
}

std::string Evaluation::case_text() const {
  return fmt::format("{} at {}", spec.canonical(), format_point(spec.family, point));
}

Evaluation evaluate(const Evaluator& evaluator, const Spec& spec, const Point& point, std::vector<Wide> input) {
  Evaluation out{spec, point, std::move(input), {}, {}};
  try {
    out.values = evaluator.evaluate(point, out.input);
    out.bounds = evaluator.error_bounds(point, out.input);
  } catch (const std::exception& error) {
    fail(Site{"the implementation evaluates every point the scheme defines", out.case_text(), "the whole call",
              fmt::format("{} values", out.input.size()), spec.dtype},
         fmt::format("  threw: {}", error.what()));
  }
  return out;
}

void require_close(const Wide& actual, const Wide& expected, const Wide& tolerance, const SiteFunction& site) {
  if (!isfinite(tolerance)) {  // an unconstrained element (infinite bound, or 0 times one)
    count_unconstrained(1);
    return;
  }
  count_checked();
  if (!isfinite(actual) || !isfinite(expected)) {
    if (same_special(actual, expected)) return;
    fail(site(), fmt::format("  expected {}\n  actual   {}\n  NaN/Inf mismatch (classified before any numeric error)",
                             value_text(expected), value_text(actual)));
  }
  const Wide error = abs(actual - expected);
  if (error <= tolerance) return;
  const Site where = site();
  const Wide ulps = error / dtype_ulp(expected, where.dtype);
  constexpr const char* kDtypeNames[] = {"fp64", "fp32", "fp16", "bf16"};
  const std::string ratio = tolerance > 0 ? decimal_text(error / tolerance) : std::string("inf (tolerance 0)");
  fail(where, fmt::format("  expected {}\n  actual   {}\n  error    {} = {} ulp({}) = {} x the tolerance {}",
                          value_text(expected), value_text(actual), value_text(error),
                          static_cast<double>(ulps), kDtypeNames[static_cast<int>(where.dtype)], ratio, value_text(tolerance)));
}

void require_holds(bool holds, const std::string& observed, const SiteFunction& site) {
  count_checked();
  if (!holds) fail(site(), "  observed " + observed);
}

void require_at_most(const Wide& value, const Wide& limit, const SiteFunction& site) {
  if (!isfinite(limit)) {
    count_unconstrained(1);
    return;
  }
  count_checked();
  if (value <= limit) return;
  fail(site(), fmt::format("  value {}\n  limit {}\n  exceeds the limit", value_text(value), value_text(limit)));
}

void require_identical(const Wide& actual, const Wide& expected, const SiteFunction& site) {
  count_checked();
  if (same_special(actual, expected)) return;
  fail(site(), fmt::format("  expected {}\n  actual   {}\n  must be identical (value and sign)", value_text(expected),
                           value_text(actual)));
}

std::string element_text(std::size_t element) { return fmt::format("element {}", element); }

std::string input_text(const Evaluation& evaluation, std::size_t a, std::size_t b) {
  if (evaluation.input.empty()) return "(none)";
  if (a == b) return value_text(evaluation.input[a]);
  return fmt::format("x{} = {}, x{} = {}", a, value_text(evaluation.input[a]), b, value_text(evaluation.input[b]));
}

std::vector<std::pair<std::size_t, std::size_t>> rotary_pairs(const Spec& spec) {
  const auto [start, dims] = rotary_slice(spec);
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (int pair = 0; pair < dims / 2; ++pair) out.push_back(rotary_pair_elements(spec.layout, start, dims, pair));
  return out;
}

std::vector<std::pair<std::size_t, std::size_t>> rotary_input_pairs(const Spec& spec) {
  const auto [start, dims] = rotary_slice(spec);
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (int pair = 0; pair < dims / 2; ++pair) out.push_back(rotary_pair_inputs(spec.layout, start, dims, pair));
  return out;
}

std::vector<std::size_t> pass_through_elements(const Spec& spec) {
  const auto [start, dims] = rotary_slice(spec);
  std::vector<std::size_t> out;
  for (int e = 0; e < spec.d; ++e)
    if (e < start || e >= start + dims) out.push_back(static_cast<std::size_t>(e));
  return out;
}

std::vector<std::pair<std::size_t, std::size_t>> table_pairs(const Spec& spec) {
  const Layout layout = spec.family == Family::xl ? Layout::half : spec.layout;
  const int n = spec.d / 2;
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (int i = 0; i < n; ++i) out.push_back(rotary_pair_elements(layout, 0, 2 * n, i));
  return out;
}

// sqrt(a^2 + b^2) scaled by the larger magnitude, so that pairs near binary128's largest or
// smallest values neither overflow nor underflow when squared.
Wide hypotenuse(const Wide& a, const Wide& b) {
  const Wide scale = std::max(abs(a), abs(b));
  if (scale == 0 || !isfinite(scale)) return scale;
  const Wide x = a / scale, y = b / scale;
  return scale * sqrt(x * x + y * y);
}

std::vector<std::size_t> pair_permutation(const std::vector<std::pair<std::size_t, std::size_t>>& from,
                                          const std::vector<std::pair<std::size_t, std::size_t>>& to, int d) {
  std::vector<std::size_t> out(static_cast<std::size_t>(d));
  for (std::size_t e = 0; e < out.size(); ++e) out[e] = e;
  for (std::size_t i = 0; i < from.size(); ++i) {
    out[from[i].first] = to[i].first;
    out[from[i].second] = to[i].second;
  }
  return out;
}

Wide pair_bound(const Evaluation& evaluation, std::size_t a, std::size_t b) {
  return hypotenuse(evaluation.bounds[a], evaluation.bounds[b]);
}

Wide pair_norm(const std::vector<Wide>& values, std::size_t a, std::size_t b) { return hypotenuse(values[a], values[b]); }

InnerProduct inner_product(const Evaluation& a, const Evaluation& b, const std::vector<std::size_t>& elements) {
  InnerProduct out{Wide(0), Wide(0)};
  Wide magnitude(0);
  for (std::size_t e : elements) {
    out.value += a.values[e] * b.values[e];
    magnitude += abs(a.values[e] * b.values[e]);
    out.tolerance += a.bounds[e] * abs(b.values[e]) + (abs(a.values[e]) + a.bounds[e]) * b.bounds[e];
  }
  out.tolerance += check_rounding(magnitude, static_cast<int>(elements.size()) + 2);
  return out;
}

std::vector<std::vector<std::size_t>> rotary_terms(const Spec& spec) {
  std::vector<std::vector<std::size_t>> terms;
  for (const auto& [a, b] : rotary_pairs(spec)) terms.push_back({a, b});
  for (std::size_t e : pass_through_elements(spec)) terms.push_back({e});
  return terms;
}

void require_equal_products_by_term(const Evaluation& a, const Evaluation& b, const Evaluation& c, const Evaluation& d,
                                    const std::vector<std::vector<std::size_t>>& terms, const std::string& relation,
                                    const std::string& case_text) {
  std::vector<std::size_t> kept;
  std::uint64_t dropped = 0;
  for (const std::vector<std::size_t>& term : terms) {
    const bool constrained = std::all_of(term.begin(), term.end(), [&](std::size_t e) {
      return isfinite(a.bounds[e]) && isfinite(b.bounds[e]) && isfinite(c.bounds[e]) && isfinite(d.bounds[e]);
    });
    if (constrained)
      kept.insert(kept.end(), term.begin(), term.end());
    else
      ++dropped;
  }
  count_unconstrained(dropped);
  if (kept.empty()) return;
  const InnerProduct lhs = inner_product(a, b, kept), rhs = inner_product(c, d, kept);
  require_close(lhs.value, rhs.value, lhs.tolerance + rhs.tolerance, [&] {
    return Site{relation,
                case_text.empty() ? fmt::format("{}; {}; {}; {}", a.case_text(), b.case_text(), c.case_text(), d.case_text()) : case_text,
                fmt::format("the inner product over {} of {} terms ({} unconstrained, left out)", terms.size() - dropped,
                            terms.size(), dropped),
                "(see case)", Dtype::fp64};
  });
}

void require_same_values(const Evaluation& lhs, const Evaluation& rhs, const std::string& relation) {
  RC_ASSERT(lhs.values.size() == rhs.values.size());
  for (std::size_t e = 0; e < lhs.values.size(); ++e)
    require_close(lhs.values[e], rhs.values[e], lhs.bounds[e] + rhs.bounds[e] + check_rounding(abs(rhs.values[e]), 2), [&] {
      return Site{relation, lhs.case_text() + " vs " + rhs.case_text(), element_text(e), input_text(lhs, e, e),
                  lhs.spec.dtype};
    });
}

std::vector<Wide> finite_input(const Spec& spec, std::size_t count) {
  std::vector<Wide> input = *gen_values(spec.dtype, count, Finiteness::finite_only);
  RC_TAG(value_kinds(input, spec.dtype));
  return input;
}

std::vector<Wide> comparable_input(const Spec& spec, std::size_t count) {
  std::vector<Wide> input = *gen_comparable_values(spec.dtype, count);
  RC_TAG(value_kinds(input, spec.dtype));
  return input;
}

Evaluation unrounded(const Spec& spec, std::vector<Wide> values) {
  std::vector<Wide> zeros(values.size(), Wide(0));
  return Evaluation{spec, Point{}, {}, std::move(values), std::move(zeros)};
}

}  // namespace peconform
