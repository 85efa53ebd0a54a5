// The boundary sweep: every rotated output element set to the storage value just inside its true
// bound or just outside it, where "true" is the exact tier's value and the bound
// precision/error_model.hpp computes in binary128 (what an escalation is judged by). The verifier,
// vectorised fast path and all, must fail exactly the elements set outside: none, a random half
// (so that pairs mix an element in with one out), the other half, all (0 false rejects, 0 false
// accepts). In fp64 the edge values sit within one double of the bound, closer than the screen
// can decide, so they reach the exact tier; in the 16- and 32-bit dtypes the screen decides most
// of them itself.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "backends/backend_registry.hpp"
#include "backends/reference_tiers.hpp"
#include "harness/case_call.hpp"
#include "harness/case_description.hpp"
#include "harness/counter_random.hpp"
#include "harness/verifier.hpp"
#include "precision/error_model.hpp"

namespace peconform::harness {
namespace {

// The next value of `type` above (up) or below `bits`, in sign-magnitude bit patterns.
std::uint64_t next_value(ElementType type, std::uint64_t bits, bool up) {
  const std::uint64_t sign = std::uint64_t{1} << (8 * element_size(type) - 1);
  const bool negative = (bits & sign) != 0;
  const std::uint64_t magnitude = bits & ~sign;
  if (magnitude == 0) return up ? 1 : sign | 1;  // past either zero to the smallest subnormal
  return up != negative ? bits + 1 : bits - 1;   // away from zero, or toward it
}

// The value of `type` just inside [exact - bound, exact + bound] on the side `above` (or just
// outside it, `inside` false): start from the rounding of the edge and step until it holds.
// `depth` (1 or 1/2) places the start at that fraction of the bound.
std::uint64_t edge_value(const Buffer& scratch_buffer, ElementType type, const Wide& exact, const Wide& bound, bool above,
                         bool inside, const Wide& depth) {
  Buffer scratch = scratch_buffer;
  const Wide edge = above ? exact + bound * depth : exact - bound * depth;
  std::uint64_t bits = element_bits(type, static_cast<double>(edge));
  const auto error = [&](std::uint64_t candidate) {
    scratch.set_bits(0, candidate);
    return abs(Wide(scratch.value(0)) - exact);
  };
  // Inside: step toward exact while past the bound; outside: step away while within it. The
  // bound is at least half a unit of the storage dtype (its final rounding), so a few steps do.
  for (int step = 0; step < 64; ++step) {
    const bool past = error(bits) > bound;
    if (past != inside) return bits;
    bits = next_value(type, bits, inside ? !above : above);
  }
  throw std::logic_error("no storage value at the edge of the bound within 64 steps");
}

// Which elements go just outside their bound: none, a random half (a pair may then have one
// element out, the other in), the other half, or all.
enum class Outside { none, half, other_half, all };

bool outside(Outside which, std::uint64_t element) {
  const bool half = (counter_hash(22, 0, element) & 1) != 0;
  switch (which) {
    case Outside::none: return false;
    case Outside::half: return half;
    case Outside::other_half: return !half;
    case Outside::all: return true;
  }
  return false;
}

// `call` with every output element of its rotated pairs moved to the edge of its bound (or of
// half of it), inside or outside as `which` says, alternately above and below the exact value; `count` gets how
// many went outside.
KernelCall at_the_edge(const KernelCall& ran, Outside which, std::uint64_t& count) {
  KernelCall call = ran;
  count = 0;
  const std::unique_ptr<Evaluator> exact = exact_tier().prepare(call.spec, call.sequence_length);
  const Reference<FastReal> fast(call.spec, call.sequence_length);
  std::uint64_t element = 0;
  for (std::size_t o = 0; o < call.outputs.size(); ++o) {
    Buffer& out = call.outputs[o];
    Buffer scratch;
    scratch.type = out.type;
    scratch.bytes.resize(element_size(out.type));
    scratch.origin = 0;
    for (std::int64_t b = 0; b < out.shape[0]; ++b)
      for (std::int64_t s = 0; s < out.shape[1]; ++s)
        for (std::int64_t h = 0; h < out.shape[2]; ++h) {
          const std::vector<Wide> input = input_values(ran, o, b, s, h);
          const Point point = token_point(ran, b, s);
          const std::vector<Wide> values = exact->evaluate(point, input);
          const std::vector<Wide> bounds = claimed_error_bounds(fast, point, input);
          for (std::int64_t e = 0; e < out.shape[3]; ++e, ++element) {
            const auto k = static_cast<std::size_t>(e);
            const bool out_of_bound = outside(which, element);
            count += out_of_bound ? 1 : 0;
            // Half the elements kept inside sit at half their bound instead of at its edge, so
            // that a pair may have one element far inside beside one just outside.
            const bool halfway = !out_of_bound && (counter_hash(22, 1, element) & 1) != 0;
            out.set_bits(out.offset_of(b, s, h, e), edge_value(scratch, out.type, values[k], bounds[k], (s + h + e) % 2 == 0,
                                                               !out_of_bound, halfway ? Wide(0.5) : Wide(1)));
          }
        }
  }
  return call;
}

// Rotary cases whose every pair is constrained (positions well inside the horizon), over the
// dtypes, both layouts, the fp32-angle class and xPos's amplitude.
const char* const kCases[] = {
    "rope(d=64,base=10000,layout=half,dtype=fp32) | batch=1 seq=24 heads=3 order=bshd pad=0 place=out ids=int64 "
    "positions=run offset=1000 inputs=activations seed=5",
    "rope(d=32,base=500000,layout=interleaved,dtype=fp64) | batch=2 seq=9 heads=2 order=bhsd pad=1 place=out ids=int64 "
    "positions=run offset=16777215 inputs=activations seed=6",
    "rope(d=48,base=10000,layout=half,dtype=bf16,precision=fp32-angle) | batch=1 seq=17 heads=2 order=bshd pad=0 "
    "place=out ids=int32 positions=run offset=300 inputs=activations seed=7",
    "rope(d=40,base=10000,layout=interleaved,dtype=fp16) | batch=1 seq=11 heads=2 order=bshd pad=0 place=in ids=int64 "
    "positions=run offset=77 inputs=activations seed=8",
    "xpos(d=16,base=10000,layout=half,scale_base=512,dtype=fp32) | batch=1 seq=13 heads=2 order=bshd pad=0 place=out "
    "ids=int64 positions=run offset=2000 inputs=activations seed=9",
};

TEST(BoundarySweep, NoFalseAcceptNoFalseReject) {
  for (const char* text : kCases) {
    KernelCall ran = materialize(CaseDescription::parse(text));
    make_backend("cpu")->run(ran);
    std::uint64_t elements = 0;
    for (const Buffer& out : ran.outputs) elements += static_cast<std::uint64_t>(out.shape[0] * out.shape[1] * out.shape[2] * out.shape[3]);
    for (const Outside which : {Outside::none, Outside::half, Outside::other_half, Outside::all}) {
      std::uint64_t out_of_bound = 0;
      const CaseVerdict verdict = verify_call(at_the_edge(ran, which, out_of_bound));
      EXPECT_EQ(verdict.failing_elements, out_of_bound) << text << ", sweep " << static_cast<int>(which);
      if (which == Outside::none) {
        EXPECT_EQ(verdict.stats.bounded_elements, elements) << text;
        EXPECT_LE(verdict.stats.worst_ratio, 1.0) << text;
        // In fp64 the edges lie closer to the bound than the screen's own error: the exact tier judges.
        if (ran.outputs[0].type == ElementType::fp64) {
          EXPECT_GT(verdict.stats.escalations, elements / 4) << text;
        }
      }
      if (which == Outside::all) {
        EXPECT_EQ(out_of_bound, elements);
      }
    }
  }
}

}  // namespace
}  // namespace peconform::harness
