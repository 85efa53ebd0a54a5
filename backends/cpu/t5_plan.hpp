#pragma once
// T5's relative-position buckets (transformers models/t5/modeling_t5.py _relative_position_bucket)
// prepared for a kernel without a logarithm: the bucket is monotone in the distance, so the plan
// holds the smallest distance at which each logarithmic bucket starts. A kernel that takes a
// float32 log instead can land one bucket low where the log ratio is an exact integer
// (|rp| = 16, 32, 64 with the defaults).
#include <cstdint>
#include <vector>

#include "spec/spec.hpp"

namespace peconform::cpu {

struct T5Plan {
  Spec spec;
  std::int64_t exact = 0;                  // distances below this are their own bucket
  std::vector<std::int64_t> bucket_start;  // bucket_start[j]: first distance of bucket exact + 1 + j
};

// With H buckets on a side (buckets, halved when bidirectional) and E = H/2 exact ones, distance
// n >= E falls in E + floor(ln(n/E) / ln(max_distance/E) (H - E)), capped at H - 1. Throws
// SpecError for another family.
T5Plan make_t5_plan(const Spec& spec);

}  // namespace peconform::cpu
