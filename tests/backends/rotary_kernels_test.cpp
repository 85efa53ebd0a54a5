// The rotary kernels on whole tensors: every dtype, both storage orders, non-contiguous views,
// int32 and int64 position ids with an offset, in place, GQA operands and the cos/sin cache.
// Each element is held to the fast reference within the error model's bound; the call-shape
// variants (in place, GQA, cache) must agree with the plain call bit for bit.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "precision/error_model.hpp"
#include "backends/cpu/rotary_kernels.hpp"
#include "backends/cpu/threading.hpp"
#include "backends/cpu/wide_conversion.hpp"
#include "spec/spec_error.hpp"
#include "support/thread_team.hpp"

namespace peconform::cpu {
namespace {

constexpr std::int64_t kBatch = 2, kSeq = 5, kHeads = 3;

enum class View { bshd, bhsd, strided };
enum class Ids { int32, int64 };

template <class T> std::vector<T> random_values(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> value(-4.0, 4.0);
  std::vector<T> out(count);
  for (T& element : out) element = to_storage<T>(Wide(value(engine)));
  return out;
}

// A [batch, seq, heads, d] view onto `buffer` in the requested arrangement. `strided` puts a
// gap after every element and a spare head after every row of heads: nothing is adjacent.
template <class T> Tensor4<T> view_of(std::vector<T>& buffer, View view, std::int64_t heads, std::int64_t d) {
  switch (view) {
    case View::bshd: buffer.resize(static_cast<std::size_t>(kBatch * kSeq * heads * d)); return bshd(buffer.data(), kBatch, kSeq, heads, d);
    case View::bhsd: buffer.resize(static_cast<std::size_t>(kBatch * kSeq * heads * d)); return bhsd(buffer.data(), kBatch, heads, kSeq, d);
    case View::strided: {
      const std::int64_t head_stride = 2 * d, seq_stride = (heads + 1) * head_stride;
      buffer.resize(static_cast<std::size_t>(kBatch * kSeq * seq_stride));
      return {buffer.data(), {kBatch, kSeq, heads, d}, {kSeq * seq_stride, seq_stride, head_stride, 2}};
    }
  }
  return {};
}

template <class T> Tensor4<const T> as_const(const Tensor4<T>& view) { return {view.data, view.shape, view.stride}; }

template <class T> std::vector<Wide> row_of(const Tensor4<T>& view, std::int64_t b, std::int64_t s, std::int64_t h) {
  std::vector<Wide> out;
  for (std::int64_t e = 0; e < view.shape[3]; ++e) out.push_back(to_wide(view.row(b, s, h)[e * view.stride[3]]));
  return out;
}

// Positions 3 * (b * seq + s) + 1 spread over a wide range, on every axis (mrope: axis k adds k).
std::vector<std::int64_t> position_values(int axes) {
  std::vector<std::int64_t> out;
  for (int axis = 0; axis < axes; ++axis)
    for (std::int64_t token = 0; token < kBatch * kSeq; ++token) out.push_back(1 + 997 * token * token + axis);
  return out;
}

template <class T>
void expect_within_bound(const Spec& spec, const Tensor4<T>& in, const Tensor4<T>& out, const std::vector<std::int64_t>& ids,
                         std::int64_t offset) {
  const Reference<FastReal> reference(spec, 1 << 20);
  const int axes = spec.family == Family::mrope ? 3 : spec.family == Family::rope2d ? 2 : 1;
  for (std::int64_t b = 0; b < kBatch; ++b)
    for (std::int64_t s = 0; s < kSeq; ++s)
      for (std::int64_t h = 0; h < in.shape[2]; ++h) {
        Point point;
        for (int axis = 0; axis < axes; ++axis)
          point.c[static_cast<std::size_t>(axis)] = ids[static_cast<std::size_t>(axis * kBatch * kSeq + b * kSeq + s)] + offset;
        const std::vector<Wide> x = row_of(in, b, s, h), y = row_of(out, b, s, h);
        const std::vector<Wide> expected = reference.evaluate(point, x);
        const std::vector<Wide> bounds = claimed_error_bounds(reference, point, x);
        for (std::size_t e = 0; e < y.size(); ++e)
          ASSERT_LE(abs(y[e] - expected[e]), bounds[e])
              << spec.canonical() << " at " << format_point(spec.family, point) << " [b " << b << ", s " << s << ", h " << h
              << "] element " << e << ": actual " << static_cast<double>(y[e]) << " expected " << static_cast<double>(expected[e]);
      }
}

struct LayoutCase {
  Dtype dtype;
  View view;
  Ids ids;
  const char* spec;
};

std::string case_name(const testing::TestParamInfo<LayoutCase>& info) {
  constexpr const char* kDtypes[] = {"fp64", "fp32", "fp16", "bf16"};
  constexpr const char* kViews[] = {"bshd", "bhsd", "strided"};
  return fmt::format("{}_{}_{}_{}", kDtypes[static_cast<int>(info.param.dtype)], kViews[static_cast<int>(info.param.view)],
                     info.param.ids == Ids::int32 ? "int32" : "int64", info.index);
}

class RotaryLayouts : public testing::TestWithParam<LayoutCase> {};

TEST_P(RotaryLayouts, EveryElementIsWithinItsBound) {
  const LayoutCase& param = GetParam();
  Spec spec = Spec::parse(param.spec);
  spec.dtype = param.dtype;
  with_storage_type(param.dtype, [&](auto tag) {
    using T = decltype(tag);
    const RotaryPlan plan = make_rotary_plan(spec, 1 << 20);
    std::vector<T> in_buffer, out_buffer;
    Tensor4<T> in = view_of(in_buffer, param.view, kHeads, spec.d);
    const Tensor4<T> out = view_of(out_buffer, param.view, kHeads, spec.d);
    const std::vector<T> values = random_values<T>(in_buffer.size(), 7);
    std::copy(values.begin(), values.end(), in_buffer.begin());
    const std::vector<std::int64_t> ids = position_values(plan.axes);
    constexpr std::int64_t kOffset = 1 << 12;
    const std::vector<std::int32_t> ids32(ids.begin(), ids.end());
    const PositionIds positions = param.ids == Ids::int32 ? position_ids(ids32.data(), plan.axes, kBatch, kSeq, kOffset)
                                                          : position_ids(ids.data(), plan.axes, kBatch, kSeq, kOffset);
    const RotaryOperand<T> operand{as_const(in), out};
    apply_rotary<T>(plan, {&operand, 1}, positions);
    expect_within_bound(spec, in, out, ids, kOffset);
  });
}

std::vector<LayoutCase> layout_cases() {
  std::vector<LayoutCase> out;
  for (Dtype dtype : {Dtype::fp64, Dtype::fp32, Dtype::fp16, Dtype::bf16})
    for (View view : {View::bshd, View::bhsd, View::strided})
      for (Ids ids : {Ids::int32, Ids::int64})
        for (const char* spec : {"rope(d=12,rot=8,rot_at=last,layout=half)", "rope(d=10,rot=8,layout=interleaved,sign=-1)",
                                 "mrope(d=16,sections=[2,3,3],layout=half)", "rope2d(d=8,layout=interleaved)",
                                 "xpos(d=8,layout=half,precision=fp32-angle)",
                                 "rope(d=12,rot=8,rot_at=last,layout=interleaved-to-half)"})
          out.push_back({dtype, view, ids, spec});
  return out;
}

INSTANTIATE_TEST_SUITE_P(CpuKernels, RotaryLayouts, testing::ValuesIn(layout_cases()), case_name);

// Runs `spec` on a contiguous [batch, seq, heads, d] tensor, out of place, and returns the output.
template <class T>
std::vector<T> rotate_plainly(const RotaryPlan& plan, const std::vector<T>& input, std::int64_t heads,
                              const std::vector<std::int64_t>& ids) {
  std::vector<T> output(input.size());
  const RotaryOperand<T> operand{bshd(input.data(), kBatch, kSeq, heads, plan.d), bshd(output.data(), kBatch, kSeq, heads, plan.d)};
  apply_rotary<T>(plan, {&operand, 1}, position_ids(ids.data(), plan.axes, kBatch, kSeq));
  return output;
}

bool same_bits(const void* a, const void* b, std::size_t bytes) { return std::memcmp(a, b, bytes) == 0; }

TEST(CpuKernels, InPlaceMatchesOutOfPlaceBitForBit) {
  // interleaved-to-half writes elements that later pairs still read: in place it must not.
  for (const char* text : {"rope(d=12,rot=6,layout=half,dtype=bf16)", "rope(d=16,layout=interleaved,dtype=fp32)",
                           "rope(d=12,rot=8,rot_at=last,layout=interleaved-to-half,dtype=fp32)"}) {
    const RotaryPlan plan = make_rotary_plan(Spec::parse(text), 1 << 20);
    const std::vector<std::int64_t> ids = position_values(1);
    std::vector<float> data = random_values<float>(static_cast<std::size_t>(kBatch * kSeq * kHeads * plan.d), 3);
    const std::vector<float> expected = rotate_plainly(plan, data, kHeads, ids);
    const Tensor4<float> view = bshd(data.data(), kBatch, kSeq, kHeads, plan.d);
    const RotaryOperand<float> in_place{as_const(view), view};
    apply_rotary<float>(plan, {&in_place, 1}, position_ids(ids.data(), 1, kBatch, kSeq));
    EXPECT_TRUE(same_bits(data.data(), expected.data(), data.size() * sizeof(float))) << text;
  }
}

TEST(CpuKernels, QueryAndKeyWithDifferentHeadCountsMatchSeparateCalls) {
  const RotaryPlan plan = make_rotary_plan(Spec::parse("rope(d=8,layout=half,dtype=bf16)"), 1 << 20);
  const std::vector<std::int64_t> ids = position_values(1);
  constexpr std::int64_t kQueryHeads = 8, kKeyHeads = 2;
  std::vector<BFloat16> q = random_values<BFloat16>(static_cast<std::size_t>(kBatch * kSeq * kQueryHeads * plan.d), 1);
  std::vector<BFloat16> k = random_values<BFloat16>(static_cast<std::size_t>(kBatch * kSeq * kKeyHeads * plan.d), 2);
  const std::vector<BFloat16> q_alone = rotate_plainly(plan, q, kQueryHeads, ids);
  const std::vector<BFloat16> k_alone = rotate_plainly(plan, k, kKeyHeads, ids);
  const Tensor4<BFloat16> q_view = bshd(q.data(), kBatch, kSeq, kQueryHeads, plan.d);
  // k is laid out [batch, heads, seq, dim] here; undo that for the comparison below.
  std::vector<BFloat16> k_bhsd(k.size());
  const Tensor4<BFloat16> k_bhsd_view = bhsd(k_bhsd.data(), kBatch, kKeyHeads, kSeq, plan.d);
  const Tensor4<BFloat16> k_bshd_view = bshd(k.data(), kBatch, kSeq, kKeyHeads, plan.d);
  for (std::int64_t b = 0; b < kBatch; ++b)
    for (std::int64_t s = 0; s < kSeq; ++s)
      for (std::int64_t h = 0; h < kKeyHeads; ++h) std::memcpy(k_bhsd_view.row(b, s, h), k_bshd_view.row(b, s, h), plan.d * sizeof(BFloat16));
  const RotaryOperand<BFloat16> operands[] = {{as_const(q_view), q_view}, {as_const(k_bhsd_view), k_bhsd_view}};
  apply_rotary<BFloat16>(plan, operands, position_ids(ids.data(), 1, kBatch, kSeq));
  EXPECT_TRUE(same_bits(q.data(), q_alone.data(), q.size() * sizeof(BFloat16)));
  for (std::int64_t b = 0; b < kBatch; ++b)
    for (std::int64_t s = 0; s < kSeq; ++s)
      for (std::int64_t h = 0; h < kKeyHeads; ++h)
        EXPECT_TRUE(same_bits(k_bhsd_view.row(b, s, h), k_alone.data() + ((b * kSeq + s) * kKeyHeads + h) * plan.d,
                              plan.d * sizeof(BFloat16)))
            << "key head " << h << " of token " << b << "," << s;
}

TEST(CpuKernels, CosSinCacheMatchesOnTheFlyBitForBit) {
  for (const char* text : {"rope(d=16,layout=half,dtype=fp32)", "rope(d=16,layout=half,dtype=bf16,precision=lowp-cache)",
                           "rope(d=16,layout=interleaved,dtype=fp16,precision=fp32-angle)", "mrope(d=16,sections=[2,3,3],dtype=fp32)",
                           "xpos(d=16,layout=half,dtype=fp64)"}) {
    const RotaryPlan plan = make_rotary_plan(Spec::parse(text), 1 << 20);
    std::vector<std::int64_t> ids = position_values(plan.axes);
    for (std::int64_t& id : ids) id %= 5000;
    with_storage_type(plan.spec.dtype, [&](auto tag) {
      using T = decltype(tag);
      const std::vector<T> input = random_values<T>(static_cast<std::size_t>(kBatch * kSeq * kHeads * plan.d), 5);
      const std::vector<T> on_the_fly = rotate_plainly(plan, input, kHeads, ids);
      const CosSinCache<T> cache = build_cos_sin_cache<T>(plan, 0, 5000);
      std::vector<T> cached(input.size());
      const RotaryOperand<T> operand{bshd(input.data(), kBatch, kSeq, kHeads, plan.d), bshd(cached.data(), kBatch, kSeq, kHeads, plan.d)};
      apply_rotary<T>(plan, {&operand, 1}, position_ids(ids.data(), plan.axes, kBatch, kSeq), &cache);
      EXPECT_TRUE(same_bits(cached.data(), on_the_fly.data(), cached.size() * sizeof(T))) << text;
    });
  }
}

TEST(CpuKernels, ThreadedCallsMatchOneTokenCallsBitForBit) {
  // 1 x 512 x 8 x 128 elements: well past the size at which a call takes an OpenMP team, and
  // the team has two threads whatever OMP_NUM_THREADS says.
  constexpr std::int64_t kTokens = 512, kTeamHeads = 8;
  static_assert(kTokens * kTeamHeads * 128 >= kElementsWorthThreads);
  const TwoThreadTeam team;
  ASSERT_EQ(TwoThreadTeam::granted(), 2);
  for (const char* text : {"rope(d=128,layout=half,dtype=bf16)", "mrope(d=128,sections=[16,24,24],dtype=fp32)"}) {
    const RotaryPlan plan = make_rotary_plan(Spec::parse(text), 1 << 20);
    with_storage_type(plan.spec.dtype, [&](auto tag) {
      using T = decltype(tag);
      const std::vector<T> input = random_values<T>(static_cast<std::size_t>(kTokens * kTeamHeads * plan.d), 11);
      std::vector<std::int64_t> ids;
      for (int axis = 0; axis < plan.axes; ++axis)
        for (std::int64_t token = 0; token < kTokens; ++token) ids.push_back(7 * token + 1000 * axis);
      std::vector<T> together(input.size());
      const RotaryOperand<T> whole{bshd(input.data(), 1, kTokens, kTeamHeads, plan.d), bshd(together.data(), 1, kTokens, kTeamHeads, plan.d)};
      apply_rotary<T>(plan, {&whole, 1}, position_ids(ids.data(), plan.axes, 1, kTokens));
      const std::size_t row = static_cast<std::size_t>(kTeamHeads * plan.d);
      for (std::int64_t token = 0; token < kTokens; ++token) {
        std::vector<T> alone(row);
        const std::int64_t token_ids[3] = {ids[static_cast<std::size_t>(token)],
                                           plan.axes > 1 ? ids[static_cast<std::size_t>(kTokens + token)] : 0,
                                           plan.axes > 2 ? ids[static_cast<std::size_t>(2 * kTokens + token)] : 0};
        const RotaryOperand<T> one{bshd(input.data() + token * static_cast<std::int64_t>(row), 1, 1, kTeamHeads, plan.d),
                                   bshd(alone.data(), 1, 1, kTeamHeads, plan.d)};
        apply_rotary<T>(plan, {&one, 1}, position_ids(token_ids, plan.axes, 1, 1));
        ASSERT_TRUE(same_bits(alone.data(), together.data() + token * static_cast<std::int64_t>(row), row * sizeof(T)))
            << text << " token " << token;
      }
    });
  }
}

// Runs a call that must be refused and returns the message, or "" when it was accepted.
template <class Call> std::string refusal(Call&& call) {
  try {
    call();
  } catch (const SpecError& error) {
    return error.what();
  }
  return "";
}

TEST(CpuKernels, BadCallsAreRefusedNamingTheBadValueBeforeAnyWrite) {
  const RotaryPlan plan = make_rotary_plan(Spec::parse("rope(d=8,layout=half)"), 1 << 20);
  std::vector<float> data(static_cast<std::size_t>(kBatch * kSeq * 8 * 2), 1.0f);
  const std::vector<float> untouched = data;
  std::vector<std::int64_t> ids = position_values(1);
  const PositionIds positions = position_ids(ids.data(), 1, kBatch, kSeq);
  const Tensor4<float> whole = bshd(data.data(), kBatch, kSeq, 2, 8);

  const Tensor4<float> wrong_dim = bshd(data.data(), kBatch, kSeq, 4, 4);
  const RotaryOperand<float> dim_operand{as_const(wrong_dim), wrong_dim};
  EXPECT_NE(refusal([&] { apply_rotary<float>(plan, {&dim_operand, 1}, positions); }).find("dim 4"), std::string::npos);

  const Tensor4<float> shifted = {data.data() + 1, whole.shape, whole.stride};
  const RotaryOperand<float> overlapping{as_const(whole), shifted};
  EXPECT_NE(refusal([&] { apply_rotary<float>(plan, {&overlapping, 1}, positions); }).find("overlaps"), std::string::npos);

  const RotaryOperand<float> in_place{as_const(whole), whole};
  ids[3] = (std::int64_t{1} << 40) + 1;
  EXPECT_NE(refusal([&] { apply_rotary<float>(plan, {&in_place, 1}, positions); }).find("1099511627777"), std::string::npos);
  ids[3] = 200000;
  const CosSinCache<float> cache = build_cos_sin_cache<float>(plan, 0, 100000);
  EXPECT_NE(refusal([&] { apply_rotary<float>(plan, {&in_place, 1}, positions, &cache); }).find("position id 200000"),
            std::string::npos);
  EXPECT_TRUE(same_bits(data.data(), untouched.data(), data.size() * sizeof(float)));
}

}  // namespace
}  // namespace peconform::cpu
