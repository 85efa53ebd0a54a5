// Position ids at the ends of their types through the rotary kernels: int64 ids past
// 2^31 - 1 and int32 ids at INT32_MIN and INT32_MAX must rotate to the reference's result at
// those positions (flashinfer #697 fed int64 positions to an int32 kernel); an int32 id plus
// an offset is widened, never wrapped; and a position past what the plan claims is refused
// with an error naming it, before any output is written.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <string>

#include "backends/cpu/rotary_kernels.hpp"
#include "backends/cpu/wide_conversion.hpp"
#include "precision/error_model.hpp"
#include "spec/spec_error.hpp"

namespace peconform::cpu {
namespace {

constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();
constexpr std::int64_t kInt32Min = std::numeric_limits<std::int32_t>::min();

// Inputs spread over 2^-20 .. 2^20, either sign, rounded to T.
template <class T> std::vector<T> spread_values(std::size_t count) {
  std::mt19937_64 engine(20261122);
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  std::uniform_int_distribution<int> exponent(-20, 20), sign(0, 1);
  std::vector<T> out(count);
  for (T& element : out) element = to_storage<T>(Wide(std::ldexp(sign(engine) ? -mantissa(engine) : mantissa(engine), exponent(engine))));
  return out;
}

// Rotates one token per id (one head of `spec`'s d) at ids + offset and returns the output.
template <class T, class Id>
std::vector<T> rotated(const RotaryPlan& plan, const std::vector<T>& input, const std::vector<Id>& ids, std::int64_t offset) {
  const auto tokens = static_cast<std::int64_t>(ids.size());
  std::vector<T> output(input.size());
  const RotaryOperand<T> operand{bshd(input.data(), 1, tokens, 1, plan.d), bshd(output.data(), 1, tokens, 1, plan.d)};
  apply_rotary<T>(plan, {&operand, 1}, position_ids(ids.data(), 1, 1, tokens, offset));
  return output;
}

// Every element of token t within the error model's bound of the reference at positions[t].
template <class T>
void expect_reference_at(const Spec& spec, const std::vector<T>& input, const std::vector<T>& output,
                         const std::vector<std::int64_t>& positions) {
  const Reference<FastReal> reference(spec, 1 << 20);
  for (std::size_t token = 0; token < positions.size(); ++token) {
    const Point point{{positions[token], 0, 0}};
    std::vector<Wide> x, y;
    for (int e = 0; e < spec.d; ++e) {
      x.push_back(to_wide(input[token * static_cast<std::size_t>(spec.d) + static_cast<std::size_t>(e)]));
      y.push_back(to_wide(output[token * static_cast<std::size_t>(spec.d) + static_cast<std::size_t>(e)]));
    }
    const std::vector<Wide> expected = reference.evaluate(point, x);
    const std::vector<Wide> bounds = claimed_error_bounds(reference, point, x);
    for (std::size_t e = 0; e < y.size(); ++e) {
      ASSERT_TRUE(isfinite(bounds[e])) << spec.canonical() << " claims nothing at " << positions[token];
      EXPECT_LE(abs(y[e] - expected[e]), bounds[e]) << spec.canonical() << " at position " << positions[token] << " element " << e
                                                   << ": actual " << static_cast<double>(y[e]) << " expected "
                                                   << static_cast<double>(expected[e]);
    }
  }
}

const char* const kSpecs[] = {"rope(d=16,layout=half,dtype=fp64)", "rope(d=16,layout=interleaved,dtype=fp32)",
                              "rope(d=16,layout=half,dtype=bf16,precision=lowp-cache)"};

TEST(PositionIds, Int64IdsPastTheInt32RangeRotateToTheReference) {
  const std::vector<std::int64_t> ids{kInt32Max,           kInt32Max + 1,       kInt32Max + 2,        std::int64_t{3} << 31,
                                      (std::int64_t{1} << 32) + 12345, -(kInt32Max + 7), std::int64_t{1} << 36};
  for (const char* text : kSpecs) {
    const RotaryPlan plan = make_rotary_plan(Spec::parse(text), 1 << 20);
    ASSERT_GE(plan.largest_position, ids.back()) << text;
    with_storage_type(plan.spec.dtype, [&](auto tag) {
      using T = decltype(tag);
      const std::vector<T> input = spread_values<T>(ids.size() * static_cast<std::size_t>(plan.d));
      expect_reference_at(plan.spec, input, rotated(plan, input, ids, 0), ids);
    });
  }
}

TEST(PositionIds, Int32IdsAtTheirLimitsRotateToTheReference) {
  const std::vector<std::int32_t> ids{std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::min() + 1,
                                      -1, 0, 1, std::numeric_limits<std::int32_t>::max() - 1,
                                      std::numeric_limits<std::int32_t>::max()};
  const std::vector<std::int64_t> positions(ids.begin(), ids.end());
  for (const char* text : kSpecs) {
    const RotaryPlan plan = make_rotary_plan(Spec::parse(text), 1 << 20);
    with_storage_type(plan.spec.dtype, [&](auto tag) {
      using T = decltype(tag);
      const std::vector<T> input = spread_values<T>(ids.size() * static_cast<std::size_t>(plan.d));
      expect_reference_at(plan.spec, input, rotated(plan, input, ids, 0), positions);
    });
  }
}

TEST(PositionIds, Int32IdPlusOffsetIsWidenedNotWrapped) {
  // INT32_MAX + 1 and INT32_MIN - 1 do not fit in int32: the kernel adds the offset in 64
  // bits, so the token rotates at 2^31 (or -2^31 - 1), never at the wrapped -2^31 (or 2^31 - 1).
  const RotaryPlan plan = make_rotary_plan(Spec::parse("rope(d=16,layout=half,dtype=fp32)"), 1 << 20);
  const std::vector<float> input = spread_values<float>(static_cast<std::size_t>(plan.d));
  const std::vector<float> past_max = rotated(plan, input, std::vector<std::int32_t>{std::numeric_limits<std::int32_t>::max()}, 1);
  expect_reference_at(plan.spec, input, past_max, {kInt32Max + 1});
  const std::vector<float> wrapped = rotated(plan, input, std::vector<std::int64_t>{kInt32Min}, 0);
  EXPECT_NE(past_max, wrapped) << "INT32_MAX + 1 rotated as if at INT32_MIN";
  const std::vector<float> past_min = rotated(plan, input, std::vector<std::int32_t>{std::numeric_limits<std::int32_t>::min()}, -1);
  expect_reference_at(plan.spec, input, past_min, {kInt32Min - 1});
}

TEST(PositionIds, IdsPastThePlansLargestPositionAreRefusedNamingTheId) {
  const RotaryPlan plan = make_rotary_plan(Spec::parse("rope(d=16,layout=half,dtype=fp32)"), 1 << 20);
  const std::vector<float> input = spread_values<float>(static_cast<std::size_t>(plan.d));
  std::vector<float> output(input.size(), 7.0f);
  const RotaryOperand<float> operand{bshd(input.data(), 1, 1, 1, plan.d), bshd(output.data(), 1, 1, 1, plan.d)};
  const std::int32_t largest32 = std::numeric_limits<std::int32_t>::max();
  const std::int64_t past = plan.largest_position + 1;
  // An int32 id whose offset carries it one past the plan's largest position, and an int64 id
  // there directly, on either side of zero.
  const std::int64_t ids64[] = {past, -past};
  const struct {
    PositionIds ids;
    std::int64_t position;
  } calls[] = {{position_ids(&largest32, 1, 1, 1, past - kInt32Max), past},
               {position_ids(&ids64[0], 1, 1, 1), past},
               {position_ids(&ids64[1], 1, 1, 1), -past}};
  for (const auto& call : calls) {
    try {
      apply_rotary<float>(plan, {&operand, 1}, call.ids);
      ADD_FAILURE() << "position " << call.position << " was accepted";
    } catch (const SpecError& error) {
      EXPECT_NE(std::string(error.what()).find(std::to_string(call.position)), std::string::npos) << error.what();
    }
    EXPECT_EQ(output, std::vector<float>(input.size(), 7.0f)) << "written before refusing position " << call.position;
  }
}

TEST(PositionIds, IdPlusOffsetPastInt64IsRefusedNamingBoth) {
  constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t kInt64Min = std::numeric_limits<std::int64_t>::min();
  const struct {
    std::int64_t id, offset;
  } sums[] = {{kInt64Max, kInt64Max}, {kInt64Max, 1}, {kInt64Min, -1}};
  for (const auto& sum : sums) {
    try {
      (void)position_ids(&sum.id, 1, 1, 1, sum.offset).at(0, 0, 0);
      ADD_FAILURE() << sum.id << " + " << sum.offset << " was accepted";
    } catch (const SpecError& error) {
      const std::string message = error.what();
      EXPECT_NE(message.find(std::to_string(sum.id)), std::string::npos) << message;
      EXPECT_NE(message.find(std::to_string(sum.offset)), std::string::npos) << message;
    }
  }
  const std::int64_t largest = kInt64Max - 1;
  EXPECT_EQ(position_ids(&largest, 1, 1, 1, 1).at(0, 0, 0), kInt64Max);
}

}  // namespace
}  // namespace peconform::cpu
