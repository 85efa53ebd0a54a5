#pragma once
// The integer-valued kernels, which must be exact: T5 relative-position buckets, Shaw clipped
// indices, and the learned-table gather.
#include <cstdint>
#include <vector>

#include "backends/cpu/t5_plan.hpp"
#include "backends/cpu/tensor.hpp"
#include "spec/spec.hpp"

namespace peconform::cpu {

// Buckets for queries q_first .. + q_len - 1 and keys k_first .. + k_len - 1, [q][k] contiguous.
void t5_buckets(const T5Plan& plan, std::int64_t q_first, std::int64_t q_len, std::int64_t k_first,
                std::int64_t k_len, std::int32_t* out);

// Shaw et al.'s clip(j - i, -k, k) + k for the same ranges.
void shaw_indices(const Spec& spec, std::int64_t q_first, std::int64_t q_len, std::int64_t k_first,
                  std::int64_t k_len, std::int32_t* out);

// out[b][s][:] = table[ids(b, s)][:] for a [rows, d] table (one id axis), moved bit for bit at
// amplitude 1; any other amplitude (amp, the double nearest it) multiplies each entry in the
// compute format, as x-transformers' AbsolutePositionalEmbedding does. Throws SpecError, before
// writing, for an id outside 0 .. rows - 1: a gather never clamps.
template <class T>
void gather_rows(const T* table, std::int64_t rows, std::int64_t d, const PositionIds& ids, std::int64_t batch,
                 std::int64_t seq, double amplitude, T* out);

}  // namespace peconform::cpu
