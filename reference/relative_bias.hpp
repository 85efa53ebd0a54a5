#pragma once
// The relative families that produce a bias or an index per (query i, key j): ALiBi, T5
// buckets and Shaw clipping. Definitions: ../shared/notes/variants.md sections 5-7.
#include <algorithm>
#include <boost/multiprecision/gmp.hpp>
#include <cstdint>
#include <limits>
#include <vector>

#include "reference/real_types.hpp"
#include "spec/spec.hpp"

namespace peconform {

// ALiBi head slopes (ofirpress/attention_with_linear_biases get_slopes): 2^(-8h/n) for n a
// power of two; otherwise those of the largest power of two c below n, then every other
// slope of the 2c series until there are n.
template <class Real> std::vector<Real> alibi_slopes(int heads) {
  auto series = [](int n) {
    std::vector<Real> out;
    for (int h = 1; h <= n; ++h) out.push_back(pow(Real(2), Real(-8 * h) / Real(n)));
    return out;
  };
  int power = 1;
  while (power * 2 <= heads) power *= 2;
  std::vector<Real> slopes = series(power);
  const std::vector<Real> finer = series(2 * power);
  for (std::size_t k = 0; slopes.size() < static_cast<std::size_t>(heads); k += 2) slopes.push_back(finer[k]);
  return slopes;
}

// Bias per head: -m|i-j| (symmetric), or -m(i-j) for j <= i and -inf (masked) for j > i
// (causal); under key and last-key, m(j - anchor) whatever the query, the anchor being 0 (key:
// fairseq's +m*j, which differs from causal by a per-row constant that softmax cancels) or the
// call's last key (last-key; alibi_anchor).
template <class Real>
std::vector<Real> alibi_bias(const Spec& spec, const std::vector<Real>& slopes, std::int64_t query, std::int64_t key,
                             std::int64_t anchor) {
  std::vector<Real> out;
  for (const Real& slope : slopes) {
    if (measures_the_key(spec.mode))
      out.push_back(slope * Real(key - anchor));
    else if (spec.mode == AlibiMode::causal && key > query)
      out.push_back(-std::numeric_limits<Real>::infinity());
    else
      out.push_back(-slope * Real(query >= key ? query - key : key - query));
  }
  return out;
}

struct T5Bucket {
  std::int64_t bucket = 0;
  // True where the logarithmic formula lands exactly on an integer (|rp| = 16, 32, 64 with the
  // bidirectional defaults): a kernel whose float32 log lands one ulp low picks the bucket below.
  bool boundary = false;
};

// HF _relative_position_bucket for rp = j - i, with the logarithmic part floored exactly: where
// the value is within rounding of an integer k, k = c ln(r/e)/ln(D/e) is decided by the
// integer identity r^c e^k == D^k e^c instead of by the rounded logarithms.
template <class Real> T5Bucket t5_bucket(const Spec& spec, std::int64_t query, std::int64_t key) {
  std::int64_t relative = key - query;
  std::int64_t buckets = spec.buckets;
  T5Bucket out;
  if (spec.bidirectional) {
    buckets /= 2;
    if (relative > 0) out.bucket += buckets;
    relative = relative < 0 ? -relative : relative;
  } else {
    relative = relative < 0 ? -relative : 0;
  }
  const std::int64_t exact = buckets / 2;
  if (relative < exact) {
    out.bucket += relative;
    return out;
  }
  const std::int64_t span = buckets - exact;
  const Real value = log(Real(relative) / Real(exact)) / log(Real(spec.max_distance) / Real(exact)) * Real(span);
  const Real nearest = round(value);
  std::int64_t large = static_cast<std::int64_t>(floor(value));
  if (abs(value - nearest) <= Real(64) * std::numeric_limits<Real>::epsilon() * std::max(Real(1), abs(value))) {
    using boost::multiprecision::mpz_int;
    const auto k = static_cast<unsigned>(nearest);
    const auto c = static_cast<unsigned>(span);
    const bool integral = pow(mpz_int(relative), c) * pow(mpz_int(exact), k) ==
                          pow(mpz_int(spec.max_distance), k) * pow(mpz_int(exact), c);
    if (integral) {
      large = static_cast<std::int64_t>(k);
      out.boundary = true;
    }
  }
  out.bucket += exact + std::min(large, buckets - 1 - exact);
  return out;
}

// Shaw et al.: clip(j - i, -k, k) + k, an index into a table of 2k + 1 rows; with `right`,
// clip(j - i, -k, right) + k into k + right + 1 rows (transformers' wav2vec2-BERT relative_key:
// left_max_position_embeddings k, right_max_position_embeddings right).
inline std::int64_t shaw_index(const Spec& spec, std::int64_t query, std::int64_t key) {
  return std::clamp<std::int64_t>(key - query, -spec.k, spec.shaw_right()) + spec.k;
}

}  // namespace peconform
