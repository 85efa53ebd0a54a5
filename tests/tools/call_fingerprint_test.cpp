// An exported case's outputs are found again by the call's fingerprint (tensorfiles/call_arrays.hpp):
// two calls that differ in any one of the facts it hashes must not share it, so that a kernel's
// outputs are never checked against another call's. Also the rest of call_arrays.hpp (the files'
// element order, dtypes and shapes) and the outputs backend of `run --outputs` (outputs_check.hpp).
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <fmt/format.h>
#include <functional>
#include <stdexcept>
#include <tuple>

#include "backends/backend_registry.hpp"
#include "spec/spec_error.hpp"
#include "support/scratch_dir.hpp"
#include "tensorfiles/call_arrays.hpp"
#include "tensorfiles/manifest.hpp"
#include "tensorfiles/file_route.hpp"
#include "tensorfiles/npy_file.hpp"
#include "tensorfiles/outputs_check.hpp"

namespace peconform::tensorfiles {
namespace {

KernelCall two_operand_call() {
  KernelCall call;
  call.spec = Spec::parse("rope(d=8,dtype=fp32)");
  call.sequence_length = 9;
  call.batch = 2;
  call.seq = 3;
  call.ids64_data = {0, 1, 2, 3, 4, 5};
  call.outputs.resize(2);
  for (Buffer& output : call.outputs) {
    output.shape = {2, 3, 4, 8};
    output.stride = {96, 32, 8, 1};
  }
  return call;
}

TEST(CallFingerprint, EachFactItHashesTellsTwoCallsApart) {
  const KernelCall base = two_operand_call();
  EXPECT_EQ(call_fingerprint(base), call_fingerprint(two_operand_call()));
  const std::vector<std::pair<const char*, std::function<void(KernelCall&)>>> changes{
      {"spec", [](KernelCall& c) { c.spec = Spec::parse("rope(d=8,dtype=fp32,sign=-1)"); }},
      {"sequence length", [](KernelCall& c) { c.sequence_length = 10; }},
      {"id offset", [](KernelCall& c) { c.id_offset = 1; }},
      {"in place", [](KernelCall& c) { c.in_place = true; }},
      {"an id", [](KernelCall& c) { c.ids64_data[5] = 7; }},
      {"the first output's extent", [](KernelCall& c) { c.outputs[0].shape[2] = 3; }},
      {"the second output's stride", [](KernelCall& c) { c.outputs[1].stride[1] = 40; }},
      {"the outputs' order of axes", [](KernelCall& c) { c.outputs[1].stride = {96, 8, 24, 1}; }},
      // Each of these alone, with the inputs and ids unchanged: only the hash of the call's own
      // numbers tells such calls apart (input_fingerprint covers the bytes, not these).
      {"the first row", [](KernelCall& c) { c.first = 1; }},
      {"the rows", [](KernelCall& c) { c.rows = 1; }},
      {"the first key", [](KernelCall& c) { c.key_first = 1; }},
      {"the keys", [](KernelCall& c) { c.keys = 1; }},
      {"the batch", [](KernelCall& c) { c.batch = 3; }},
      {"the seq", [](KernelCall& c) { c.seq = 2; }},
      {"the axes", [](KernelCall& c) { c.axes = 2; }},
      {"the ids' width", [](KernelCall& c) { c.ids64 = false; }},
  };
  for (const auto& [what, change] : changes) {
    KernelCall changed = two_operand_call();
    change(changed);
    EXPECT_NE(call_fingerprint(changed), call_fingerprint(base)) << what;
  }
}

// A buffer of `type` and logical shape [batch, seq, heads, d] laid out with `stride`, its
// storage elements all zero (guards included).
Buffer strided_buffer(ElementType type, std::array<std::int64_t, 4> shape, std::array<std::int64_t, 4> stride) {
  Buffer buffer;
  buffer.type = type;
  buffer.shape = shape;
  buffer.stride = stride;
  std::int64_t last = 0;
  for (std::size_t axis = 0; axis < 4; ++axis) last += (shape[axis] - 1) * stride[axis];
  buffer.bytes.assign(static_cast<std::size_t>(buffer.origin + last + 1 + kGuardElements) * element_size(type), std::byte{0});
  return buffer;
}

// The files hold C order of [batch, seq, heads, d] (call_arrays.hpp), whatever the case's memory
// order: element (b, s, h, e) of a buffer stored heads-first is the file's element
// ((b * seq + s) * heads + h) * d + e, and writing the file's elements back puts each where it
// came from. NumPy reads the file in that order, so a kernel indexing q[b, s, h, e] needs it.
TEST(CallArrays, FilesHoldTheElementsInCOrderOfBatchSeqHeadsD) {
  const std::array<std::int64_t, 4> shape{2, 3, 4, 5};
  // heads outermost after batch, then d, then seq, plus padding: no axis where C order puts it.
  Buffer buffer = strided_buffer(ElementType::int32, shape, {130, 2, 32, 6});
  for (std::int64_t b = 0; b < 2; ++b)
    for (std::int64_t s = 0; s < 3; ++s)
      for (std::int64_t h = 0; h < 4; ++h)
        for (std::int64_t e = 0; e < 5; ++e) buffer.set_bits(buffer.offset_of(b, s, h, e), static_cast<std::uint64_t>(1000 * b + 100 * s + 10 * h + e));
  const std::vector<std::byte> bytes = logical_bytes(buffer);
  ASSERT_EQ(bytes.size(), 120u * 4);
  std::vector<std::int32_t> values(120);
  std::memcpy(values.data(), bytes.data(), bytes.size());
  std::size_t logical = 0;
  for (std::int64_t b = 0; b < 2; ++b)
    for (std::int64_t s = 0; s < 3; ++s)
      for (std::int64_t h = 0; h < 4; ++h)
        for (std::int64_t e = 0; e < 5; ++e, ++logical)
          EXPECT_EQ(values[logical], 1000 * b + 100 * s + 10 * h + e) << "file element " << logical;
  Buffer back = strided_buffer(ElementType::int32, shape, {130, 2, 32, 6});
  set_logical_bytes(back, bytes);
  EXPECT_EQ(back.bytes, buffer.bytes) << "each element written back where it was read";
}

// A file's data of the wrong size is a bug in the route, never copied short or past the buffer.
TEST(CallArrays, SetLogicalBytesRefusesAByteCountThatIsNotTheBuffers) {
  Buffer buffer = strided_buffer(ElementType::fp32, {1, 2, 1, 4}, {8, 4, 4, 1});
  const std::vector<std::byte> right(8 * 4);
  EXPECT_NO_THROW(set_logical_bytes(buffer, right));
  EXPECT_THROW(set_logical_bytes(buffer, std::span(right).first(31)), std::logic_error);
  EXPECT_THROW(set_logical_bytes(buffer, std::vector<std::byte>(33)), std::logic_error);
}

// Each element type's .npy dtype and the note the manifest gives it (call_arrays.hpp): fp16 is
// NumPy's float16, bf16 has no NumPy dtype and travels as its bits, T5 and Shaw buckets are
// int32. A wrong one of the same size still round-trips through the file kernel, so only this
// test sees it.
TEST(CallArrays, EachElementTypeIsStoredAsItsOwnDtype) {
  const std::vector<std::tuple<ElementType, std::string, std::string>> storage = {
      {ElementType::fp64, "<f8", "fp64"}, {ElementType::fp32, "<f4", "fp32"}, {ElementType::fp16, "<f2", "fp16"},
      {ElementType::bf16, "<u2", "bf16 bits as uint16"}, {ElementType::int32, "<i4", "int32"}};
  for (const auto& [type, descr, note] : storage) {
    EXPECT_EQ(storage_descr(type), descr) << note;
    EXPECT_EQ(storage_note(type), note) << descr;
  }
}

// Each family's operands as the files show them (call_arrays.hpp): the table families drop the
// axes of extent 1 the C ABI gives them, each its own ones.
TEST(CallArrays, EachFamilyShowsItsBuffersInTheirOwnShape) {
  Buffer buffer;
  buffer.shape = {2, 3, 5, 7};
  using Shape = std::vector<std::int64_t>;
  EXPECT_EQ(shown_shape(buffer, Family::rope, true), (Shape{2, 3, 5, 7}));
  EXPECT_EQ(shown_shape(buffer, Family::learned, true), (Shape{5, 7}));
  EXPECT_EQ(shown_shape(buffer, Family::learned, false), (Shape{2, 3, 7}));
  EXPECT_EQ(shown_shape(buffer, Family::sinusoidal, false), (Shape{3, 7}));
  EXPECT_EQ(shown_shape(buffer, Family::xl, false), (Shape{3, 7}));
  EXPECT_EQ(shown_shape(buffer, Family::alibi, false), (Shape{3, 5, 7}));
  EXPECT_EQ(shown_shape(buffer, Family::t5, false), (Shape{5, 7}));
  EXPECT_EQ(shown_shape(buffer, Family::shaw, false), (Shape{5, 7}));
}

// A one-output fp32 rope call, [1, 2, 1, 8], and a manifest that exported it alone (as a replay,
// so that the backend draws nothing) with `outputs` output files.
KernelCall one_output_call(std::int64_t sequence_length) {
  KernelCall call;
  call.spec = Spec::parse("rope(d=8,dtype=fp32)");
  call.sequence_length = sequence_length;
  call.seq = 2;
  call.ids64_data = {0, 1};
  call.outputs = {strided_buffer(ElementType::fp32, {1, 2, 1, 8}, {16, 8, 8, 1})};
  return call;
}

Manifest manifest_of(const KernelCall& call, std::size_t outputs) {
  Manifest manifest;
  manifest.spec = "rope(d=8,dtype=fp32)";
  manifest.profile = "smoke";
  manifest.replay = "the case";
  ManifestCase c;
  c.index = 5;
  c.case_text = "the case";
  c.fingerprint = fmt::format("{:016x}", call_fingerprint(call));
  for (std::size_t o = 0; o < outputs; ++o) c.outputs.push_back({"out", fmt::format("out{}.npy", o), "<f4", {1, 2, 1, 8}, "fp32"});
  manifest.entries = {c};
  return manifest;
}

// The outputs backend answers only the calls that were exported: another call (here one of
// another sequence length) is refused naming the folder, never answered with some case's files.
TEST(OutputsBackend, ACallNoExportedCaseMakesIsRefusedNamingTheFolder) {
  const ScratchDir dir;
  const auto backend = make_outputs_backend(dir.path(), manifest_of(one_output_call(9), 1));
  KernelCall other = one_output_call(10);
  try {
    backend->run(other);
    ADD_FAILURE() << "a call no case made was answered";
  } catch (const SpecError& error) {
    EXPECT_NE(std::string(error.what()).find(fmt::format("no exported case of '{}' makes this {} call", dir.path().string(),
                                                         other.spec.canonical())),
              std::string::npos)
        << error.what();
  }
}

// A manifest entry naming more outputs than its call has is refused, not read in part.
TEST(OutputsBackend, ACaseWhoseOutputCountDiffersFromItsCallsIsRefused) {
  const ScratchDir dir;
  write_npy(dir.path() / "out0.npy", "<f4", {1, 2, 1, 8}, std::vector<std::byte>(64));
  write_npy(dir.path() / "out1.npy", "<f4", {1, 2, 1, 8}, std::vector<std::byte>(64));
  KernelCall call = one_output_call(9);
  const auto backend = make_outputs_backend(dir.path(), manifest_of(call, 2));
  try {
    backend->run(call);
    ADD_FAILURE() << "two outputs were taken for a one-output call";
  } catch (const std::runtime_error& error) {
    EXPECT_STREQ(error.what(), "case 5 of the manifest names 2 outputs; its call has 1");
  }
}

// Each output is read again and checked against its call as the case runs (a file replaced
// since the folder was checked): one of another dtype of the same size is refused naming the
// file and what it is for; the right one becomes the call's output elements.
TEST(OutputsBackend, EachOutputIsCheckedAgainstItsCallAsTheCaseRuns) {
  const ScratchDir dir;
  KernelCall call = one_output_call(9);
  const auto backend = make_outputs_backend(dir.path(), manifest_of(call, 1));
  write_npy(dir.path() / "out0.npy", "<i4", {1, 2, 1, 8}, std::vector<std::byte>(64));
  try {
    backend->run(call);
    ADD_FAILURE() << "an int32 file was taken as the fp32 output";
  } catch (const SpecError& error) {
    EXPECT_STREQ(error.what(), fmt::format("'{}' has dtype '<i4', but the kernel's output out of case 5 ('the case') must have dtype '<f4'",
                                           (dir.path() / "out0.npy").string())
                                   .c_str());
  }
  std::vector<float> values(16);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = 0.5f * static_cast<float>(i);
  write_npy(dir.path() / "out0.npy", "<f4", {1, 2, 1, 8}, std::as_bytes(std::span(values)));
  backend->run(call);
  EXPECT_EQ(call.outputs[0].value(call.outputs[0].offset_of(0, 1, 0, 7)), 7.5);
}

// Our CPU kernels, with one element of the first call's first output made wrong: a failure that
// no replay reproduces, which the campaign reports as flaky.
class WrongOnceBackend final : public TensorBackend {
 public:
  std::string name() const override { return kBackendName; }
  BackendCapabilities capabilities() const override { return cpu_->capabilities(); }
  void run(KernelCall& call) const override {
    cpu_->run(call);
    if (calls_++ > 0) return;
    Buffer& out = call.outputs.at(0);
    const std::int64_t at = out.offset_of(0, 0, 0, 0);
    out.set_bits(at, element_bits(out.type, out.value(at) + 0.25));
  }

 private:
  std::unique_ptr<TensorBackend> cpu_ = make_backend("cpu");
  mutable std::atomic<int> calls_{0};
};

// A failure the route finds is replayed through files and never shrunk, so it says so; but a
// flaky one keeps its own note, which says which replay passed (the more useful fact).
TEST(OutputsRoute, AFlakyFailureKeepsItsOwnShrinkNote) {
  const ScratchDir dir;
  // One drawn case (a --replay case is not shrunk, so never found flaky).
  const Drawing drawing = file_route_drawing("rope(d=8,dtype=fp32)");
  OutputsRun run;
  run.folder = dir.path();
  run.options.profile = harness::profile_named("smoke");
  run.options.seed = 7;
  run.options.cases = 1;
  run.options.filters = drawing.filters;
  run.options.filters_text = drawing.filters_text;
  run.options.regressions = dir.path();
  run.options.save_regressions = false;
  run.kernel = std::make_unique<WrongOnceBackend>();
  const std::atomic<bool> stop{false};
  const harness::CampaignResult result = run_outputs(run, {}, stop);
  ASSERT_EQ(result.failures.size(), 1u);
  const harness::FailureRecord& failure = result.failures[0];
  ASSERT_TRUE(failure.flaky) << failure.shrink_note;
  EXPECT_TRUE(failure.shrink_note.starts_with("flaky: ")) << failure.shrink_note;
  EXPECT_EQ(failure.replay_command, file_route_replay_command(failure.case_text));
}

}  // namespace
}  // namespace peconform::tensorfiles
