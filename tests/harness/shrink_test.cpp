// Shrinking keeps only what reproduces: a smaller case that passes one of its replays is not
// reported, and the failure is marked flaky (issue 18, point 3).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "backends/backend_registry.hpp"
#include "broken_backends.hpp"
#include "harness/campaign.hpp"
#include "harness/shrink.hpp"
#include "spec/spec_error.hpp"

namespace peconform::harness {
namespace {

// Several tokens, heads and batch rows, out of place, so that shrinking has every axis to narrow.
CaseDescription racy_case() {
  return CaseDescription::parse(
      "rope(d=64,base=10000,layout=half,dtype=fp32) | batch=2 seq=6 heads=4 order=bhsd pad=2 place=out inputs=activations "
      "seed=11");
}

TEST(Shrink, AShrunkCaseThatPassesAReplayGivesWayToTheLastCaseThatFailedEveryReplay) {
  const std::unique_ptr<TensorBackend> racy = make_broken_backend("racy-one-token");
  const CaseOutcome drawn = run_case(racy_case(), *racy);
  ASSERT_TRUE(drawn.failed());
  const Shrunk shrunk = shrink_case(racy_case(), drawn, *racy);

  EXPECT_TRUE(shrunk.flaky);
  EXPECT_TRUE(shrunk.note.starts_with("flaky: replay ")) << shrunk.note;
  EXPECT_NE(shrunk.note.find("this case failed all 5"), std::string::npos) << shrunk.note;
  // One-token calls lose the race only sometimes: the case kept has all six tokens, but was
  // narrowed as far as the race allows (one batch row, one head).
  EXPECT_FALSE(shrunk.description.select.token) << shrunk.description.text();
  EXPECT_TRUE(shrunk.description.select.head) << shrunk.description.text();
  EXPECT_TRUE(shrunk.description.select.batch) << shrunk.description.text();
  for (int replay = 0; replay < kShrunkReplays; ++replay)
    EXPECT_TRUE(run_case(shrunk.description, *racy).failed()) << "replay " << replay << " of " << shrunk.description.text();
}

// A kernel that is broken for its first `failing_calls` calls and correct from then on.
class BrokenForAWhile : public TensorBackend {
 public:
  explicit BrokenForAWhile(int failing_calls)
      : broken_(make_broken_backend("last-element-unwritten")), correct_(make_backend("cpu")), failing_calls_(failing_calls) {}
  std::string name() const override { return "broken-for-a-while"; }
  BackendCapabilities capabilities() const override { return correct_->capabilities(); }
  void run(KernelCall& call) const override { (++calls_ <= failing_calls_ ? broken_ : correct_)->run(call); }

 private:
  std::unique_ptr<TensorBackend> broken_, correct_;
  int failing_calls_;
  mutable int calls_ = 0;
};

// A kernel that throws on calls of several batch rows and refuses calls of one: the narrowed
// case fails too, but another way (refused, not error), so it is not the same failure.
class ThrowsOnManyRowsRefusesOne : public TensorBackend {
 public:
  std::string name() const override { return "throws-on-many-rows"; }
  BackendCapabilities capabilities() const override { return make_backend("cpu")->capabilities(); }
  void run(KernelCall& call) const override {
    if (call.batch > 1) throw std::runtime_error("many rows");
    throw SpecError("one row is refused");
  }
};

// "Fails the same way" compares a kernel's error kind too (the checklist's shrink #1): a
// narrowed case that is refused does not stand for one that threw.
TEST(Shrink, ANarrowedCaseThatFailsWithAnotherErrorKindIsNotKept) {
  const ThrowsOnManyRowsRefusesOne kernel;
  const CaseOutcome drawn = run_case(racy_case(), kernel);
  ASSERT_EQ(drawn.error_kind, "error");
  const Shrunk shrunk = shrink_case(racy_case(), drawn, kernel);
  EXPECT_FALSE(shrunk.description.select.batch) << shrunk.description.text();
  EXPECT_EQ(run_case(shrunk.description, kernel).error_kind, "error") << shrunk.description.text();
}

// The replays counted one by one (issue 38: a mutant that replayed six times, numbering them
// from 0, survived). The case is already one element, out of place, unpadded and bshd, so no
// narrowing runs it: the kernel's calls are the drawn run, then replays 1 to 5.
TEST(Shrink, ReplaysAreFiveNumberedFromOne) {
  CaseDescription one_element = racy_case();
  one_element.select = {1, 5, 3, std::nullopt};  // the last batch row, token and head
  one_element.pad = 0;
  one_element.order = "bshd";
  // Broken for the drawn run and replays 1 and 2: replay 3 is the first to pass.
  BrokenForAWhile three(3);
  const Shrunk flaky = shrink_case(one_element, run_case(one_element, three), three);
  EXPECT_TRUE(flaky.flaky);
  EXPECT_EQ(flaky.note, "flaky: replay 3 of 5 of this case passed");
  // Broken for the drawn run and all five replays: reproduced, and a sixth run would pass.
  BrokenForAWhile six(6);
  const Shrunk reproduced = shrink_case(one_element, run_case(one_element, six), six);
  EXPECT_FALSE(reproduced.flaky) << reproduced.note;
  EXPECT_EQ(reproduced.note, "");
}

TEST(Shrink, ACaseThatFailsEveryReplayIsShrunkToOneElementAndNotFlaky) {
  const std::unique_ptr<TensorBackend> broken = make_broken_backend("last-element-unwritten");
  const CaseOutcome drawn = run_case(racy_case(), *broken);
  ASSERT_TRUE(drawn.failed());
  const Shrunk shrunk = shrink_case(racy_case(), drawn, *broken);
  EXPECT_FALSE(shrunk.flaky);
  EXPECT_EQ(shrunk.note, "");
  EXPECT_TRUE(shrunk.description.select.token && shrunk.description.select.head && shrunk.description.select.batch)
      << shrunk.description.text();
}

TEST(Shrink, TheCampaignMarksTheFailureFlakyInItsRecordAndReport) {
  CampaignOptions options;
  options.profile = profile_named("smoke");
  options.seed = 5;
  options.cases = 4;
  options.filters.spec = racy_case().spec;
  options.save_regressions = false;
  options.run_properties = false;
  const std::unique_ptr<TensorBackend> racy = make_broken_backend("racy-one-token");
  const std::atomic<bool> stop{false};
  const CampaignResult result = run_campaign(options, *racy, {}, stop);
  const nlohmann::json json = to_json(result);
  ASSERT_EQ(json.at("failures").size(), result.failures.size());
  int flaky = 0;
  for (std::size_t i = 0; i < result.failures.size(); ++i) {
    const FailureRecord& failure = result.failures[i];
    const CaseDescription kept = CaseDescription::parse(failure.case_text);
    // This kernel fails a one-token call on every second run only: never five runs in a row.
    if (kept.select.token || kept.seq == 1) {
      EXPECT_TRUE(failure.flaky) << failure.case_text;
    }
    if (failure.flaky) {
      EXPECT_TRUE(failure.shrink_note.starts_with("flaky: ")) << failure.shrink_note;
    }
    EXPECT_EQ(json.at("failures").at(i).at("flaky"), failure.flaky);
    EXPECT_EQ(json.at("failures").at(i).at("shrink_note"), failure.shrink_note);
    flaky += failure.flaky;
  }
  EXPECT_GT(flaky, 0) << "seed 5 draws cases of several tokens, whose one-token shrinks are flaky";
}

// The racy case narrowed to its last batch row, token and head, as a failure of the last element
// narrows (ReplaysAreFiveNumberedFromOne's shape): shrinking has nothing left to narrow there.
CaseDescription last_element_case() {
  CaseDescription c = racy_case();
  c.select = {1, 5, 3, std::nullopt};
  c.pad = 0;
  c.order = "bshd";
  return c;
}

// The storage index of a buffer's last logical element.
std::int64_t last_element(const Buffer& out) {
  return out.offset_of(out.shape[0] - 1, out.shape[1] - 1, out.shape[2] - 1, out.shape[3] - 1);
}

// Writes `bits` over the last element of the call's last output, after the CPU kernel ran.
void overwrite_last_element(KernelCall& call, std::uint64_t bits) {
  Buffer& out = call.outputs.back();
  out.set_bits(last_element(out), bits);
}

// A kernel whose every call leaves a NaN in its last output element, in place or not, in any
// layout: every narrowing and every plainer call fails the same way.
class LastElementNan : public TensorBackend {
 public:
  std::string name() const override { return "last-element-nan"; }
  BackendCapabilities capabilities() const override { return cpu_->capabilities(); }
  void run(KernelCall& call) const override {
    cpu_->run(call);
    overwrite_last_element(call, element_bits(call.outputs.back().type, std::numeric_limits<double>::quiet_NaN()));
  }

 private:
  std::unique_ptr<TensorBackend> cpu_ = make_backend("cpu");
};

// After narrowing, the shrunk case is the plainest call that still fails: no padding, the bshd
// order and out of place (the checklist's shrink #19), from a drawn case padded, bhsd and in place.
TEST(Shrink, TheShrunkCaseIsUnpaddedBshdAndOutOfPlaceWhereItStillFailsSo) {
  CaseDescription drawn = racy_case();
  drawn.in_place = true;
  ASSERT_EQ(drawn.pad, 2);
  ASSERT_EQ(drawn.order, "bhsd");
  const LastElementNan kernel;
  const Shrunk shrunk = shrink_case(drawn, run_case(drawn, kernel), kernel);
  EXPECT_FALSE(shrunk.flaky) << shrunk.note;
  EXPECT_EQ(shrunk.description.pad, 0) << shrunk.description.text();
  EXPECT_EQ(shrunk.description.order, "bshd") << shrunk.description.text();
  EXPECT_FALSE(shrunk.description.in_place) << shrunk.description.text();
}

// Fails with the last element unwritten on calls of several tokens, and with a NaN at the first
// element on one-token calls: the one-token narrowing fails, but another way.
class FailsAnotherWayOnOneToken : public TensorBackend {
 public:
  std::string name() const override { return "fails-another-way-on-one-token"; }
  BackendCapabilities capabilities() const override { return cpu_->capabilities(); }
  void run(KernelCall& call) const override {
    if (call.seq > 1) return unwritten_->run(call);
    cpu_->run(call);
    Buffer& out = call.outputs.back();
    out.set_bits(out.offset_of(0, 0, 0, 0), element_bits(out.type, std::numeric_limits<double>::quiet_NaN()));
  }

 private:
  std::unique_ptr<TensorBackend> unwritten_ = make_broken_backend("last-element-unwritten"), cpu_ = make_backend("cpu");
};

// A narrowing is kept only where it fails with the drawn case's kind (the checklist's shrink #4
// and #17): the one-token case fails with a NaN, not the unwritten element the drawn case
// showed, so it stands for another defect and is not reported for this one.
TEST(Shrink, ANarrowedCaseThatFailsWithAnotherElementKindIsNotKept) {
  const FailsAnotherWayOnOneToken kernel;
  const CaseOutcome drawn = run_case(racy_case(), kernel);
  ASSERT_TRUE(drawn.verdict.first_failure);
  ASSERT_EQ(drawn.verdict.first_failure->kind, "unwritten");
  const Shrunk shrunk = shrink_case(racy_case(), drawn, kernel);
  EXPECT_FALSE(shrunk.description.select.token) << shrunk.description.text();
  ASSERT_TRUE(shrunk.outcome.verdict.first_failure) << shrunk.description.text();
  EXPECT_EQ(shrunk.outcome.verdict.first_failure->kind, "unwritten") << shrunk.description.text();
  EXPECT_FALSE(shrunk.flaky) << shrunk.note;
  // It was narrowed on the axes that keep the failure: one batch row and one head.
  EXPECT_TRUE(shrunk.description.select.batch && shrunk.description.select.head) << shrunk.description.text();
}

// Fails with the last element unwritten on its first call, and throws on every later one.
class UnwrittenThenThrows : public TensorBackend {
 public:
  std::string name() const override { return "unwritten-then-throws"; }
  BackendCapabilities capabilities() const override { return unwritten_->capabilities(); }
  void run(KernelCall& call) const override {
    if (++calls_ > 1) throw std::runtime_error("a device error");
    unwritten_->run(call);
  }

 private:
  std::unique_ptr<TensorBackend> unwritten_ = make_broken_backend("last-element-unwritten");
  mutable int calls_ = 0;
};

// A replay that fails another way (it threw, where the drawn run left an element unwritten) has
// not reproduced the failure: it counts as a replay that passed (the checklist's shrink #12).
TEST(Shrink, AReplayThatFailsAnotherWayCountsAsOneThatPassed) {
  UnwrittenThenThrows kernel;
  const CaseOutcome drawn = run_case(last_element_case(), kernel);
  ASSERT_TRUE(drawn.verdict.first_failure);
  const Shrunk shrunk = shrink_case(last_element_case(), drawn, kernel);
  EXPECT_TRUE(shrunk.flaky);
  EXPECT_EQ(shrunk.note, "flaky: replay 1 of 5 of this case passed");
}

// A CPU kernel that counts its calls.
class CountingCpu : public TensorBackend {
 public:
  std::string name() const override { return "counting-cpu"; }
  BackendCapabilities capabilities() const override { return cpu_->capabilities(); }
  void run(KernelCall& call) const override {
    ++calls;
    cpu_->run(call);
  }
  mutable int calls = 0;

 private:
  std::unique_ptr<TensorBackend> cpu_ = make_backend("cpu");
};

// A hanging kernel's case is reported as drawn, with a note saying why, and never run again:
// each run would cost the whole case timeout (the checklist's shrink #13).
TEST(Shrink, AHangingKernelsCaseIsNeitherShrunkNorReplayed) {
  CaseOutcome hung;
  hung.error = "no answer within the case timeout";
  hung.error_kind = "hang";
  const CountingCpu kernel;
  const Shrunk shrunk = shrink_case(racy_case(), hung, kernel);
  EXPECT_EQ(kernel.calls, 0);
  EXPECT_EQ(shrunk.description.text(), racy_case().text());
  EXPECT_FALSE(shrunk.flaky);
  EXPECT_TRUE(shrunk.note.starts_with("not shrunk or replayed")) << shrunk.note;
  EXPECT_EQ(shrunk.outcome.error_kind, "hang");
}

// A kernel that takes in-place calls only (a plugin may say so), leaving its last element as the
// input held it; it counts the out-of-place calls it was given.
class InPlaceOnly : public TensorBackend {
 public:
  std::string name() const override { return "in-place-only"; }
  BackendCapabilities capabilities() const override {
    BackendCapabilities capabilities = unwritten_->capabilities();
    capabilities.takes.out_of_place = false;
    return capabilities;
  }
  void run(KernelCall& call) const override {
    if (!call.in_place) ++out_of_place_calls;
    unwritten_->run(call);
  }
  mutable int out_of_place_calls = 0;

 private:
  std::unique_ptr<TensorBackend> unwritten_ = make_broken_backend("last-element-unwritten");
};

// Shrinking tries only calls the kernel takes (the checklist's shrink #15): the out-of-place
// narrowing is never run on a kernel that takes in-place calls alone, and the case reported is
// one it takes.
TEST(Shrink, ANarrowingTheKernelDoesNotTakeIsNotRun) {
  CaseDescription drawn = racy_case();
  drawn.in_place = true;
  const InPlaceOnly kernel;
  const CaseOutcome outcome = run_case(drawn, kernel);
  ASSERT_TRUE(outcome.failed());
  const Shrunk shrunk = shrink_case(drawn, outcome, kernel);
  EXPECT_EQ(kernel.out_of_place_calls, 0);
  EXPECT_TRUE(shrunk.description.in_place) << shrunk.description.text();
  EXPECT_TRUE(takes_call(shrunk.description, kernel.capabilities().takes)) << shrunk.description.text();
}

// Fails on odd calls (the last element unwritten, or in the kernel's own array) and is correct on
// even ones: no case, not even the drawn one, fails five replays in a row.
class FailsEveryOtherCall : public TensorBackend {
 public:
  explicit FailsEveryOtherCall(bool own_array) : own_array_(own_array) {}
  std::string name() const override { return "fails-every-other-call"; }
  BackendCapabilities capabilities() const override { return cpu_->capabilities(); }
  void run(KernelCall& call) const override {
    (++calls_ % 2 == 1 ? unwritten_ : cpu_)->run(call);
    if (own_array_)
      for (Buffer& out : call.outputs) out.kernel_array = true;
  }

 private:
  bool own_array_;
  std::unique_ptr<TensorBackend> unwritten_ = make_broken_backend("last-element-unwritten"), cpu_ = make_backend("cpu");
  mutable int calls_ = 0;
};

// Where not even the drawn case fails every replay, the drawn case is reported and the note says
// so: which replay of the smaller case passed, and which of this one (the checklist's shrink #25);
// never that this case failed all five.
TEST(Shrink, WhereNotEvenTheDrawnCaseFailsEveryReplayTheNoteNamesAPassingReplayOfEach) {
  FailsEveryOtherCall kernel(false);
  const CaseOutcome drawn = run_case(racy_case(), kernel);
  ASSERT_TRUE(drawn.failed());
  const Shrunk shrunk = shrink_case(racy_case(), drawn, kernel);
  EXPECT_TRUE(shrunk.flaky);
  EXPECT_EQ(shrunk.description.text(), racy_case().text());
  // "flaky: replay N of 5 of the smaller case '<case>' passed, and replay M of this case", N and M
  // from 1 to 5.
  const std::string head = "flaky: replay ", smaller = " of 5 of the smaller case '", tail = "' passed, and replay ";
  ASSERT_TRUE(shrunk.note.starts_with(head)) << shrunk.note;
  EXPECT_TRUE(shrunk.note[head.size()] >= '1' && shrunk.note[head.size()] <= '5') << shrunk.note;
  EXPECT_EQ(shrunk.note.substr(head.size() + 1, smaller.size()), smaller) << shrunk.note;
  const std::size_t tail_at = shrunk.note.rfind(tail);
  ASSERT_NE(tail_at, std::string::npos) << shrunk.note;
  EXPECT_GT(tail_at, head.size() + 1 + smaller.size()) << "the smaller case is named: " << shrunk.note;
  const std::string last = shrunk.note.substr(tail_at + tail.size());
  EXPECT_TRUE(last.size() == std::string("N of this case").size() && last[0] >= '1' && last[0] <= '5' &&
              last.ends_with(" of this case"))
      << shrunk.note;
}

// In the kernel's own array an unwritten element holds leftover memory: the flaky note says so,
// as the likely reason a replay passed (the checklist's shrink #26); a kernel writing into
// peconform's arrays gets no such note (the test above).
TEST(Shrink, AFlakyNoteOfAKernelsOwnArraySaysAnUnwrittenElementHoldsLeftoverMemory) {
  FailsEveryOtherCall kernel(true);
  const CaseOutcome drawn = run_case(racy_case(), kernel);
  ASSERT_TRUE(drawn.failed());
  ASSERT_TRUE(drawn.kernel_array);
  const Shrunk shrunk = shrink_case(racy_case(), drawn, kernel);
  EXPECT_TRUE(shrunk.flaky);
  EXPECT_NE(shrunk.note.find("; the kernel returned an array of its own, where an element it does not write holds whatever"),
            std::string::npos)
      << shrunk.note;
  FailsEveryOtherCall ours(false);
  EXPECT_EQ(shrink_case(racy_case(), run_case(racy_case(), ours), ours).note.find("array of its own"), std::string::npos);
}

// Returns its own array, whose last element it never writes: that memory reads NaN on odd calls
// and a finite wrong value (one more in magnitude than the right one) on even calls.
class LeftoverMemoryInItsOwnArray : public TensorBackend {
 public:
  std::string name() const override { return "leftover-memory"; }
  BackendCapabilities capabilities() const override { return cpu_->capabilities(); }
  void run(KernelCall& call) const override {
    cpu_->run(call);
    Buffer& out = call.outputs.back();
    const std::int64_t last = last_element(out);
    const double right = out.value(last);
    out.set_bits(last, element_bits(out.type, ++calls_ % 2 == 1 ? std::numeric_limits<double>::quiet_NaN()
                                                                 : right + (right < 0 ? -1.0 : 1.0)));
    for (Buffer& each : call.outputs) each.kernel_array = true;
  }

 private:
  std::unique_ptr<TensorBackend> cpu_ = make_backend("cpu");
  mutable int calls_ = 0;
};

// In the kernel's own array, leftover memory that reads NaN on one run and a wrong number on the
// next is one defect: the value kinds count as one kind (the checklist's shrink #3), so the case
// shrinks to the element and every replay reproduces it.
TEST(Shrink, InTheKernelsOwnArrayANanAndAWrongNumberFailTheSameWay) {
  const LeftoverMemoryInItsOwnArray probe;
  const CaseOutcome odd = run_case(racy_case(), probe), even = run_case(racy_case(), probe);
  ASSERT_TRUE(odd.verdict.first_failure && even.verdict.first_failure);
  ASSERT_EQ(odd.verdict.first_failure->kind, "nan");
  ASSERT_EQ(even.verdict.first_failure->kind, "numeric");
  const LeftoverMemoryInItsOwnArray kernel;
  const Shrunk shrunk = shrink_case(racy_case(), run_case(racy_case(), kernel), kernel);
  EXPECT_FALSE(shrunk.flaky) << shrunk.note;
  EXPECT_TRUE(shrunk.description.select.token && shrunk.description.select.head && shrunk.description.select.batch)
      << shrunk.description.text();
}

// Where the call has a key operand, shrinking narrows to the operand that failed (the checklist's
// shrink #10): this kernel leaves the key's last element unwritten, so the case kept is the key
// operand's (select operand 1) last head alone.
TEST(Shrink, AFailureInTheKeyOperandNarrowsToTheKeyOperand) {
  const CaseDescription drawn = CaseDescription::parse(
      "rope(d=64,base=10000,layout=half,dtype=fp32) | batch=2 seq=6 heads=4 kv_heads=2 order=bhsd pad=2 place=out "
      "inputs=activations seed=11");
  const std::unique_ptr<TensorBackend> broken = make_broken_backend("last-element-unwritten");
  const CaseOutcome outcome = run_case(drawn, *broken);
  ASSERT_TRUE(outcome.verdict.first_failure);
  ASSERT_EQ(outcome.verdict.first_failure->operand, "k");
  const Shrunk shrunk = shrink_case(drawn, outcome, *broken);
  EXPECT_FALSE(shrunk.flaky) << shrunk.note;
  EXPECT_EQ(shrunk.description.select.operand, std::optional<int>(1)) << shrunk.description.text();
  EXPECT_EQ(shrunk.description.select.head, std::optional<int>(drawn.kv_heads - 1)) << shrunk.description.text();
}

// A learned call has batch rows too: a failure in the last row's last token narrows to that row
// and token (the checklist's shrink #8).
TEST(Shrink, ALearnedCaseNarrowsToTheFailingBatchRowAndToken) {
  const CaseDescription drawn = CaseDescription::parse("learned(d=4,rows=8,dtype=fp32) | batch=2 seq=4 seed=1");
  const std::unique_ptr<TensorBackend> broken = make_broken_backend("last-element-unwritten");
  const CaseOutcome outcome = run_case(drawn, *broken);
  ASSERT_TRUE(outcome.verdict.first_failure);
  const Shrunk shrunk = shrink_case(drawn, outcome, *broken);
  EXPECT_FALSE(shrunk.flaky) << shrunk.note;
  EXPECT_EQ(shrunk.description.select.batch, std::optional<std::int64_t>(drawn.batch - 1)) << shrunk.description.text();
  EXPECT_EQ(shrunk.description.select.token, std::optional<std::int64_t>(drawn.seq - 1)) << shrunk.description.text();
}

// A drawn case already narrowed to one token keeps that token: the failing element's row is then
// counted in the narrowed call, not in the case (the checklist's shrink #7).
TEST(Shrink, ATokenAlreadySelectedIsKept) {
  CaseDescription drawn = racy_case();
  drawn.select.token = 4;
  const std::unique_ptr<TensorBackend> broken = make_broken_backend("last-element-unwritten");
  const CaseOutcome outcome = run_case(drawn, *broken);
  ASSERT_TRUE(outcome.verdict.first_failure);
  const Shrunk shrunk = shrink_case(drawn, outcome, *broken);
  EXPECT_EQ(shrunk.description.select.token, drawn.select.token) << shrunk.description.text();
  EXPECT_TRUE(shrunk.description.select.batch && shrunk.description.select.head) << shrunk.description.text();
}

// Leaves a NaN in the query's last element, but only in calls of several tokens that carry the
// keys too.
class WrongQueryBesideKeys : public TensorBackend {
 public:
  std::string name() const override { return "wrong-query-beside-keys"; }
  BackendCapabilities capabilities() const override { return cpu_->capabilities(); }
  void run(KernelCall& call) const override {
    cpu_->run(call);
    if (call.outputs.size() < 2 || call.seq < 2) return;
    Buffer& q = call.outputs.front();
    q.set_bits(last_element(q), element_bits(q.type, std::numeric_limits<double>::quiet_NaN()));
  }

 private:
  std::unique_ptr<TensorBackend> cpu_ = make_backend("cpu");
};

// A narrowing the case cannot take is dropped, not thrown (the checklist's shrink #16): the
// query's head 3 alone, with both operands kept, is outside the key operand's single head, and
// the narrowings that would have settled the operand first do not fail this kernel.
TEST(Shrink, ANarrowingOutsideTheCaseIsDroppedNotThrown) {
  const CaseDescription drawn = CaseDescription::parse(
      "rope(d=64,base=10000,layout=half,dtype=fp32) | batch=2 seq=6 heads=4 kv_heads=1 order=bhsd pad=2 place=out "
      "inputs=activations seed=11");
  const WrongQueryBesideKeys kernel;
  const CaseOutcome outcome = run_case(drawn, kernel);
  ASSERT_TRUE(outcome.verdict.first_failure);
  ASSERT_EQ(outcome.verdict.first_failure->operand, "q");
  ASSERT_EQ(outcome.verdict.first_failure->at[2], drawn.heads - 1);
  Shrunk shrunk;
  ASSERT_NO_THROW(shrunk = shrink_case(drawn, outcome, kernel));
  EXPECT_FALSE(shrunk.flaky) << shrunk.note;
  EXPECT_FALSE(shrunk.description.select.head) << shrunk.description.text();
  EXPECT_EQ(shrunk.description.select.batch, std::optional<std::int64_t>(drawn.batch - 1)) << shrunk.description.text();
}

// Leaves a NaN in the last head's last element of every row at position 5, and of every row at
// position 0 as well, but those only in calls of several batch rows.
class WrongAtPositionsZeroAndFive : public TensorBackend {
 public:
  std::string name() const override { return "wrong-at-positions-0-and-5"; }
  BackendCapabilities capabilities() const override { return cpu_->capabilities(); }
  void run(KernelCall& call) const override {
    cpu_->run(call);
    Buffer& out = call.outputs.back();
    for (std::int64_t b = 0; b < call.batch; ++b)
      for (std::int64_t s = 0; s < call.seq; ++s) {
        const std::int64_t position = call.id(0, b, s);
        if (position == 5 || (position == 0 && call.batch > 1))
          out.set_bits(out.offset_of(b, s, out.shape[2] - 1, out.shape[3] - 1),
                       element_bits(out.type, std::numeric_limits<double>::quiet_NaN()));
      }
  }

 private:
  std::unique_ptr<TensorBackend> cpu_ = make_backend("cpu");
};

// The second round of narrowing starts from the first failure of the case the first round kept
// (the checklist's shrink #18): here the drawn case's first failure, at token 0, is gone once one
// batch row is selected, and the token left failing is 5, which only the second round selects.
TEST(Shrink, TheSecondRoundNarrowsToTheFailureTheFirstRoundLeft) {
  const WrongAtPositionsZeroAndFive kernel;
  const CaseOutcome drawn = run_case(racy_case(), kernel);
  ASSERT_TRUE(drawn.verdict.first_failure);
  ASSERT_EQ(drawn.verdict.first_failure->at[1], 0);
  const Shrunk shrunk = shrink_case(racy_case(), drawn, kernel);
  EXPECT_FALSE(shrunk.flaky) << shrunk.note;
  EXPECT_EQ(shrunk.description.select.token, std::optional<std::int64_t>(5)) << shrunk.description.text();
  EXPECT_EQ(shrunk.description.select.head, std::optional<int>(racy_case().heads - 1)) << shrunk.description.text();
}

}  // namespace
}  // namespace peconform::harness
