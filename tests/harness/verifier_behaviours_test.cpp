// Behaviours of the verifier that tools/mutation/checklists/harness-verifiers.md listed with no
// test (issue 51): the routing of every family, how tallies merge, the texts a failure shows,
// each family's refusals of NaN, inf, sentinels and wrong values, and the tallies each path
// keeps. Each test says which behaviour it pins and what a wrong one would do.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <numeric>
#include <fmt/format.h>

#include "backends/backend_registry.hpp"
#include "backends/reference_tiers.hpp"
#include "harness/case_call.hpp"
#include "harness/case_description.hpp"
#include "harness/element_tally.hpp"
#include "harness/escalation.hpp"
#include "harness/verifier.hpp"
#include "precision/error_model.hpp"
#include "ran_on_cpu.hpp"

namespace peconform::harness {
namespace {

std::string kind_of(const CaseVerdict& verdict) { return verdict.first_failure ? verdict.first_failure->kind : "none"; }

// Verifier.PassesTheCpuKernels' rope case: every pair of it is decided by the fast path.
const std::string kRope = "rope(d=64,base=10000,layout=half,dtype=fp32) | batch=2 seq=50 heads=4 order=bhsd pad=2 place=out ids=int64 "
                          "positions=run offset=1000 inputs=activations seed=5";

std::uint64_t logical_elements(const KernelCall& call) {
  std::uint64_t count = 0;
  for (const Buffer& out : call.outputs) count += static_cast<std::uint64_t>(out.shape[0] * out.shape[1] * out.shape[2] * out.shape[3]);
  return count;
}

// The CPU's outputs for `text` pass, every element bounded, and the same outputs claimed under
// `other`, a spec that differs in the one behaviour a test holds, fail.
void expect_held_to_its_own_spec(const std::string& text, const std::string& other) {
  KernelCall call = ran(text);
  const CaseVerdict verdict = verify_call(call);
  EXPECT_FALSE(verdict.failed()) << text << ": " << kind_of(verdict);
  EXPECT_EQ(verdict.stats.bounded_elements, logical_elements(call)) << text;
  call.spec = Spec::parse(other);
  EXPECT_TRUE(verify_call(call).failed()) << other;
}

// mrope and rope2d are rotary families: every element of theirs is checked against its bound,
// each pair at the position of its own axis (t, h or w; x or y), and a wrong one fails. Were
// the family not routed to the rotary verifier, the call would check its guards and nothing else.
TEST(VerifierRouting, ChecksEveryElementOfMropeAndRope2dCallsAtEachPairsOwnAxis) {
  for (const char* text :
       {"mrope(d=32,base=10000,layout=half,sections=[4,6,6],dtype=fp32) | batch=2 seq=12 heads=2 offset=40 seed=4",
        "rope2d(d=16,base=100,layout=interleaved,dtype=fp32) | batch=1 seq=10 heads=3 offset=7 seed=4"}) {
    KernelCall call = ran(text);
    const CaseVerdict verdict = verify_call(call);
    EXPECT_FALSE(verdict.failed()) << text << ": " << kind_of(verdict);
    EXPECT_EQ(verdict.stats.elements, logical_elements(call)) << text;
    EXPECT_EQ(verdict.stats.bounded_elements, verdict.stats.elements) << text;
    Buffer& out = call.outputs[0];
    const std::int64_t at = out.offset_of(0, 5, 1, 3);
    out.set_bits(at, std::bit_cast<std::uint32_t>(static_cast<float>(out.value(at)) * (1 + 0x1p-10f)));  // far past fp32's bound
    const CaseVerdict wrong = verify_call(call);
    ASSERT_TRUE(wrong.failed()) << text;
    EXPECT_EQ(wrong.first_failure->at, (std::array<std::int64_t, 4>{0, 5, 1, 3})) << text;
  }
}

// Merging tallies (the threads' into one, the guards' into the elements') adds their escalation
// seconds, and a verdict carries the tally's: the report's time in the exact tier.
TEST(ElementTallyMerge, AddsEscalationSecondsAndTheVerdictCarriesThem) {
  ElementTally tally, other;
  tally.escalation_seconds = 0.25;  // powers of two: the sum is exact
  other.escalation_seconds = 0.5;
  tally.merge(other);
  EXPECT_EQ(tally.escalation_seconds, 0.75);
  EXPECT_EQ(tally.verdict().escalation_seconds, 0.75);
}

// The first failure a verdict reports is the lowest by (operand, element), whichever tally found
// it; a guard's or padding's key follows every logical element of its output. A NaN in the last
// logical element and a write into the padding after the first row both fail: the NaN is first.
TEST(ElementTallyMerge, ReportsTheLogicalElementBeforeAPaddingWriteWhereverEitherIs) {
  KernelCall call = ran(kRope);
  Buffer& out = call.outputs[0];
  out.set_bits(out.offset_of(1, 49, 3, 63), 0x7fc00000u);  // the last logical element
  out.set_bits(out.offset_of(0, 0, 0, 63) + 1, 0);         // pad=2: the padding after the first row
  const CaseVerdict verdict = verify_call(call);
  EXPECT_EQ(verdict.failing_elements, 2u);
  ASSERT_TRUE(verdict.failed());
  EXPECT_EQ(verdict.first_failure->kind, "nan");
  EXPECT_EQ(verdict.first_failure->at, (std::array<std::int64_t, 4>{1, 49, 3, 63}));
  // Two tallies merged by hand, the later one's failure lower: it is the one reported.
  const auto failure_of_kind = [](const char* kind) {
    ElementFailure failure;
    failure.kind = kind;
    return failure;
  };
  ElementTally high, low;
  high.fail({0, 9}, [&] { return failure_of_kind("numeric"); });
  low.fail({0, 4}, [&] { return failure_of_kind("nan"); });
  high.merge(low);
  EXPECT_EQ(high.verdict().first_failure->kind, "nan");
  EXPECT_EQ(high.verdict().failing_elements, 2u);
}

// A value is shown as a hex float (exact) and in 17 significant digits (enough to read the double
// back): 1.5 needs one, 0.1 all 17.
TEST(FailureText, ShowsAValueAsHexFloatAndSeventeenDigits) {
  EXPECT_EQ(hex_and_decimal(1.5), "0x1.8p+0 (1.5)");
  EXPECT_EQ(hex_and_decimal(0.1), "0x1.999999999999ap-4 (0.10000000000000001)");
  // A rotary failure shows its output and its reference that way, and names its operand q.
  KernelCall call = ran("rope(d=16,base=10000,layout=half,dtype=fp32) | batch=1 seq=4 heads=1 offset=10 seed=5");
  Buffer& out = call.outputs[0];
  const std::int64_t at = out.offset_of(0, 2, 0, 3);
  const float wrong = static_cast<float>(out.value(at)) * (1 + 0x1p-10f);
  out.set_bits(at, std::bit_cast<std::uint32_t>(wrong));
  const CaseVerdict verdict = verify_call(call);
  ASSERT_TRUE(verdict.failed());
  EXPECT_EQ(verdict.first_failure->operand, "q");
  EXPECT_EQ(verdict.first_failure->actual, hex_and_decimal(wrong));
  EXPECT_EQ(verdict.first_failure->reference.substr(0, 2), "0x") << verdict.first_failure->reference;
}

// A write past an output names no element (at -1 everywhere), names its buffer as the family
// calls it, and shows the sentinel that belonged there as its reference.
TEST(FailureText, AWriteIntoPaddingNamesTheBufferAndTheSentinelThatBelongedThere) {
  KernelCall call = ran("rope(d=16,base=10000,layout=half,dtype=fp32) | batch=1 seq=4 heads=1 pad=2 offset=10 seed=5");
  Buffer& out = call.outputs[0];
  out.set_bits(out.offset_of(0, 0, 0, 15) + 1, 0);
  const CaseVerdict verdict = verify_call(call);
  ASSERT_TRUE(verdict.failed());
  const ElementFailure& failure = *verdict.first_failure;
  EXPECT_EQ(failure.at, (std::array<std::int64_t, 4>{-1, -1, -1, -1}));
  EXPECT_EQ(failure.operand, "q");
  EXPECT_EQ(failure.reference, fmt::format("bits {:#x} (the padding sentinel of output q)", out.sentinels.padding));
  EXPECT_EQ(failure.actual, hex_and_decimal(0.0));
}

// Each family's output as its failures name it: q and k (rotary operands), out (a learned
// gather), table (sinusoid and xl), bias (ALiBi), index (T5 and Shaw); and the learned table, the
// gather's input, as table.
TEST(FailureText, NamesEachFamilysBufferAsTheFamilyCallsIt) {
  const std::pair<const char*, const char*> cases[] = {
      {"learned(d=6,rows=20,dtype=fp32) | batch=1 seq=3 positions=scattered ids=int32 seed=2", "out"},
      {"sinusoidal(d=8,base=10000,layout=half,dtype=fp32) | seq=4 offset=3 seed=3", "table"},
      {"xl(d=8,base=10000,dtype=fp32) | seq=4 offset=-2 seed=3", "table"},
      {"alibi(heads=2,mode=causal,dtype=fp32) | seq=3 keys=4 offset=5 key_offset=0 seed=1", "bias"},
      {"t5(buckets=32,max_distance=128) | seq=3 keys=4 offset=0 key_offset=0 seed=1", "index"},
      {"shaw(k=4) | seq=3 keys=4 seed=1", "index"},
  };
  for (const auto& [text, name] : cases) {
    KernelCall call = ran(text);
    Buffer& out = call.outputs[0];
    out.set_bits(out.size() - 1, 0);  // the last element of the guard past the end
    const CaseVerdict verdict = verify_call(call);
    ASSERT_TRUE(verdict.failed()) << text;
    EXPECT_EQ(verdict.first_failure->operand, name) << text;
  }
  // The key operand's guard, holding the query input's guard sentinel.
  KernelCall rotary = ran("rope(d=16,base=10000,layout=half,dtype=fp32) | batch=1 seq=4 heads=2 kv_heads=1 offset=10 seed=5");
  Buffer& key = rotary.outputs[1];
  key.set_bits(key.size() - 1, rotary.inputs[0].sentinels.guard);
  const CaseVerdict verdict = verify_call(rotary);
  ASSERT_TRUE(verdict.failed());
  EXPECT_EQ(verdict.first_failure->operand, "k");
  EXPECT_EQ(verdict.first_failure->actual, fmt::format("bits {:#x} (the guard sentinel of input q)", rotary.inputs[0].sentinels.guard));
  // The learned table's guard sentinel in the gather's output guard.
  KernelCall learned = ran("learned(d=6,rows=20,dtype=fp32) | batch=1 seq=3 positions=scattered ids=int32 seed=2");
  Buffer& gathered = learned.outputs[0];
  gathered.set_bits(gathered.size() - 1, learned.inputs[0].sentinels.guard);
  EXPECT_NE(verify_call(learned).first_failure->actual.find("the guard sentinel of input table"), std::string::npos);
}

const std::string kT5 = "t5(buckets=32,max_distance=128) | seq=40 keys=200 offset=0 key_offset=0 seed=1";

// A wrong T5 bucket says whether its distance lies on a logarithmic bucket boundary (where a
// float32 log may flip it, DESIGN.md section 2), and shows the bucket expected.
TEST(FailureText, AWrongBucketSaysWhetherItIsOnALogarithmicBoundary) {
  // Query 3 at key 19 is distance 16, a boundary; at key 20, 17, none (with these defaults the
  // boundaries are 16, 32 and 64, DESIGN.md section 2).
  for (const auto& [key, boundary] : {std::pair{std::int64_t{19}, true}, std::pair{std::int64_t{20}, false}}) {
    KernelCall call = ran(kT5);
    Buffer& out = call.outputs[0];
    const std::int64_t at = out.offset_of(0, 0, 3, key);
    const auto bucket = static_cast<std::int32_t>(out.bits(at));
    out.set_bits(at, static_cast<std::uint32_t>(bucket - 1));
    const CaseVerdict verdict = verify_call(call);
    ASSERT_TRUE(verdict.failed()) << key;
    EXPECT_EQ(verdict.first_failure->input, boundary ? "on a logarithmic bucket boundary" : "") << key;
    EXPECT_EQ(verdict.first_failure->reference, fmt::format("{}", bucket)) << key;
  }
}

const std::string kLearned = "learned(d=6,rows=20,dtype=fp32) | batch=1 seq=3 positions=scattered ids=int32 seed=2";

// A learned call whose table row for token 0 holds a NaN in element 2 (the quiet NaN with payload
// 1, which no arithmetic produces), gathered by the CPU kernel.
KernelCall learned_with_a_nan_entry(const std::string& text) {
  KernelCall call = materialize(CaseDescription::parse(text));
  Buffer& table = call.inputs[0];
  table.set_bits(table.offset_of(0, 0, call.id(0, 0, 0), 2), 0x7fc00001u);
  make_backend("cpu")->run(call);
  return call;
}

// A gather moves bits: any NaN for a NaN entry (a copy through a float register may set the
// quiet bit or change the payload) is the same element, but a sentinel is not, and any other
// value is a mismatch that names the table row.
TEST(Gather, ANanEntryMayComeOutAsAnyNanButNotAsASentinel) {
  KernelCall call = learned_with_a_nan_entry(kLearned);
  Buffer& out = call.outputs[0];
  const std::int64_t at = out.offset_of(0, 0, 0, 2);
  ASSERT_EQ(out.bits(at), 0x7fc00001u);
  EXPECT_FALSE(verify_call(call).failed());
  out.set_bits(at, 0xffc00000u);  // another NaN
  EXPECT_FALSE(verify_call(call).failed());
  out.set_bits(at, out.sentinels.unwritten);
  EXPECT_EQ(kind_of(verify_call(call)), "unwritten");
}

TEST(Gather, AWrongGatheredValueIsAMismatchNamingTheTableRow) {
  KernelCall call = ran(kLearned);
  Buffer& out = call.outputs[0];
  const std::int64_t at = out.offset_of(0, 1, 0, 4);
  out.set_bits(at, std::bit_cast<std::uint32_t>(std::nextafter(static_cast<float>(out.value(at)), INFINITY)));
  const CaseVerdict verdict = verify_call(call);
  ASSERT_TRUE(verdict.failed());
  EXPECT_EQ(verdict.failing_elements, 1u);
  EXPECT_EQ(verdict.first_failure->kind, "mismatch");
  EXPECT_EQ(verdict.first_failure->input, fmt::format("table row {}", call.id(0, 0, 1)));
}

const std::string kScaled = "learned(d=6,rows=20,amp=0.3,dtype=fp32) | batch=1 seq=3 positions=scattered ids=int32 seed=2";

// A scaled gather's NaN entry scales to NaN: any NaN passes, a sentinel or a number does not.
TEST(ScaledGather, ANanEntryMustComeOutAsANanThatIsNotASentinel) {
  KernelCall call = learned_with_a_nan_entry(kScaled);
  Buffer& out = call.outputs[0];
  const std::int64_t at = out.offset_of(0, 0, 0, 2);
  EXPECT_FALSE(verify_call(call).failed()) << kind_of(verify_call(call));
  out.set_bits(at, 0xffc00000u);
  EXPECT_FALSE(verify_call(call).failed());
  out.set_bits(at, out.sentinels.unwritten);
  EXPECT_EQ(kind_of(verify_call(call)), "unwritten");
  out.set_bits(at, std::bit_cast<std::uint32_t>(0.0f));
  EXPECT_EQ(kind_of(verify_call(call)), "mismatch");
}

// Inside the claim a scaled gather's output that is a sentinel, a NaN or an inf fails with that
// kind.
TEST(ScaledGather, ASentinelNanOrInfInsideTheClaimFailsWithItsKind) {
  const std::pair<std::uint32_t, const char*> written[] = {
      {0, "unwritten"}, {0x7fc00000u, "nan"}, {std::bit_cast<std::uint32_t>(INFINITY), "inf"}};
  for (const auto& [bits, kind] : written) {
    KernelCall call = ran(kScaled);
    Buffer& out = call.outputs[0];
    out.set_bits(out.offset_of(0, 1, 0, 3), kind == std::string("unwritten") ? out.sentinels.unwritten : bits);
    EXPECT_EQ(kind_of(verify_call(call)), kind);
  }
}

// amp = 1e30 on fp16: every product of this draw lies past fp16's largest value, where the
// kernel claims nothing (it overflows): counted unconstrained, not failed, whether the kernel
// writes inf (as the CPU does) or saturates to a finite value; but an element the kernel never
// wrote is still wrong there.
TEST(ScaledGather, ProductsPastTheDtypesRangeAreUnconstrainedButMustBeWritten) {
  const std::string text = "learned(d=6,rows=20,amp=1e30,dtype=fp16) | batch=1 seq=3 positions=scattered ids=int32 seed=2";
  KernelCall call = ran(text);
  const CaseVerdict verdict = verify_call(call);
  EXPECT_FALSE(verdict.failed()) << kind_of(verdict);
  EXPECT_EQ(verdict.stats.unconstrained_elements, logical_elements(call));
  Buffer& out = call.outputs[0];
  const std::int64_t at = out.offset_of(0, 1, 0, 3);
  out.set_bits(at, element_bits(ElementType::fp16, 65504));  // fp16's largest value
  EXPECT_FALSE(verify_call(call).failed()) << kind_of(verify_call(call));
  out.set_bits(at, out.sentinels.unwritten);
  EXPECT_EQ(kind_of(verify_call(call)), "unwritten");
}

// The value of fp64 just inside [exact - bound, exact + bound] above exact (or just outside it,
// `inside` false): the edge rounded to double, stepped one double at a time until it holds.
double fp64_edge(const Wide& exact, const Wide& bound, bool inside) {
  double value = static_cast<double>(exact + bound);
  const auto past = [&](double v) { return abs(Wide(v) - exact) > bound; };
  while (past(value) == inside) value = std::nextafter(value, inside ? -INFINITY : INFINITY);
  return value;
}

const std::string kFp64Sinusoid = "sinusoidal(d=8,base=10000,layout=half,dtype=fp64) | seq=4 offset=100 seed=3";

// An fp64 sinusoid with every entry set to the double at the edge of its true bound (the exact
// tier's value, the bound precision/error_model.hpp computes in binary128): one double from it,
// closer than the screen's own error (2^-52, screened_cos_sin.hpp), so only the exact tier can
// tell inside from outside. It must, and its time is reported.
KernelCall sinusoid_at_the_edge(bool inside) {
  KernelCall call = ran(kFp64Sinusoid);
  const std::unique_ptr<Evaluator> exact = exact_tier().prepare(call.spec, call.sequence_length);
  const Reference<FastReal> fast(call.spec, call.sequence_length);
  Buffer& out = call.outputs[0];
  for (std::int64_t row = 0; row < call.rows; ++row) {
    const Point point = row_point(call, row, 0);
    const std::vector<Wide> values = exact->evaluate(point, {});
    const std::vector<Wide> bounds = claimed_error_bounds(fast, point, {});
    for (std::int64_t e = 0; e < call.spec.d; ++e) {
      const auto k = static_cast<std::size_t>(e);
      out.set_bits(out.offset_of(0, row, 0, e), std::bit_cast<std::uint64_t>(fp64_edge(values[k], bounds[k], inside)));
    }
  }
  return call;
}

TEST(TableVerifier, EntriesAtTheEdgeOfTheirBoundAreDecidedByTheExactTier) {
  const CaseVerdict inside = verify_call(sinusoid_at_the_edge(true));
  EXPECT_FALSE(inside.failed()) << kind_of(inside);
  EXPECT_EQ(inside.stats.escalations, inside.stats.elements);
  EXPECT_GT(inside.escalation_seconds, 0.0);
  const CaseVerdict outside = verify_call(sinusoid_at_the_edge(false));
  EXPECT_EQ(outside.failing_elements, outside.stats.elements);
  EXPECT_EQ(outside.stats.escalations, outside.stats.elements);
}

const std::string kSinusoid = "sinusoidal(d=16,base=10000,layout=half,dtype=fp32) | seq=6 offset=100 seed=3";
const std::string kAlibi = "alibi(heads=2,mode=causal,dtype=fp32) | seq=3 keys=4 offset=5 key_offset=0 seed=1";

// A NaN, an inf or a sentinel in a table entry or a bias fails as what it is, before any numeric
// test (a NaN's error compares false with every bound and would otherwise pass).
TEST(TableVerifier, ANanInfOrSentinelInATableOrABiasFailsAsWhatItIs) {
  // The sinusoid's row 1, element 2; the bias of head 1, query 2 at key 0 (not masked).
  const std::pair<std::string, std::array<std::int64_t, 4>> entries[] = {{kSinusoid, {0, 1, 0, 2}}, {kAlibi, {0, 1, 2, 0}}};
  for (const auto& [text, where] : entries) {
    const std::pair<std::uint32_t, const char*> written[] = {
        {0x7fc00000u, "nan"}, {std::bit_cast<std::uint32_t>(-INFINITY), "inf"}, {0, "unwritten"}};
    for (const auto& [bits, kind] : written) {
      KernelCall call = ran(text);
      Buffer& out = call.outputs[0];
      const std::int64_t at = out.offset_of(where[0], where[1], where[2], where[3]);
      out.set_bits(at, kind == std::string("unwritten") ? out.sentinels.unwritten : bits);
      const CaseVerdict verdict = verify_call(call);
      EXPECT_EQ(kind_of(verdict), kind) << text;
      EXPECT_EQ(verdict.failing_elements, 1u) << text;
    }
  }
}


// `call` with the fp32 element at (b, s, h, e) multiplied by `factor` (in float).
KernelCall& scaled_fp32(KernelCall& call, std::array<std::int64_t, 4> where, float factor) {
  Buffer& out = call.outputs[0];
  const std::int64_t at = out.offset_of(where[0], where[1], where[2], where[3]);
  out.set_bits(at, std::bit_cast<std::uint32_t>(static_cast<float>(out.value(at)) * factor));
  return call;
}

// An entry whose sign is wrong, but whose magnitude is right, fails as "sign": the kernel's
// sign convention (rotation direction, sin/cos order) differs, which "numeric" would hide. The
// entries picked here are far from 0 (far past their bound of a few fp32 ulps), so the flip is
// the whole error.
TEST(SignFailure, ANegatedEntryOrOutputFailsAsSign) {
  KernelCall table = ran(kSinusoid);
  // Row 0 is position 100; element 8 is cos(100) = 0.862 (pair 0's frequency is 1).
  ASSERT_GT(std::abs(table.outputs[0].value(table.outputs[0].offset_of(0, 0, 0, 8))), 0.5);
  EXPECT_EQ(kind_of(verify_call(scaled_fp32(table, {0, 0, 0, 8}, -1))), "sign");
  KernelCall rotary = ran("rope(d=16,base=10000,layout=half,dtype=fp32) | batch=1 seq=4 heads=1 offset=10 "
                          "inputs=activations seed=5");
  const Buffer& out = rotary.outputs[0];
  std::int64_t largest = 0;  // the output element of row (0, 2, 0) farthest from 0
  for (std::int64_t e = 1; e < 16; ++e)
    if (std::abs(out.value(out.offset_of(0, 2, 0, e))) > std::abs(out.value(out.offset_of(0, 2, 0, largest)))) largest = e;
  ASSERT_GT(std::abs(out.value(out.offset_of(0, 2, 0, largest))), 0x1p-10);
  EXPECT_EQ(kind_of(verify_call(scaled_fp32(rotary, {0, 2, 0, largest}, -1))), "sign");
}

// Under order=cos-sin the sinusoid holds the cosine first and the sine second: the CPU's cos-sin
// table passes, and the same table claimed as sin-cos fails.
TEST(TableVerifier, ACosSinTableHoldsTheSineSecond) {
  expect_held_to_its_own_spec("sinusoidal(d=16,base=10000,layout=interleaved,order=cos-sin,dtype=fp32) | seq=6 offset=3 seed=3",
                              "sinusoidal(d=16,base=10000,layout=interleaved,dtype=fp32)");
}

// A sinusoid row is binned at the position its entries are of, the spec's offset (fairseq's
// padding_idx + 1) included: rows 0..5 from 3 under offset=1000 are positions 1003..1008, all in
// bin 10 ([512, 1024)); no other bin holds a ratio.
TEST(TableVerifier, ASinusoidRowIsBinnedAtItsPositionTheSpecsOffsetIncluded) {
  const CaseVerdict verdict =
      verify_call(ran("sinusoidal(d=16,base=10000,layout=half,offset=1000,dtype=fp32) | seq=6 offset=3 seed=3"));
  ASSERT_FALSE(verdict.failed()) << kind_of(verdict);
  const int bin = position_bin(1003);
  ASSERT_EQ(bin, position_bin(1008));
  EXPECT_GT(verdict.stats.worst_ratio_by_position[static_cast<std::size_t>(bin)], 0.0);
  EXPECT_EQ(verdict.stats.worst_ratio_by_position[static_cast<std::size_t>(bin)], verdict.stats.worst_ratio);
  for (int other = 0; other < kPositionBins; ++other) {
    if (other == bin) continue;
    EXPECT_EQ(verdict.stats.worst_ratio_by_position[static_cast<std::size_t>(other)], 0.0) << other;
  }
}

// A failing sinusoid entry shows its angle |p theta|: element 3 of a d=16 half table is pair 3,
// theta = 10000^(-6/16); at row 2 (position 102) the angle is 102 theta, and the failure is at
// (0, 2, 0, 3), element 2 d + 3 of the table.
TEST(FailureText, AFailingSinusoidEntryShowsItsAngle) {
  KernelCall call = ran(kSinusoid);
  const CaseVerdict verdict = verify_call(scaled_fp32(call, {0, 2, 0, 3}, 1 + 0x1p-10f));
  ASSERT_TRUE(verdict.failed());
  const ElementFailure& failure = *verdict.first_failure;
  EXPECT_EQ(failure.operand, "table");
  EXPECT_EQ(failure.at, (std::array<std::int64_t, 4>{0, 2, 0, 3}));
  EXPECT_EQ(failure.element, 2 * 16 + 3);
  const double angle = 102 * std::pow(10000.0, -6.0 / 16);
  ASSERT_EQ(failure.input.substr(0, 6), "angle ") << failure.input;
  // The angle is printed to 17 digits from the exact one; double's pow is within an ulp or two.
  EXPECT_NEAR(std::stod(failure.input.substr(6)), angle, angle * 0x1p-50) << failure.input;
}

// A failing bias names its head's slope: one head's slope is 2^(-8/1) = 2^-8 (ALiBi's
// 2^(-8h/n), DESIGN.md section 3); the failure sits at (head, query, key, 0), element
// (h rows + q) keys + k.
TEST(FailureText, AFailingBiasNamesItsSlopeAndItsHeadQueryAndKey) {
  KernelCall one = ran("alibi(heads=1,mode=causal,dtype=fp32) | seq=3 keys=4 offset=5 key_offset=0 seed=1");
  const CaseVerdict verdict = verify_call(scaled_fp32(one, {0, 0, 1, 2}, 1 + 0x1p-10f));
  ASSERT_TRUE(verdict.failed());
  EXPECT_EQ(verdict.first_failure->input, "slope " + hex_and_decimal(0x1p-8));
  // Two heads (slopes 2^-4 and 2^-8), 3 queries, 4 keys: head 1, query 1, key 3.
  KernelCall two = ran(kAlibi);
  const CaseVerdict second = verify_call(scaled_fp32(two, {0, 1, 1, 3}, 1 + 0x1p-10f));
  ASSERT_TRUE(second.failed());
  EXPECT_EQ(second.first_failure->at, (std::array<std::int64_t, 4>{1, 1, 3, 0}));
  EXPECT_EQ(second.first_failure->element, (1 * 3 + 1) * 4 + 3);
  EXPECT_EQ(second.first_failure->input, "slope " + hex_and_decimal(0x1p-8));
}

// Symmetric ALiBi is -m |i - j|: keys past the query count their distance too. Queries 5..7
// against keys 0..10 with slope 2^-8 (exact in fp32): the CPU's biases match these by hand, pass,
// and the bias of a key past the query written as +m (j - i) fails.
TEST(TableVerifier, SymmetricAlibiMeasuresKeysPastTheQueryToo) {
  KernelCall call = ran("alibi(heads=1,mode=symmetric,dtype=fp32) | seq=3 keys=11 offset=5 key_offset=0 seed=1");
  const Buffer& out = call.outputs[0];
  for (std::int64_t q = 0; q < 3; ++q)
    for (std::int64_t k = 0; k < 11; ++k)
      ASSERT_EQ(out.value(out.offset_of(0, 0, q, k)), -std::ldexp(static_cast<double>(std::abs(5 + q - k)), -8)) << q << " " << k;
  const CaseVerdict verdict = verify_call(call);
  EXPECT_FALSE(verdict.failed()) << kind_of(verdict);
  EXPECT_EQ(verdict.stats.bounded_elements, 3u * 11);
  EXPECT_EQ(kind_of(verify_call(scaled_fp32(call, {0, 0, 0, 9}, -1))), "sign");  // query 5, key 9
}

// Past the dtype's range a bias is unconstrained (AlibiPastTheDtypesRangeIsUnconstrained), but
// one the kernel never wrote is wrong there as anywhere.
TEST(TableVerifier, AnUnwrittenBiasPastTheDtypesRangeStillFails) {
  KernelCall call = ran("alibi(heads=1,mode=causal,dtype=fp16) | seq=2 keys=2 offset=20000000 key_offset=0 seed=1");
  Buffer& out = call.outputs[0];
  out.set_bits(out.offset_of(0, 0, 1, 0), out.sentinels.unwritten);
  const CaseVerdict verdict = verify_call(call);
  EXPECT_EQ(kind_of(verdict), "unwritten");
  EXPECT_EQ(verdict.stats.unconstrained_elements, 3u);
}


// rope's rotation direction is the spec's sign: the CPU's outputs under sign=-1 pass it, and the
// same outputs claimed under sign=1 fail.
TEST(RotaryVerifier, TurnsEachPairTheWayTheSpecsSignSays) {
  expect_held_to_its_own_spec("rope(d=32,base=10000,layout=half,sign=-1,dtype=fp32) | batch=1 seq=8 heads=2 offset=100 seed=5",
                              "rope(d=32,base=10000,layout=half,dtype=fp32)");
}

// YaRN scales cos and sin by its attention factor, 0.1 ln(4) + 1 = 1.139 at factor 4 (DESIGN.md
// section 3): the CPU's outputs pass, and the same outputs claimed without YaRN (factor 1) fail.
TEST(RotaryVerifier, HoldsYarnsOutputsToItsAttentionFactor) {
  expect_held_to_its_own_spec("rope(d=64,base=10000,layout=half,scaling=yarn(factor=4,orig=2048),dtype=fp32) | batch=1 seq=8 "
                              "heads=2 offset=3000 seed=5",
                              "rope(d=64,base=10000,layout=half,scaling=yarn(factor=4,orig=2048,attention=1),dtype=fp32)");
}

// A pass-through dim (d=9, rot=8: dim 8) whose input is a NaN: any NaN passes (a copy through a
// float register may set the quiet bit), a sentinel does not, and fails as the sentinel it is.
TEST(RotaryVerifier, APassThroughNanMayComeOutAsAnyNanButNotAsASentinel) {
  KernelCall call = materialize(CaseDescription::parse("rope(d=9,base=10000,layout=half,rot=8,dtype=fp32) | batch=1 seq=3 "
                                                       "heads=1 offset=10 seed=2"));
  Buffer& in = call.inputs[0];
  in.set_bits(in.offset_of(0, 1, 0, 8), 0x7fc00001u);
  make_backend("cpu")->run(call);
  Buffer& out = call.outputs[0];
  const std::int64_t at = out.offset_of(0, 1, 0, 8);
  EXPECT_FALSE(verify_call(call).failed());
  out.set_bits(at, 0xffc00000u);
  EXPECT_FALSE(verify_call(call).failed()) << kind_of(verify_call(call));
  out.set_bits(at, in.sentinels.guard);
  EXPECT_EQ(kind_of(verify_call(call)), "out-of-bounds");
}

// The fast path's tallies: every pair of kRope is decided there (PassesTheCpuKernels), and each
// of its elements lands in the ratio histogram, its ULPs and its position's worst ratio are kept.
// Positions 1000..1049 fall in bins 10 and 11; the worst of the two is the call's worst.
TEST(RotaryVerifier, TalliesEveryElementTheFastPathDecides) {
  const CaseVerdict verdict = verify_call(ran(kRope));
  ASSERT_FALSE(verdict.failed());
  const auto& histogram = verdict.stats.ratio_histogram;
  EXPECT_EQ(std::accumulate(histogram.begin(), histogram.end(), std::uint64_t{0}), verdict.stats.bounded_elements);
  EXPECT_GT(verdict.stats.max_ulp, 0.0);
  const auto& by_position = verdict.stats.worst_ratio_by_position;
  EXPECT_EQ(std::max(by_position[10], by_position[11]), verdict.stats.worst_ratio);
  EXPECT_GT(by_position[10], 0.0);
  EXPECT_GT(by_position[11], 0.0);
}

// An infinite output fails as "inf", before any numeric test.
TEST(RotaryVerifier, AnInfiniteOutputFailsAsInf) {
  KernelCall call = ran(kRope);
  Buffer& out = call.outputs[0];
  out.set_bits(out.offset_of(1, 7, 2, 5), std::bit_cast<std::uint32_t>(INFINITY));
  EXPECT_EQ(kind_of(verify_call(call)), "inf");
}

// A wrong key output names operand k, its flat element in the key operand's [batch, seq, heads,
// d] order, its pair's inputs, and a reference within the bound of what the CPU wrote there.
TEST(FailureText, AWrongKeyOutputNamesItsOperandElementInputsAndReference) {
  KernelCall call = ran("rope(d=16,base=10000,layout=half,dtype=fp32) | batch=2 seq=4 heads=3 kv_heads=2 offset=10 "
                        "inputs=activations seed=5");
  const Buffer& key_in = call.inputs[1];
  Buffer& key = call.outputs[1];
  const std::int64_t at = key.offset_of(1, 2, 1, 3);
  const double written = key.value(at);
  key.set_bits(at, std::bit_cast<std::uint32_t>(static_cast<float>(written) * (1 + 0x1p-10f)));
  const CaseVerdict verdict = verify_call(call);
  ASSERT_TRUE(verdict.failed());
  const ElementFailure& failure = *verdict.first_failure;
  EXPECT_EQ(failure.operand, "k");
  EXPECT_EQ(failure.element, ((1 * 4 + 2) * 2 + 1) * 16 + 3);
  // Element 3 of a d=16 half layout pairs with element 11.
  EXPECT_EQ(failure.input, fmt::format("x[3]={}, x[11]={}", hex_and_decimal(key_in.value(key_in.offset_of(1, 2, 1, 3))),
                                       hex_and_decimal(key_in.value(key_in.offset_of(1, 2, 1, 11)))));
  const double reference = std::strtod(failure.reference.c_str(), nullptr), bound = std::strtod(failure.bound.c_str(), nullptr);
  EXPECT_LE(std::abs(reference - written), bound) << failure.reference << " against " << written;
}

const std::string kFarOut = "rope(d=16,base=10000,layout=half,dtype=fp32,precision=fp32-angle) | seq=4 offset=2147483600 seed=1";

// Past the horizon, an element far past its pair's scale fails as "numeric"; its pair's norm
// fails too, but that fails only the other element: each element fails once.
TEST(RotaryVerifier, AnElementFailedNumericallyIsNotFailedAgainByItsPairsNorm) {
  KernelCall call = ran(kFarOut);
  const Buffer& in = call.inputs[0];
  Buffer& out = call.outputs[0];
  // Pair 0 (elements 0 and 8) of token 3, at 2^31 - 45: its bound reaches A r but, with fp32-angle's
  // angle allowance |phi| 2^-22 (CountsUnconstrainedElementsApart), stays below 2^10 A r.
  const double r = std::hypot(in.value(in.offset_of(0, 3, 0, 0)), in.value(in.offset_of(0, 3, 0, 8)));
  out.set_bits(out.offset_of(0, 3, 0, 0), std::bit_cast<std::uint32_t>(static_cast<float>(0x1p20 * r)));
  const CaseVerdict verdict = verify_call(call);
  ASSERT_TRUE(verdict.failed());
  EXPECT_EQ(verdict.first_failure->kind, "numeric");
  EXPECT_EQ(verdict.failing_elements, 2u);
}

// An escalated element whose bound is 0 (a pass-through dim, held to identity) has ratio 0 when
// it is exact and +inf when it is off at all.
TEST(Escalation, AZeroBoundGivesRatioZeroForNoErrorAndInfinityForAny) {
  const KernelCall call = ran("rope(d=9,base=10000,layout=half,rot=8,dtype=fp32) | batch=1 seq=3 heads=1 offset=10 seed=2");
  Escalation escalation(call);
  const std::vector<Wide> input = input_values(call, 0, 0, 1, 0);
  const Point point = token_point(call, 0, 1);
  const double copied = static_cast<double>(input[8]);
  EXPECT_EQ(escalation.decide(point, input, 8, copied).ratio, 0.0);
  EXPECT_EQ(escalation.decide(point, input, 8, std::nextafter(copied, INFINITY)).ratio, INFINITY);
}


// Tiny pairs (inputs 2^-600 and 2^-601, whose squares underflow double) that the CPU rotates
// correctly, beside a token of ordinary inputs whose first output, eight steps up, sets maxima
// the tiny pairs cannot raise (so that the tiny-pair screen may decide them, as in
// Verifier.ATinyPairTurnedByTheWrongSineFails): each counts two bounded elements in the histogram.
TEST(RotaryVerifier, CountsBothElementsOfEveryTinyPair) {
  KernelCall call = materialize(CaseDescription::parse(
      "rope(d=2,base=10000,layout=half,dtype=fp64) | seq=4 place=out ids=int64 positions=run offset=13 inputs=activations seed=1"));
  Buffer& in = call.inputs[0];
  for (std::int64_t s = 1; s < 4; ++s) {
    in.set_bits(in.offset_of(0, s, 0, 0), std::bit_cast<std::uint64_t>(0x1p-600));
    in.set_bits(in.offset_of(0, s, 0, 1), std::bit_cast<std::uint64_t>(0x1p-601));
  }
  make_backend("cpu")->run(call);
  Buffer& out = call.outputs[0];
  double raised = out.value(out.offset_of(0, 0, 0, 0));
  for (int step = 0; step < 8; ++step) raised = std::nextafter(raised, INFINITY);
  out.set_bits(out.offset_of(0, 0, 0, 0), std::bit_cast<std::uint64_t>(raised));
  const CaseVerdict verdict = verify_call(call);
  EXPECT_FALSE(verdict.failed()) << kind_of(verdict);
  EXPECT_EQ(verdict.stats.bounded_elements, 4u * 2);
  const auto& histogram = verdict.stats.ratio_histogram;
  EXPECT_EQ(std::accumulate(histogram.begin(), histogram.end(), std::uint64_t{0}), 4u * 2);
}

}  // namespace
}  // namespace peconform::harness
