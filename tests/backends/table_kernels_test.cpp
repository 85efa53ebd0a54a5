// The table and index kernels over whole blocks: sinusoidal and Transformer-XL rows, ALiBi
// biases, T5 buckets, Shaw indices and the learned gather, in every dtype where they have one.
// Floating tables are held to the fast reference within the error model's bound; integer
// results must equal the reference exactly.
#include <gtest/gtest.h>

#include <cmath>

#include <fmt/format.h>

#include "precision/error_model.hpp"
#include "backends/cpu/index_kernels.hpp"
#include "backends/cpu/table_kernels.hpp"
#include "backends/cpu/threading.hpp"
#include "backends/cpu/wide_conversion.hpp"
#include "spec/spec_error.hpp"
#include "support/thread_team.hpp"

namespace peconform::cpu {
namespace {

constexpr Dtype kDtypes[] = {Dtype::fp64, Dtype::fp32, Dtype::fp16, Dtype::bf16};

void expect_row_within_bound(const Reference<FastReal>& reference, const Point& point, const std::vector<Wide>& actual) {
  const std::vector<Wide> expected = reference.evaluate(point, {});
  const std::vector<Wide> bounds = claimed_error_bounds(reference, point, {});
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t e = 0; e < actual.size(); ++e) {
    if (isinf(expected[e])) {
      EXPECT_TRUE(isinf(actual[e]) && actual[e] < 0) << reference.spec().canonical() << " element " << e;
      continue;
    }
    EXPECT_LE(abs(actual[e] - expected[e]), bounds[e]) << reference.spec().canonical() << " at "
                                                       << format_point(reference.spec().family, point) << " element " << e;
  }
}

TEST(TableKernels, SinusoidRowsAreWithinTheirBoundInEveryDtype) {
  for (const char* text : {"sinusoidal(d=9,layout=half,order=cos-sin,offset=2)", "sinusoidal(d=16,layout=interleaved,freq=geometric)",
                           "xl(d=12,clamp_len=300,precision=fp32-angle)", "sinusoidal(d=17,layout=interleaved,precision=fp64-angle)",
                           "xl(d=12,precision=fp64-angle)"})
    for (Dtype dtype : kDtypes) {
      Spec spec = Spec::parse(text);
      spec.dtype = dtype;
      const Reference<FastReal> reference(spec, 1);
      const SinusoidPlan plan = make_sinusoid_plan(spec);
      constexpr std::int64_t kFirst = 250, kRows = 100, kStride = 20;  // rows padded past d
      with_storage_type(dtype, [&](auto tag) {
        using T = decltype(tag);
        std::vector<T> table(static_cast<std::size_t>(kRows * kStride));
        sinusoid_rows<T>(plan, kFirst, kRows, table.data(), kStride);
        for (std::int64_t r = 0; r < kRows; ++r) {
          const std::span<const T> row(table.data() + r * kStride, static_cast<std::size_t>(spec.d));
          // xl's row for distance i - j: query i = first + r, key 0.
          expect_row_within_bound(reference, Point{{kFirst + r, 0, 0}}, to_wide<T>(row));
        }
      });
    }
}

// fp64-angle forms each angle as NumPy does (DistilBERT's pos / np.power(10000, 2 (j // 2) / d)):
// at p near 2^30 its fp64 rows stay within a few units of 2^-53 of glibc's sin and cos of that
// double angle, where the exact-angle kernel's depart from them by the angle's float64 error.
TEST(TableKernels, Fp64AngleRowsTakeNumpysFloat64Angle) {
  constexpr int kD = 768;
  constexpr std::int64_t kFirst = (std::int64_t{1} << 30) - 3, kRows = 4;
  const auto table_of = [&](const char* precision) {
    const Spec spec = Spec::parse(fmt::format("sinusoidal(d={},layout=interleaved,dtype=fp64,precision={})", kD, precision));
    std::vector<double> table(static_cast<std::size_t>(kRows * kD));
    sinusoid_rows<double>(make_sinusoid_plan(spec), kFirst, kRows, table.data(), kD);
    return table;
  };
  const std::vector<double> fp64_angle = table_of("fp64-angle"), exact_angle = table_of("exact-angle");
  double fp64_from_numpy = 0, exact_from_numpy = 0;
  for (std::int64_t r = 0; r < kRows; ++r)
    for (int j = 0; j < kD; ++j) {
      const double angle = static_cast<double>(kFirst + r) / std::pow(10000.0, 2.0 * (j / 2) / kD);
      const double numpy = j % 2 == 0 ? std::sin(angle) : std::cos(angle);
      const auto at = static_cast<std::size_t>(r * kD + j);
      fp64_from_numpy = std::max(fp64_from_numpy, std::abs(fp64_angle[at] - numpy));
      exact_from_numpy = std::max(exact_from_numpy, std::abs(exact_angle[at] - numpy));
    }
  EXPECT_LE(fp64_from_numpy, 0x1p-50) << "fp64-angle departs from NumPy's float64 angle";
  EXPECT_GE(exact_from_numpy, 0x1p-30) << "exact-angle should depart from a float64 angle at p = 2^30";
}

TEST(TableKernels, AlibiBiasBlockIsWithinItsBoundInEveryDtype) {
  for (const char* text : {"alibi(heads=12,mode=causal)", "alibi(heads=8,precision=fp32-angle)"})
    for (Dtype dtype : kDtypes) {
      Spec spec = Spec::parse(text);
      spec.dtype = dtype;
      const Reference<FastReal> reference(spec, 1);
      const AlibiPlan plan = make_alibi_plan(spec);
      constexpr std::int64_t kQueryFirst = 100, kQueries = 7, kKeyFirst = 95, kKeys = 13;
      with_storage_type(dtype, [&](auto tag) {
        using T = decltype(tag);
        std::vector<T> bias(static_cast<std::size_t>(spec.heads * kQueries * kKeys));
        alibi_bias<T>(plan, kQueryFirst, kQueries, kKeyFirst, kKeys, bias.data());
        for (std::int64_t q = 0; q < kQueries; ++q)
          for (std::int64_t k = 0; k < kKeys; ++k) {
            std::vector<Wide> heads;
            for (std::int64_t h = 0; h < spec.heads; ++h) heads.push_back(to_wide(bias[static_cast<std::size_t>((h * kQueries + q) * kKeys + k)]));
            expect_row_within_bound(reference, Point{{kQueryFirst + q, kKeyFirst + k, 0}}, heads);
          }
      });
    }
}

TEST(TableKernels, ThreadedCallsMatchOneRowCallsBitForBit) {
  // Both calls are well past the size at which a call takes an OpenMP team, and the team has
  // two threads whatever OMP_NUM_THREADS says.
  const TwoThreadTeam team;
  ASSERT_EQ(TwoThreadTeam::granted(), 2);
  const SinusoidPlan sinusoid = make_sinusoid_plan(Spec::parse("sinusoidal(d=32,layout=interleaved,dtype=bf16)"));
  constexpr std::int64_t kRows = 2048;
  static_assert(kRows * 32 >= kElementsWorthThreads);
  std::vector<BFloat16> table(kRows * 32), row(32);
  sinusoid_rows<BFloat16>(sinusoid, 100, kRows, table.data(), 32);
  for (std::int64_t r = 0; r < kRows; ++r) {
    sinusoid_rows<BFloat16>(sinusoid, 100 + r, 1, row.data(), 32);
    for (std::size_t e = 0; e < row.size(); ++e) ASSERT_EQ(row[e].bits, table[static_cast<std::size_t>(r * 32) + e].bits) << r;
  }
  const AlibiPlan alibi = make_alibi_plan(Spec::parse("alibi(heads=8,mode=causal,dtype=fp32)"));
  constexpr std::int64_t kLength = 96;
  static_assert(8 * kLength * kLength >= kElementsWorthThreads);
  std::vector<float> block(8 * kLength * kLength), heads(8);
  alibi_bias<float>(alibi, 0, kLength, 0, kLength, block.data());
  for (std::int64_t q = 0; q < kLength; ++q)
    for (std::int64_t k = 0; k < kLength; ++k) {
      alibi_bias<float>(alibi, q, 1, k, 1, heads.data());
      for (std::int64_t h = 0; h < 8; ++h)
        ASSERT_EQ(heads[static_cast<std::size_t>(h)], block[static_cast<std::size_t>((h * kLength + q) * kLength + k)])
            << q << ":" << k << " head " << h;
    }
}

TEST(IndexKernels, T5BucketsEqualTheReferenceIncludingItsBoundaries) {
  for (const char* text : {"t5()", "t5(bidirectional=false)", "t5(buckets=64,max_distance=1000)"}) {
    const Spec spec = Spec::parse(text);
    const Reference<FastReal> reference(spec, 1);
    const T5Plan plan = make_t5_plan(spec);
    constexpr std::int64_t kQueries = 300, kKeys = 300;  // |rp| up to 299, past every boundary
    std::vector<std::int32_t> buckets(kQueries * kKeys);
    t5_buckets(plan, 0, kQueries, 0, kKeys, buckets.data());
    for (std::int64_t q = 0; q < kQueries; ++q)
      for (std::int64_t k = 0; k < kKeys; ++k)
        ASSERT_EQ(Wide(buckets[static_cast<std::size_t>(q * kKeys + k)]), reference.evaluate(Point{{q, k, 0}}, {})[0])
            << text << " at " << q << ":" << k;
  }
}

TEST(IndexKernels, ShawIndicesEqualTheReference) {
  // Symmetric, and wav2vec2-BERT's asymmetric window and its mirror: each side's clip is its own.
  for (const char* text : {"shaw(k=4)", "shaw(k=6,right=2)", "shaw(k=2,right=6)"}) {
    const Spec spec = Spec::parse(text);
    const Reference<FastReal> reference(spec, 1);
    std::vector<std::int32_t> indices(20 * 20);
    shaw_indices(spec, 10, 20, 0, 20, indices.data());
    for (std::int64_t q = 0; q < 20; ++q)
      for (std::int64_t k = 0; k < 20; ++k)
        EXPECT_EQ(Wide(indices[static_cast<std::size_t>(q * 20 + k)]), reference.evaluate(Point{{10 + q, k, 0}}, {})[0])
            << text << " at " << 10 + q << ":" << k;
  }
}

TEST(IndexKernels, GatherCopiesRowsBitForBitAndRefusesIdsPastTheTable) {
  constexpr std::int64_t kRows = 6, kD = 3;
  const std::vector<BFloat16> table = [] {
    std::vector<BFloat16> out;
    for (int i = 0; i < kRows * kD; ++i) out.push_back(narrow_to_bfloat16(static_cast<float>(i) - 7.5f));
    return out;
  }();
  const std::vector<std::int32_t> ids = {3, 0, 1, 2};  // [batch 2, seq 2], offset 2
  std::vector<BFloat16> out(4 * kD);
  gather_rows<BFloat16>(table.data(), kRows, kD, position_ids(ids.data(), 1, 2, 2, 2), 2, 2, 1.0, out.data());
  for (std::size_t token = 0; token < ids.size(); ++token)
    for (std::int64_t e = 0; e < kD; ++e)
      EXPECT_EQ(out[token * kD + static_cast<std::size_t>(e)].bits, table[static_cast<std::size_t>((ids[token] + 2) * kD + e)].bits);
  const std::vector<std::int32_t> past = {0, 4};  // 4 + 2 = 6: one past the table
  try {
    gather_rows<BFloat16>(table.data(), kRows, kD, position_ids(past.data(), 1, 1, 2, 2), 1, 2, 1.0, out.data());
    FAIL() << "an id past the table was accepted";
  } catch (const SpecError& error) {
    EXPECT_NE(std::string(error.what()).find("position id 6"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace peconform::cpu
