#include "backends/cpu/index_kernels.hpp"

#include <algorithm>
#include <cstring>
#include <fmt/format.h>

#include "backends/cpu/position_range.hpp"
#include "backends/cpu/storage.hpp"
#include "backends/cpu/table_kernels.hpp"
#include "backends/cpu/threading.hpp"
#include "spec/spec_error.hpp"

namespace peconform::cpu {

void t5_buckets(const T5Plan& plan, std::int64_t q_first, std::int64_t q_len, std::int64_t k_first,
                std::int64_t k_len, std::int32_t* out) {
  check_position_range("query position", q_first, q_len, kLargestTablePosition);
  check_position_range("key position", k_first, k_len, kLargestTablePosition);
  const bool bidirectional = plan.spec.bidirectional;
  const std::int32_t upper_half = static_cast<std::int32_t>(plan.spec.buckets / 2);
#pragma omp parallel for schedule(static) if (q_len * k_len >= kElementsWorthThreads)
  for (std::int64_t q = 0; q < q_len; ++q) {
    for (std::int64_t k = 0; k < k_len; ++k) {
      const std::int64_t relative = (k_first + k) - (q_first + q);
      std::int32_t bucket = 0;
      std::int64_t distance = relative < 0 ? -relative : relative;
      if (bidirectional && relative > 0) bucket = upper_half;
      if (!bidirectional) distance = relative < 0 ? -relative : 0;
      if (distance < plan.exact) {
        bucket += static_cast<std::int32_t>(distance);
      } else {
        const auto past = std::upper_bound(plan.bucket_start.begin(), plan.bucket_start.end(), distance);
        bucket += static_cast<std::int32_t>(plan.exact + (past - plan.bucket_start.begin()));
      }
      out[q * k_len + k] = bucket;
    }
  }
}

void shaw_indices(const Spec& spec, std::int64_t q_first, std::int64_t q_len, std::int64_t k_first,
                  std::int64_t k_len, std::int32_t* out) {
  check_position_range("query position", q_first, q_len, kLargestTablePosition);
  check_position_range("key position", k_first, k_len, kLargestTablePosition);
  const std::int64_t left = spec.k, right = spec.shaw_right();
#pragma omp parallel for schedule(static) if (q_len * k_len >= kElementsWorthThreads)
  for (std::int64_t q = 0; q < q_len; ++q) {
#pragma omp simd
    for (std::int64_t k = 0; k < k_len; ++k) {
      const std::int64_t relative = (k_first + k) - (q_first + q);
      out[q * k_len + k] = static_cast<std::int32_t>(std::clamp(relative, -left, right) + left);
    }
  }
}

template <class T>
void gather_rows(const T* table, std::int64_t rows, std::int64_t d, const PositionIds& ids, std::int64_t batch,
                 std::int64_t seq, double amplitude, T* out) {
  for (std::int64_t b = 0; b < batch; ++b)
    for (std::int64_t s = 0; s < seq; ++s) {
      const std::int64_t id = ids.at(0, b, s);
      if (id < 0 || id >= rows)
        throw SpecError(fmt::format("position id {} at [batch {}, seq {}] is past the learned table of {} rows (valid: 0..{})",
                                    id, b, s, rows, rows - 1));
    }
#pragma omp parallel for schedule(static) if (batch * seq * d >= kElementsWorthThreads)
  for (std::int64_t token = 0; token < batch * seq; ++token) {
    const std::int64_t id = ids.at(0, token / seq, token % seq);
    if (amplitude == 1) {
      std::memcpy(out + token * d, table + id * d, static_cast<std::size_t>(d) * sizeof(T));
      continue;
    }
    const auto scale = static_cast<Compute<T>>(amplitude);
    for (std::int64_t e = 0; e < d; ++e) out[token * d + e] = store<T>(load(table[id * d + e]) * scale);
  }
}

template void gather_rows<double>(const double*, std::int64_t, std::int64_t, const PositionIds&, std::int64_t, std::int64_t,
                                 double, double*);
template void gather_rows<float>(const float*, std::int64_t, std::int64_t, const PositionIds&, std::int64_t, std::int64_t,
                                 double, float*);
template void gather_rows<Half>(const Half*, std::int64_t, std::int64_t, const PositionIds&, std::int64_t, std::int64_t,
                                 double, Half*);
template void gather_rows<BFloat16>(const BFloat16*, std::int64_t, std::int64_t, const PositionIds&, std::int64_t, std::int64_t,
                                 double, BFloat16*);

}  // namespace peconform::cpu
