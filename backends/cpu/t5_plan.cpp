#include "backends/cpu/t5_plan.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <map>

#include "backends/cpu/quad.hpp"
#include "spec/spec_error.hpp"

namespace peconform::cpu {
namespace {

// n's prime factorisation, prime -> exponent (trial division: n is a distance below 2^40 at most,
// and the plan factors only E, max_distance and the distances its search visits).
std::map<std::int64_t, std::int64_t> prime_exponents(std::int64_t n) {
  std::map<std::int64_t, std::int64_t> exponents;
  for (std::int64_t p = 2; p * p <= n; ++p)
    while (n % p == 0) {
      ++exponents[p];
      n /= p;
    }
  if (n > 1) ++exponents[n];
  return exponents;
}

// Whether distance n reaches bucket E + steps, i.e. ln(n/E) (H - E) >= steps ln(M/E) with
// M = max_distance. The two sides are compared in binary128; where they agree to 2^-100 of their
// size, the comparison is decided exactly: the sides are equal only when
// n^(H-E) E^steps = M^steps E^(H-E), an identity between integers that the primes' exponents
// settle without forming the (huge) powers. Elsewhere a difference below 2^-100 that is not an
// equality would need a linear form in three logarithms of integers under 2^40 to vanish to 100
// bits, far closer than such forms come at these sizes. `log_range` is ln(M/E) in binary128,
// formed once per plan.
bool reaches(std::int64_t n, std::int64_t steps, std::int64_t exact, std::int64_t half, std::int64_t max_distance,
             Quad log_range) {
  const std::int64_t span = half - exact;
  const Quad left = logq(static_cast<Quad>(n) / exact) * span;
  const Quad right = log_range * steps;
  const Quad tolerance = ldexpq(fmaxq(fabsq(left), fabsq(right)), -100);
  if (fabsq(left - right) > tolerance) return left > right;
  std::map<std::int64_t, std::int64_t> left_exponents, right_exponents;
  for (const auto& [p, e] : prime_exponents(n)) left_exponents[p] += span * e;
  for (const auto& [p, e] : prime_exponents(exact)) left_exponents[p] += steps * e;
  for (const auto& [p, e] : prime_exponents(max_distance)) right_exponents[p] += steps * e;
  for (const auto& [p, e] : prime_exponents(exact)) right_exponents[p] += span * e;
  return left_exponents == right_exponents || left > right;
}

}  // namespace

T5Plan make_t5_plan(const Spec& spec) {
  if (spec.family != Family::t5) throw SpecError(fmt::format("{} is not t5", family_name(spec.family)));
  const std::int64_t half = spec.bidirectional ? spec.buckets / 2 : spec.buckets;
  T5Plan plan{spec, half / 2, {}};
  const std::int64_t max_distance = spec.max_distance;
  // Every bucket up to H - 1 is reached by n = max_distance (the ratio is then 1 >= steps/(H - E)).
  const std::int64_t beyond = std::max<std::int64_t>(max_distance, plan.exact) + 1;
  const Quad log_range = logq(static_cast<Quad>(max_distance) / plan.exact);
  for (std::int64_t bucket = plan.exact + 1; bucket < half; ++bucket) {
    const std::int64_t steps = bucket - plan.exact;
    auto at_least = [&](std::int64_t n) { return reaches(n, steps, plan.exact, half, max_distance, log_range); };
    // at_least(high) holds, at_least(low) does not. A bucket starts no earlier than the one
    // before it (a distance that reaches E + steps reaches every bucket below), so the search
    // starts just below the last start.
    std::int64_t low = plan.bucket_start.empty() ? plan.exact : plan.bucket_start.back() - 1, high = beyond;
    if (!at_least(high)) break;
    while (low + 1 < high) {
      const std::int64_t middle = low + (high - low) / 2;
      (at_least(middle) ? high : low) = middle;
    }
    plan.bucket_start.push_back(high);
  }
  return plan;
}

}  // namespace peconform::cpu
