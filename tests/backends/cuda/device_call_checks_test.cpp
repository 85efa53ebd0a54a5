// The refusals of the device call checks (backends/device_call_checks.hpp), each reached the way
// a GPU backend reaches it: a drawn call, changed in one thing, run through the CUDA backend's
// kernels on the host. A check that lets a bad call through lets a device kernel read or write
// outside its buffers, so each test names the value the refusal must name. Where a view is made
// to leave its buffer, the buffer is shortened rather than the view stretched (cut_before): a
// kernel let through by a faulty check then writes memory the buffer still owns, and the test
// fails on "no refusal" instead of corrupting the heap.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <limits>

#include "backends/cpu/table_kernels.hpp"
#include "backends/cuda/cuda_tensor_backend.hpp"
#include "backends/device_call_checks.hpp"
#include "harness/case_call.hpp"
#include "host_place.hpp"
#include "spec/spec_error.hpp"

namespace peconform::device {
namespace {

// The refusal the call `text` gets once `change` has been made to it, or "no refusal".
template <class Change> std::string refusal_of_changed(const char* text, Change change) {
  KernelCall call = harness::materialize(harness::CaseDescription::parse(text));
  change(call);
  try {
    cuda::make_placed_tensor_backend("device-checks-on-host", cuda::make_host_place(), std::int64_t{1} << 34)->run(call);
  } catch (const SpecError& error) {
    return error.what();
  }
  return "no refusal";
}

// Shortens `buffer` to end at the farthest element of its [extent] view (positive strides), which
// then lies one past it; its capacity stays. Returns that element's index, which is also the
// buffer's new size, as the refusal "elements L..H leave its buffer of N" names both.
std::int64_t cut_before_farthest(Buffer& buffer, const std::array<std::int64_t, 4>& extent) {
  std::int64_t farthest = buffer.origin;
  for (std::size_t k = 0; k < 4; ++k) farthest += (extent[k] - 1) * buffer.stride[k];
  buffer.bytes.resize(static_cast<std::size_t>(farthest) * element_size(buffer.type));
  return farthest;
}

std::string leaves_its_buffer(const std::string& what, const Buffer& buffer, std::int64_t farthest) {
  return fmt::format("{}: elements {}..{} leave its buffer of {}", what, buffer.origin, farthest, farthest);
}

void expect_contains(const std::string& text, const std::string& needle) {
  EXPECT_NE(text.find(needle), std::string::npos) << "in: " << text << "\nmissing: " << needle;
}

constexpr const char* kRope = "rope(d=16,base=10000,layout=half,dtype=fp32) | batch=2 seq=4 heads=2 place=out ids=int64 positions=run seed=1";
constexpr const char* kMrope =
    "mrope(d=32,base=10000,sections=[4,6,6],dtype=fp32) | batch=2 seq=4 heads=2 place=out ids=int64 positions=scattered seed=22";
constexpr const char* kSinusoidal = "sinusoidal(d=8,layout=half,offset=1000,dtype=fp32) | seq=40 seed=10";
constexpr const char* kXl = "xl(d=12,clamp_len=300,dtype=fp32) | seq=40 seed=12";
constexpr const char* kAlibi = "alibi(heads=4,dtype=fp32) | seq=3 keys=5 seed=3";
constexpr const char* kT5 = "t5(buckets=32,max_distance=128) | seq=4 keys=6 seed=15";
constexpr const char* kLearned = "learned(d=4,rows=5,dtype=fp32) | batch=2 seq=3 ids=int64 positions=scattered seed=2";

// 2^45: past the exact-angle limit of any rope plan, so the id alone is refused.
constexpr std::int64_t kFar = std::int64_t{1} << 45;

// The ids are [axes, batch, seq], contiguous: an id out of range at batch row 1 (index b·seq + s)
// or on mrope's third axis (index (a·batch + b)·seq + s) is found and named where it sits.
TEST(DeviceCallChecks, TheIdsAreReadByAxisBatchRowAndToken) {
  expect_contains(refusal_of_changed(kRope, [](KernelCall& call) { call.ids64_data[1 * 4 + 2] = kFar; }),
                  fmt::format("position id {} at [axis 0, batch 1, seq 2] is outside", kFar));
  expect_contains(refusal_of_changed(kMrope, [](KernelCall& call) { call.ids64_data[(2 * 2 + 1) * 4 + 1] = kFar; }),
                  fmt::format("position id {} at [axis 2, batch 1, seq 1] is outside", kFar));
}

// A call whose [axes, batch, seq] needs more ids than it holds (the rope case holds 2 x 4), or
// says a negative seq, is refused naming the count and the shape before any id is read.
TEST(DeviceCallChecks, IdsThatDoNotCoverTheCallAreRefusedNamingTheirCount) {
  EXPECT_EQ(refusal_of_changed(kRope, [](KernelCall& call) { call.batch = 3; }), "the call has 8 position ids for [axes 1, batch 3, seq 4]");
  EXPECT_EQ(refusal_of_changed(kRope, [](KernelCall& call) { call.seq = -1; }), "the call has 8 position ids for [axes 1, batch 2, seq -1]");
}

// check_view_in_buffer on its own: an empty extent in any dimension is an empty view, inside any
// buffer, even one of a single element at index 0 where a step back would leave it.
TEST(DeviceCallChecks, AnEmptyViewIsInsideItsBuffer) {
  Buffer one;
  one.origin = 0;
  one.shape = {1, 1, 1, 1};
  one.stride = {1, 1, 1, 1};
  one.bytes.resize(element_size(one.type));
  EXPECT_NO_THROW(check_view_in_buffer(one, {0, 1, 1, 1}, "the view"));
  EXPECT_NO_THROW(check_view_in_buffer(one, {1, 1, 1, 0}, "the view"));
  EXPECT_NO_THROW(check_view_in_buffer(one, {1, 1, 1, 1}, "the view"));
}

// A negative stride reaches below the origin: four elements at stride -1 from origin 3 are
// elements 0..3 of a buffer of 4, inside it; from origin 2 the nearest is element -1.
TEST(DeviceCallChecks, ANegativeStrideMustNotReachBeforeTheBuffer) {
  Buffer reversed;
  reversed.shape = {1, 1, 4, 1};
  reversed.stride = {4, 4, -1, 1};
  reversed.bytes.resize(4 * element_size(reversed.type));
  reversed.origin = 3;
  EXPECT_NO_THROW(check_view_in_buffer(reversed, reversed.shape, "the view"));
  reversed.origin = 2;
  try {
    check_view_in_buffer(reversed, reversed.shape, "the view");
    ADD_FAILURE() << "a view from element -1 was let through";
  } catch (const SpecError& error) {
    EXPECT_STREQ(error.what(), "the view: elements -1..2 leave its buffer of 4");
  }
}

// A view of negative extent, or one longer than its buffer's shape (a table of 41 rows in an
// output of 40), is refused naming the extent and the dimension.
TEST(DeviceCallChecks, AViewOfNegativeExtentOrPastItsShapeIsRefused) {
  EXPECT_EQ(refusal_of_changed(kRope, [](KernelCall& call) { call.inputs[0].shape[2] = -1; }),
            "operand 0's input has a negative extent -1 in dimension 2");
  EXPECT_EQ(refusal_of_changed(kSinusoidal, [](KernelCall& call) { call.rows = call.outputs[0].shape[1] + 1; }),
            "the table: extent 41 in dimension 1 is outside its shape 40");
}

// A rotary call takes 1 to kMaxOperands (2) operands: none, or three, is refused.
TEST(DeviceCallChecks, ARotaryCallOfNoOperandOrMoreThanTwoIsRefused) {
  EXPECT_EQ(refusal_of_changed(kRope, [](KernelCall& call) { call.inputs.clear(), call.outputs.clear(); }),
            "apply_rotary needs at least one operand");
  const auto three_operands = [](KernelCall& call) {
    for (int more = 0; more < 2; ++more) call.inputs.push_back(call.inputs[0]), call.outputs.push_back(call.outputs[0]);
  };
  EXPECT_EQ(refusal_of_changed(kRope, three_operands), "a rotary call takes at most 2 operands, found 3");
}

// rope takes one id axis and mrope three: ids of another count are refused naming both counts.
TEST(DeviceCallChecks, IdsOfAnotherAxisCountThanThePlansAreRefused) {
  expect_contains(refusal_of_changed(kRope, [](KernelCall& call) { call.axes = 3; }), "takes 1 position axes, found 3");
  expect_contains(refusal_of_changed(kMrope, [](KernelCall& call) { call.axes = 1; }), "takes 3 position axes, found 1");
}

// An input view that leaves its buffer is refused as the input's (an output's is tested in
// cuda_threads_test.cpp).
TEST(DeviceCallChecks, AnInputViewThatLeavesItsBufferIsRefused) {
  std::string expected;
  const std::string refusal = refusal_of_changed(kRope, [&](KernelCall& call) {
    expected = leaves_its_buffer("operand 0's input", call.inputs[0], cut_before_farthest(call.inputs[0], call.inputs[0].shape));
  });
  EXPECT_EQ(refusal, expected);
}

// Each operand is of the plan's d (16) and of the ids' [batch 2, seq 4]: an operand of d 8 or 32,
// of seq 3 or of batch 1 (input and output alike, so that they still pair) is refused naming both.
TEST(DeviceCallChecks, AnOperandOfAnotherDOrShapeThanTheIdsIsRefused) {
  const auto operand_extent = [](std::size_t axis, std::int64_t extent) {
    return [=](KernelCall& call) { call.inputs[0].shape[axis] = call.outputs[0].shape[axis] = extent; };
  };
  for (const std::int64_t d : {8, 32}) {  // 32 still fits in the buffers: only this check refuses it
    const std::string refusal = refusal_of_changed(kRope, operand_extent(3, d));
    expect_contains(refusal, fmt::format("operand 0 has dim {}, ", d));
    expect_contains(refusal, " needs 16");
  }
  EXPECT_EQ(refusal_of_changed(kRope, operand_extent(1, 3)), "operand 0 is [batch 2, seq 3], the ids are [batch 2, seq 4]");
  EXPECT_EQ(refusal_of_changed(kRope, operand_extent(0, 1)), "operand 0 is [batch 1, seq 4], the ids are [batch 2, seq 4]");
}

// A table of negative rows is refused, and a sinusoidal table from a negative position; an xl
// table's rows are distances, which may be negative.
TEST(DeviceCallChecks, NegativeRowsOrANegativeSinusoidalStartAreRefused) {
  EXPECT_EQ(refusal_of_changed(kSinusoidal, [](KernelCall& call) { call.rows = -1; }), "a table needs rows >= 0, found -1");
  EXPECT_EQ(refusal_of_changed(kSinusoidal, [](KernelCall& call) { call.first = -1; }), "sinusoidal positions start at 0, found -1");
  EXPECT_EQ(refusal_of_changed(kXl, [](KernelCall& call) { call.first = -1; }), "no refusal");
}

// A table's positions lie within its plan's largest position: a sinusoidal table's from first
// plus the spec's offset (1000), an xl table's from first. Each call ends one position past it.
TEST(DeviceCallChecks, ATablesPositionsMustLieWithinThePlansRange) {
  const std::int64_t sinusoidal_largest = cpu::make_sinusoid_plan(Spec::parse("sinusoidal(d=8,layout=half,offset=1000,dtype=fp32)")).largest_position;
  const std::int64_t xl_largest = cpu::make_sinusoid_plan(Spec::parse("xl(d=12,clamp_len=300,dtype=fp32)")).largest_position;
  // Without the offset, the sinusoidal call would end 999 positions inside the range.
  EXPECT_EQ(refusal_of_changed(kSinusoidal, [&](KernelCall& call) { call.first = sinusoidal_largest - 1000 - call.rows + 2; }),
            fmt::format("table positions {}..{} leave +-{}", sinusoidal_largest - 40 + 2, sinusoidal_largest + 1, sinusoidal_largest));
  EXPECT_EQ(refusal_of_changed(kXl, [&](KernelCall& call) { call.first = xl_largest - call.rows + 2; }),
            fmt::format("table positions {}..{} leave +-{}", xl_largest - 40 + 2, xl_largest + 1, xl_largest));
}

// A table, a relative call and a learned gather each write one output: two are refused, named.
TEST(DeviceCallChecks, ACallOfOneOutputGivenTwoIsRefused) {
  const auto second_output = [](KernelCall& call) { call.outputs.push_back(call.outputs[0]); };
  EXPECT_EQ(refusal_of_changed(kSinusoidal, second_output), "a table call has one output, found 2");
  EXPECT_EQ(refusal_of_changed(kT5, second_output), "a relative call has one output, found 2");
  EXPECT_EQ(refusal_of_changed(kLearned, second_output), "a learned gather takes one table and one output, found 1 and 2");
}

// A table's [1, rows, 1, d] view must lie in its output.
TEST(DeviceCallChecks, ATablesViewMustLieInItsOutput) {
  std::string expected;
  const std::string refusal = refusal_of_changed(kSinusoidal, [&](KernelCall& call) {
    expected = leaves_its_buffer("the table", call.outputs[0], cut_before_farthest(call.outputs[0], {1, call.rows, 1, 8}));
  });
  EXPECT_EQ(refusal, expected);
}

// A relative call's queries and keys lie within +-kLargestTablePosition (2^40): four queries,
// or six keys, from the largest position itself are refused naming the run.
TEST(DeviceCallChecks, ARelativeCallsQueriesAndKeysMustLieWithinTheTablesRange) {
  const std::int64_t largest = cpu::kLargestTablePosition;
  EXPECT_EQ(refusal_of_changed(kT5, [&](KernelCall& call) { call.first = largest; }),
            fmt::format("query positions {}..{} leave +-{}", largest, largest + 3, largest));
  EXPECT_EQ(refusal_of_changed(kT5, [&](KernelCall& call) { call.key_first = largest; }),
            fmt::format("key positions {}..{} leave +-{}", largest, largest + 5, largest));
}

// An ALiBi row holds at most 2^31 - 1 keys (the device kernel indexes a row with int32): one more
// is refused by that check; 2^31 - 1 itself passes it (and is then refused as longer than the
// output's 5 keys).
TEST(DeviceCallChecks, AnAlibiRowOfMoreThanInt32MaxKeysIsRefused) {
  constexpr std::int64_t most = std::numeric_limits<std::int32_t>::max();
  EXPECT_EQ(refusal_of_changed(kAlibi, [](KernelCall& call) { call.keys = most + 1; }),
            "an ALiBi row of 2147483648 keys is longer than 2^31 - 1; split the call");
  EXPECT_EQ(refusal_of_changed(kAlibi, [](KernelCall& call) { call.keys = most; }),
            "the output: extent 2147483647 in dimension 3 is outside its shape 5");
}

// A relative call's view, [1, heads, rows, keys] for ALiBi and [1, 1, rows, keys] for T5 and
// Shaw, must lie in its output: cut before ALiBi's last head's last key, or T5's last key.
TEST(DeviceCallChecks, ARelativeCallsViewMustLieInItsOutput) {
  std::string expected;
  const std::string alibi = refusal_of_changed(kAlibi, [&](KernelCall& call) {
    expected = leaves_its_buffer("the output", call.outputs[0], cut_before_farthest(call.outputs[0], {1, 4, call.rows, call.keys}));
  });
  EXPECT_EQ(alibi, expected);
  const std::string t5 = refusal_of_changed(kT5, [&](KernelCall& call) {
    expected = leaves_its_buffer("the output", call.outputs[0], cut_before_farthest(call.outputs[0], {1, 1, call.rows, call.keys}));
  });
  EXPECT_EQ(t5, expected);
}

// A learned gather reads one id axis: two are refused, named.
TEST(DeviceCallChecks, ALearnedGatherOfAnotherIdAxisCountIsRefused) {
  EXPECT_EQ(refusal_of_changed(kLearned, [](KernelCall& call) { call.axes = 2; }), "a learned gather takes 1 id axis, found 2");
}

// A learned gather's [1, 1, rows, d] table and [batch, seq, 1, d] output must lie in their buffers.
TEST(DeviceCallChecks, ALearnedTableOrItsGatheredRowsThatLeaveTheirBufferAreRefused) {
  std::string expected;
  const std::string table = refusal_of_changed(kLearned, [&](KernelCall& call) {
    expected = leaves_its_buffer("the learned table", call.inputs[0], cut_before_farthest(call.inputs[0], {1, 1, 5, 4}));
  });
  EXPECT_EQ(table, expected);
  const std::string rows = refusal_of_changed(kLearned, [&](KernelCall& call) {
    expected = leaves_its_buffer("the gathered rows", call.outputs[0], cut_before_farthest(call.outputs[0], {2, 3, 1, 4}));
  });
  EXPECT_EQ(rows, expected);
}

// A learned id is a row of the table, 0..rows-1: -1 is refused naming it and where it sits.
TEST(DeviceCallChecks, ANegativeLearnedIdIsRefused) {
  EXPECT_EQ(refusal_of_changed(kLearned, [](KernelCall& call) { call.ids64_data[4] = -1; }),
            "position id -1 at [batch 1, seq 1] is past the learned table of 5 rows (valid: 0..4)");
}

}  // namespace
}  // namespace peconform::device
