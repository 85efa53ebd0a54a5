// The cases a campaign draws, described without running them: heads up to 128 in every profile
// (issue 18, point 7a), and the deep profile's long and huge calls only in cells that take them,
// under every family filter (point 7b).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <fmt/format.h>
#include <set>

#include "backends/backend_registry.hpp"
#include "harness/case_call.hpp"
#include "harness/case_generator.hpp"
#include "properties/generators.hpp"
#include "spec/spec_error.hpp"

namespace peconform::harness {
namespace {

constexpr std::uint64_t kSeed = 20261121;
constexpr std::int64_t kTwoTo31 = std::int64_t{1} << 31;

std::int64_t elements(const CaseDescription& c) {
  if (!is_rotary(c.spec.family)) return 0;
  return c.batch * c.seq * (c.heads + c.kv_heads) * std::int64_t{c.spec.d};
}

// The positions a case reaches, as materialize checks them (harness/case_call.cpp).
void expect_positions_within_the_limit(const CaseDescription& c) {
  const std::int64_t limit = position_limit(c.spec);
  const Family family = c.spec.family;
  const bool keyed = is_relative(family) && family != Family::xl;
  EXPECT_TRUE(c.offset >= 0 || family == Family::xl || is_relative(family)) << c.text();
  if (family == Family::learned) {
    EXPECT_TRUE(c.positions != PositionMode::run || c.offset + c.seq <= c.spec.rows) << c.text();
    return;
  }
  EXPECT_LE(c.offset + c.seq - 1, limit) << c.text();
  EXPECT_TRUE(!keyed || c.key_offset + c.keys - 1 <= limit) << c.text();
}

TEST(CaseGenerator, EveryFamilyFilterOnTheDeepProfileDrawsCasesItsFamilyTakes) {
  const BackendCapabilities capabilities = make_backend("cpu")->capabilities();
  const Profile deep = profile_named("deep");
  for (const Family family : capabilities.families) {
    CaseFilters filters;
    filters.families = {family};
    const std::vector<CaseCell> cells = campaign_cells(capabilities, filters);
    // Past the first cycle of cells (where the huge call goes) and three runs of 64 (a long call each).
    const std::uint64_t cases = std::max<std::uint64_t>(2 * cells.size(), 3 * 64);
    int huge = 0, long_calls = 0;
    for (std::uint64_t k = 0; k < cases; ++k) {
      const CaseDescription c = draw_case(kSeed, k, cells, filters, deep, capabilities);
      ASSERT_EQ(c.spec.family, family) << "case " << k << ": " << c.text();
      EXPECT_NO_THROW(c.validate()) << c.text();
      expect_positions_within_the_limit(c);
      if (elements(c) > kTwoTo31) {
        ++huge;
        EXPECT_EQ(family, Family::rope) << "case " << k << ": " << c.text();
        EXPECT_TRUE(c.spec.dtype == Dtype::fp16 || c.spec.dtype == Dtype::bf16) << c.text();
        EXPECT_LT(k, cells.size()) << "the huge call comes in the first cycle of cells";
      } else if (c.seq > 65536) {
        ++long_calls;
        EXPECT_EQ(c.heads, 1) << c.text();
      } else {
        EXPECT_LE(elements(c), deep.largest_call_elements) << c.text();
      }
    }
    EXPECT_EQ(huge, family == Family::rope ? 1 : 0) << family_name(family);
    EXPECT_EQ(long_calls, is_rotary(family) ? 3 : 0) << family_name(family);
  }
}

TEST(CaseGenerator, EveryCaseStringOfTheCiProfileReplays) {
  // A drawn spec's recipe (theta=, slopes=) must not outlive the class the cell puts in its place:
  // `alibi(...,slopes=bloom)` under exact-angle was drawn and could not be replayed.
  const BackendCapabilities capabilities = make_backend("cpu")->capabilities();
  const std::vector<CaseCell> cells = campaign_cells(capabilities, {});
  const Profile ci = profile_named("ci");
  for (std::uint64_t k = 0; k < ci.cases; ++k) {
    const CaseDescription c = draw_case(kSeed, k, cells, {}, ci, capabilities);
    CaseDescription replayed;
    ASSERT_NO_THROW(replayed = CaseDescription::parse(c.text())) << "case " << k << ": " << c.text();
    EXPECT_EQ(replayed.text(), c.text());
  }
}

TEST(CaseGenerator, SixteenBitRotaryCellsRoundAsTheModelDoesEveryOtherCycle) {
  // Issue 34: a bf16 model's rotation (cache=storage,math=storage) is drawn in every rotary
  // family's fp16 and bf16 cells under exact-angle and fp32-angle, in the second cycle of cells
  // (and every even one), and reported as a cell of its own; the first cycle draws what it drew
  // before the keys existed.
  const BackendCapabilities capabilities = make_backend("cpu")->capabilities();
  const std::vector<CaseCell> cells = campaign_cells(capabilities, {});
  std::size_t eligible = 0, model_cases = 0;
  for (std::size_t k = 0; k < 2 * cells.size(); ++k) {
    const CaseCell& cell = cells[k % cells.size()];
    const CaseDescription c = draw_case(kSeed, k, cells, {}, profile_named("ci"), capabilities);
    const bool storage = c.spec.cache == RoundsIn::storage && c.spec.math == RoundsIn::storage;
    EXPECT_TRUE(storage || (c.spec.cache == RoundsIn::compute && c.spec.math == RoundsIn::compute)) << c.text();
    EXPECT_EQ(storage, cell.model_rounding && k >= cells.size()) << c.text();
    if (k < cells.size() && cell.model_rounding) {
      ++eligible;
      EXPECT_TRUE(is_rotary(c.spec.family) && (c.spec.dtype == Dtype::fp16 || c.spec.dtype == Dtype::bf16) &&
                  c.spec.precision != PrecisionClass::lowp_cache)
          << c.text();
    }
    if (!storage) continue;
    ++model_cases;
    EXPECT_EQ(cell_of("cpu", c.spec).precision, fmt::format("{},cache=storage,math=storage", precision_name(c.spec.precision)));
  }
  EXPECT_EQ(eligible, 4u * 2u * 2u);
  EXPECT_EQ(model_cases, eligible);
  // A kernel with patterns draws them only where its pattern leaves both keys to the campaign.
  BackendCapabilities fixed = capabilities, free = capabilities;
  fixed.patterns = {SpecPattern::parse("rope(d=64,dtype=bf16,precision=fp32-angle,theta=hf)")};
  free.patterns = {SpecPattern::parse("rope(d=64,dtype=bf16,precision=fp32-angle,theta=hf,cache=*,math=*)")};
  fixed.takes_rounding_keys = free.takes_rounding_keys = false;
  EXPECT_FALSE(campaign_cells(fixed, {}).at(0).model_rounding);
  EXPECT_TRUE(campaign_cells(free, {}).at(0).model_rounding);
  EXPECT_EQ(draw_case(kSeed, 1, campaign_cells(free, {}), {}, profile_named("ci"), free).spec.math, RoundsIn::storage);
}

// fp64-angle describes float64 tables: drawn for sinusoidal and xl alone, and only where --spec,
// --precision or a kernel's pattern names it, so a kernel that never heard of the class keeps the
// campaign it had.
TEST(CaseGenerator, Fp64AngleIsDrawnForTablesWhereNamed) {
  const BackendCapabilities capabilities = make_backend("cpu")->capabilities();
  const auto fp64_cells = [](const std::vector<CaseCell>& cells) {
    std::vector<Family> families;
    for (const CaseCell& cell : cells)
      if (cell.precision == PrecisionClass::fp64_angle) families.push_back(cell.family);
    return families;
  };
  EXPECT_TRUE(fp64_cells(campaign_cells(capabilities, {})).empty());
  CaseFilters named;
  named.precisions = {PrecisionClass::fp64_angle};
  // learned has a dtype but no class: a class filter leaves its cells as they are.
  for (const CaseCell& cell : campaign_cells(capabilities, named))
    EXPECT_TRUE(cell.precision == PrecisionClass::fp64_angle || cell.family == Family::learned) << family_name(cell.family);
  std::vector<Family> families = fp64_cells(campaign_cells(capabilities, named));
  EXPECT_EQ(families.size(), 2 * capabilities.dtypes.size());
  families.erase(std::unique(families.begin(), families.end()), families.end());
  EXPECT_EQ(families, (std::vector<Family>{Family::sinusoidal, Family::xl}));
  BackendCapabilities patterned = capabilities, every_class = capabilities;
  patterned.patterns = {SpecPattern::parse("sinusoidal(d=768,layout=interleaved,precision=fp64-angle)")};
  every_class.patterns = {SpecPattern::parse("sinusoidal(*)")};
  EXPECT_EQ(fp64_cells(campaign_cells(patterned, {})).size(), 1u);
  EXPECT_TRUE(fp64_cells(campaign_cells(every_class, {})).empty());
  // A backend without the class (our OpenCL and CUDA kernels) says so, naming the classes it has.
  BackendCapabilities three_classes = capabilities;
  three_classes.precisions = {PrecisionClass::exact_angle, PrecisionClass::fp32_angle, PrecisionClass::lowp_cache};
  CaseFilters asked;
  asked.spec = Spec::parse("sinusoidal(d=16,precision=fp64-angle)");
  try {
    campaign_cells(three_classes, asked);
    ADD_FAILURE() << "a class the backend does not serve was accepted";
  } catch (const SpecError& error) {
    EXPECT_NE(std::string(error.what()).find("precision=fp64-angle, which this backend does not serve; it serves exact-angle, "
                                             "fp32-angle, lowp-cache"),
              std::string::npos)
        << error.what();
  }
}

TEST(CaseGenerator, ADtypeFilterIsKeptByTheHugeCall) {
  const BackendCapabilities capabilities = make_backend("cpu")->capabilities();
  const Profile deep = profile_named("deep");
  for (const Dtype dtype : capabilities.dtypes) {
    CaseFilters filters;
    filters.families = {Family::rope};
    filters.dtypes = {dtype};
    const std::vector<CaseCell> cells = campaign_cells(capabilities, filters);
    int huge = 0;
    for (std::uint64_t k = 0; k < 2 * cells.size(); ++k) {
      const CaseDescription c = draw_case(kSeed, k, cells, filters, deep, capabilities);
      EXPECT_EQ(c.spec.dtype, dtype) << c.text();
      huge += elements(c) > kTwoTo31;
    }
    EXPECT_EQ(huge, dtype == Dtype::fp16 || dtype == Dtype::bf16 ? 1 : 0) << dtype_name(dtype);
  }
}

TEST(CaseGenerator, ASpecWhosePositionsStopShortOfALongCallTakesNone) {
  const BackendCapabilities capabilities = make_backend("cpu")->capabilities();
  CaseFilters filters;
  filters.spec = Spec::parse("xpos(d=64,base=10000,layout=half,scale_base=8,dtype=fp16)");  // positions to 67,885
  ASSERT_LT(position_limit(*filters.spec), 65536 * 2);
  const std::vector<CaseCell> cells = campaign_cells(capabilities, filters);
  for (std::uint64_t k = 0; k < 3 * 64; ++k) {
    const CaseDescription c = draw_case(kSeed, k, cells, filters, profile_named("deep"), capabilities);
    expect_positions_within_the_limit(c);
    EXPECT_LE(c.seq, 4096) << c.text();
  }
}

// xPos's positions stop at 8485 scale_base (xpos_position_limit): with scale_base=0.001 at 8,
// below the tokens a case draws. Every case keeps within them, and is run, not refused.
TEST(CaseGenerator, ASpecWhosePositionsStopShortOfTheTokensDrawnKeepsWithinThem) {
  const BackendCapabilities capabilities = make_backend("cpu")->capabilities();
  CaseFilters filters;
  filters.spec = Spec::parse("xpos(d=64,base=10000,layout=half,scale_base=0.001,dtype=fp32)");
  const std::int64_t limit = position_limit(*filters.spec);
  ASSERT_EQ(limit, 8);
  const std::vector<CaseCell> cells = campaign_cells(capabilities, filters);
  int every_position = 0;
  for (std::uint64_t k = 0; k < 3 * 64; ++k) {
    const CaseDescription c = draw_case(kSeed, k, cells, filters, profile_named("ci"), capabilities);
    expect_positions_within_the_limit(c);
    EXPECT_NO_THROW(materialize(c)) << c.text();
    every_position += c.seq == limit + 1;
  }
  EXPECT_GT(every_position, 20);  // most draws pass 9 tokens, so the cap is what is tested
}

// A case's offset (run and cache positions) is log-uniform or one of the edges draw_offset names:
// 0, 2^24 - 1, 2^24, 2^24 + 1, and the largest that keeps its positions (and a cache case's rows,
// which start up to 4096 apart) within the limit.
TEST(CaseGenerator, OffsetsReachEveryEdgeAndTheLimit) {
  const BackendCapabilities capabilities = make_backend("cpu")->capabilities();
  CaseFilters filters;
  filters.families = {Family::rope};
  const std::vector<CaseCell> cells = campaign_cells(capabilities, filters);
  std::set<std::int64_t> offsets;
  int at_the_top = 0, elsewhere = 0;
  for (std::uint64_t k = 0; k < 600; ++k) {
    const CaseDescription c = draw_case(kSeed, k, cells, filters, profile_named("ci"), capabilities);
    if (c.positions == PositionMode::scattered) continue;
    const std::int64_t spread = c.positions == PositionMode::cache ? 4096 : 0;
    const std::int64_t top = position_limit(c.spec) - (c.seq + spread) + 1;
    EXPECT_LE(c.offset, top) << c.text();
    offsets.insert(c.offset);
    at_the_top += c.offset == top;
    elsewhere += c.offset != 0 && c.offset != top && std::abs(c.offset - (1 << 24)) > 1;
  }
  for (const std::int64_t edge : {std::int64_t{0}, std::int64_t{1 << 24} - 1, std::int64_t{1 << 24}, std::int64_t{1 << 24} + 1})
    EXPECT_TRUE(offsets.count(edge)) << "no case at offset " << edge;
  EXPECT_GT(at_the_top, 0);
  EXPECT_GT(elsewhere, 100);
}

// ALiBi, T5 and Shaw draw their keys within 512 of the queries on either side most of the time,
// where buckets and clipping change.
TEST(CaseGenerator, KeysAreDrawnNearTheQueriesOnEitherSide) {
  const BackendCapabilities capabilities = make_backend("cpu")->capabilities();
  for (const Family family : {Family::alibi, Family::t5, Family::shaw}) {
    CaseFilters filters;
    filters.families = {family};
    const std::vector<CaseCell> cells = campaign_cells(capabilities, filters);
    int before = 0, after = 0;
    for (std::uint64_t k = 0; k < 200; ++k) {
      const CaseDescription c = draw_case(kSeed, k, cells, filters, profile_named("ci"), capabilities);
      EXPECT_GE(c.key_offset, 0) << c.text();
      before += c.key_offset < c.offset && c.key_offset >= c.offset - 512;
      after += c.key_offset >= c.offset && c.key_offset < c.offset + 512;
    }
    EXPECT_GT(before, 20) << family_name(family);
    EXPECT_GT(after, 20) << family_name(family);
  }
}

// Sinusoidal and Transformer-XL tables are drawn unpadded half the time, else with 1 to 8 rows of
// padding.
TEST(CaseGenerator, TablesArePaddedByNoRowsOrByOneToEight) {
  const BackendCapabilities capabilities = make_backend("cpu")->capabilities();
  for (const Family family : {Family::sinusoidal, Family::xl}) {
    CaseFilters filters;
    filters.families = {family};
    const std::vector<CaseCell> cells = campaign_cells(capabilities, filters);
    std::set<int> pads;
    for (std::uint64_t k = 0; k < 300; ++k) pads.insert(draw_case(kSeed, k, cells, filters, profile_named("ci"), capabilities).pad);
    EXPECT_EQ(pads, (std::set<int>{0, 1, 2, 3, 4, 5, 6, 7, 8})) << family_name(family);
  }
}

// `count` of `n` draws against a stated share p: within five standard deviations of a binomial
// count. The seed fixes the draws; a share moved by a tenth is some ten deviations out at n = 2000.
void expect_share(int count, int n, double p, const char* what) {
  EXPECT_NEAR(static_cast<double>(count) / n, p, 5 * std::sqrt(p * (1 - p) / n)) << what << ": " << count << " of " << n;
}

// The shares draw_rotary_shape, draw_order and draw_case state, over rope's normal calls.
TEST(CaseGenerator, RotaryCasesAreDrawnInTheStatedShares) {
  const BackendCapabilities capabilities = make_backend("cpu")->capabilities();
  CaseFilters filters;
  filters.families = {Family::rope};
  const std::vector<CaseCell> cells = campaign_cells(capabilities, filters);
  int n = 0, keyed = 0, in_place = 0, ids64 = 0, unpadded = 0, run = 0, cache = 0, bshd = 0, bhsd = 0, bits = 0;
  std::set<std::int64_t> batches;
  for (std::uint64_t k = 0; k < 2000; ++k) {
    const CaseDescription c = draw_case(kSeed, k, cells, filters, profile_named("ci"), capabilities);
    if (c.seq > 65536) continue;  // a long call: one head, no key operand
    ++n;
    keyed += c.kv_heads > 0;
    in_place += c.in_place;
    ids64 += c.ids64;
    unpadded += c.pad == 0;
    run += c.positions == PositionMode::run;
    cache += c.positions == PositionMode::cache;
    bshd += c.order == "bshd";
    bhsd += c.order == "bhsd";
    bits += c.inputs == InputKind::bit_patterns;
    batches.insert(c.batch);
  }
  expect_share(keyed, n, 0.5, "a key operand");
  expect_share(in_place, n, 0.3, "in place");
  expect_share(ids64, n, 0.5, "int64 ids");
  expect_share(unpadded, n, 0.5, "unpadded");
  expect_share(run, n, 0.5, "a run of positions");
  expect_share(cache, n, 0.25, "a KV cache");
  // A quarter of the orders are a random permutation of bshd, which is bshd or bhsd one time in 24.
  expect_share(bshd, n, 0.5 + 0.25 / 24, "bshd");
  expect_share(bhsd, n, 0.25 + 0.25 / 24, "bhsd");
  expect_share(bits, n, 0.25, "bit patterns as inputs");
  EXPECT_EQ(batches, (std::set<std::int64_t>{1, 2, 3, 4}));
}

// Half the Transformer-XL tables start at a negative distance, the drawn offset mirrored.
TEST(CaseGenerator, TransformerXlTablesStartOnEitherSideOfZero) {
  const BackendCapabilities capabilities = make_backend("cpu")->capabilities();
  CaseFilters filters;
  filters.families = {Family::xl};
  const std::vector<CaseCell> cells = campaign_cells(capabilities, filters);
  int negative = 0, n = 400;
  for (std::uint64_t k = 0; k < static_cast<std::uint64_t>(n); ++k)
    negative += draw_case(kSeed, k, cells, filters, profile_named("ci"), capabilities).offset < 0;
  // A mirrored offset is negative unless the table is one row at offset 0.
  EXPECT_GT(negative, n / 4);
  EXPECT_LT(negative, 3 * n / 4);
}

// --dtype and --precision name what T5 and Shaw do not have, so either leaves them out.
TEST(CaseGenerator, ADtypeOrClassFilterLeavesOutTheFamiliesWithoutOne) {
  const BackendCapabilities capabilities = make_backend("cpu")->capabilities();
  CaseFilters by_dtype, by_class;
  by_dtype.dtypes = {Dtype::fp16};
  by_class.precisions = {PrecisionClass::exact_angle};
  for (const CaseFilters& filters : {by_dtype, by_class}) {
    std::set<Family> families;
    for (const CaseCell& cell : campaign_cells(capabilities, filters)) families.insert(cell.family);
    EXPECT_FALSE(families.count(Family::t5));
    EXPECT_FALSE(families.count(Family::shaw));
    EXPECT_TRUE(families.count(Family::rope));
  }
}

// A kernel that lists ALiBi before RoPE and bf16 first has its huge call inside the first run of
// 64 cases, after cells that take no long call: that run still has its long call, the next case
// that takes one, as every other run has.
TEST(CaseGenerator, TheRunThatHoldsTheHugeCallHasItsLongCallToo) {
  BackendCapabilities capabilities = make_backend("cpu")->capabilities();
  capabilities.families = {Family::alibi, Family::rope};
  std::stable_partition(capabilities.dtypes.begin(), capabilities.dtypes.end(), [](Dtype d) { return d == Dtype::bf16; });
  ASSERT_EQ(capabilities.dtypes.front(), Dtype::bf16);
  const std::vector<CaseCell> cells = campaign_cells(capabilities, {});
  std::array<int, 3> long_calls{};
  int huge = 0;
  for (std::uint64_t k = 0; k < 3 * 64; ++k) {
    const CaseDescription c = draw_case(kSeed, k, cells, {}, profile_named("deep"), capabilities);
    if (elements(c) > kTwoTo31) {
      ++huge;
      EXPECT_GT(k % 64, 0u) << "the huge call would not share its run";
    } else if (c.seq > 65536) {
      ++long_calls[k / 64];
    }
  }
  EXPECT_EQ(huge, 1);
  EXPECT_EQ(long_calls, (std::array<int, 3>{1, 1, 1}));
}

TEST(CaseGenerator, EveryProfileDrawsUpTo128HeadsWithinItsBudget) {
  const BackendCapabilities capabilities = make_backend("cpu")->capabilities();
  CaseFilters filters;
  filters.families = {Family::rope, Family::xpos, Family::mrope, Family::rope2d};
  const std::vector<CaseCell> cells = campaign_cells(capabilities, filters);
  for (const char* name : {"smoke", "ci", "deep"}) {
    const Profile profile = profile_named(name);
    int most = 0, past_32 = 0, normal = 0;
    for (std::uint64_t k = 0; k < std::min<std::uint64_t>(profile.cases, 1000); ++k) {
      const CaseDescription c = draw_case(kSeed, k, cells, filters, profile, capabilities);
      if (c.seq > 65536) continue;  // a long or huge call
      ++normal;
      EXPECT_LE(elements(c), profile.largest_call_elements) << c.text();
      EXPECT_LE(c.kv_heads, c.heads) << c.text();
      most = std::max(most, c.heads);
      past_32 += c.heads > 32;
    }
    EXPECT_EQ(most, 128) << name;
    // Log-uniform from 1 to 128: one case in four or so has more than 32 heads, fewer where the
    // budget halves them (smoke's 2^16 elements).
    EXPECT_GT(past_32, normal / 10) << name << ": " << past_32 << " of " << normal;
  }
}

// The largest tensor of a call (input or output) and its tokens, as Profile's bounds count them.
std::int64_t largest_tensor(const CaseDescription& c) {
  const std::int64_t d = c.spec.d;
  switch (c.spec.family) {
    case Family::sinusoidal:
    case Family::xl: return c.seq * d;
    case Family::learned: return std::max(c.batch * c.seq * d, c.spec.rows * d);
    case Family::alibi: return std::int64_t{c.spec.heads} * c.seq * c.keys;
    case Family::t5:
    case Family::shaw: return c.seq * c.keys;
    default: return c.batch * c.seq * c.heads * d;
  }
}
std::int64_t tokens(const CaseDescription& c) {
  if (is_rotary(c.spec.family) || c.spec.family == Family::learned) return c.batch * c.seq;
  return std::max(c.seq, is_relative(c.spec.family) && c.spec.family != Family::xl ? c.keys : 0);
}

// A slow kernel's campaign bounds its calls (check(max_elements=, max_tokens=), issue 48): on
// the deep profile, every family's every tensor and call keeps within them, the long and huge
// calls they leave no room for are not drawn, and the bounds are reached, not undercut.
TEST(CaseGenerator, ShapeBoundsHoldForEveryFamilyAndLeaveOutTheLongAndHugeCalls) {
  const BackendCapabilities capabilities = make_backend("cpu")->capabilities();
  Profile deep = profile_named("deep");
  deep.largest_tensor_elements = 4096;
  deep.most_tokens = 64;
  for (const Family family : capabilities.families) {
    CaseFilters filters;
    filters.families = {family};
    const std::vector<CaseCell> cells = campaign_cells(capabilities, filters);
    std::int64_t most_tokens = 0, largest = 0;
    for (std::uint64_t k = 0; k < std::max<std::uint64_t>(2 * cells.size(), 3 * 64); ++k) {
      const CaseDescription c = draw_case(kSeed, k, cells, filters, deep, capabilities);
      EXPECT_NO_THROW(c.validate()) << c.text();
      expect_positions_within_the_limit(c);
      EXPECT_LE(largest_tensor(c), 4096) << c.text();
      EXPECT_LE(tokens(c), 64) << c.text();
      most_tokens = std::max(most_tokens, tokens(c));
      largest = std::max(largest, largest_tensor(c));
    }
    EXPECT_EQ(most_tokens, 64) << family_name(family);
    // Learned tables are small by their spec (d <= 16, 64 rows): 64 tokens of them reach 1,024 elements.
    EXPECT_GT(largest, family == Family::learned ? 512 : 2048) << family_name(family);
  }
}

// A bound no call can keep to (below one token of the spec's d) is refused, naming it, before
// anything runs; not met by a call that breaks it.
TEST(CaseGenerator, AnElementBoundBelowOneVectorIsRefusedByName) {
  const BackendCapabilities capabilities = make_backend("cpu")->capabilities();
  CaseFilters filters;
  filters.spec = Spec::parse("rope(d=64,base=10000,layout=half,dtype=fp32)");
  const std::vector<CaseCell> cells = campaign_cells(capabilities, filters);
  Profile smoke = profile_named("smoke");
  smoke.largest_tensor_elements = 63;
  try {
    draw_case(kSeed, 0, cells, filters, smoke, capabilities);
    FAIL() << "a call of d=64 was drawn within 63 elements";
  } catch (const SpecError& error) {
    EXPECT_NE(std::string(error.what()).find("max_elements is 63, below the 64 elements of one token of one head of d=64"),
              std::string::npos)
        << error.what();
  }
  smoke.largest_tensor_elements = 64;
  const CaseDescription c = draw_case(kSeed, 0, cells, filters, smoke, capabilities);
  EXPECT_EQ(c.batch * c.seq * c.heads, 1) << c.text();
  EXPECT_THROW(check_shape_bound("max_tokens", 0), SpecError);
  // A bias of 8 heads needs 8 elements for one query and one key.
  CaseFilters alibi;
  alibi.spec = Spec::parse("alibi(heads=8)");
  smoke.largest_tensor_elements = 7;
  try {
    draw_case(kSeed, 0, campaign_cells(capabilities, alibi), alibi, smoke, capabilities);
    FAIL() << "an ALiBi call of 8 heads was drawn within 7 elements";
  } catch (const SpecError& error) {
    EXPECT_NE(std::string(error.what()).find("one query and key of 8 heads"), std::string::npos) << error.what();
  }
}

// The message of the SpecError `draw` throws, or "" when it throws none.
template <class Draw> std::string refusal(Draw draw) {
  try {
    draw();
  } catch (const SpecError& error) {
    return error.what();
  }
  return "";
}

// A bound below one row of a table, or below a learned table, is refused by name, as a rotary
// call's is (AnElementBoundBelowOneVectorIsRefusedByName).
TEST(CaseGenerator, AnElementBoundBelowOneRowOrTheLearnedTableIsRefusedByName) {
  const BackendCapabilities capabilities = make_backend("cpu")->capabilities();
  Profile smoke = profile_named("smoke");
  const auto refused = [&](const char* spec, std::int64_t bound) {
    CaseFilters filters;
    filters.spec = Spec::parse(spec);
    smoke.largest_tensor_elements = bound;
    return refusal([&] { draw_case(kSeed, 0, campaign_cells(capabilities, filters), filters, smoke, capabilities); });
  };
  EXPECT_NE(refused("sinusoidal(d=64)", 63).find("max_elements is 63, below the 64 elements of one row of d=64"), std::string::npos);
  EXPECT_EQ(refused("sinusoidal(d=64)", 64), "");
  // The table is an input of rows x d elements, whatever the call's tokens.
  EXPECT_NE(refused("learned(d=16,rows=64)", 1023).find("max_elements is 1023, below the 1024 elements of the table of 64 rows"),
            std::string::npos);
  EXPECT_EQ(refused("learned(d=16,rows=64)", 1024), "");
}

// Under an element bound, the key operand gives way with the query heads: K is never larger than Q.
TEST(CaseGenerator, AnElementBoundHoldsForTheKeyOperandToo) {
  const BackendCapabilities capabilities = make_backend("cpu")->capabilities();
  constexpr std::int64_t kBound = 4096;
  Profile ci = profile_named("ci");
  ci.largest_tensor_elements = kBound;
  CaseFilters filters;
  filters.families = {Family::rope};
  const std::vector<CaseCell> cells = campaign_cells(capabilities, filters);
  int keyed = 0;
  for (std::uint64_t k = 0; k < 300; ++k) {
    const CaseDescription c = draw_case(kSeed, k, cells, filters, ci, capabilities);
    keyed += c.kv_heads > 0;
    EXPECT_LE(c.batch * c.seq * c.kv_heads * std::int64_t{c.spec.d}, kBound) << c.text();
  }
  EXPECT_GT(keyed, 0) << "no case had a key operand";
}

// The table, bias and learned calls keep within the call budget (the smaller of the profile's and
// the backend's largest call), as the rotary calls do (EveryProfileDrawsUpTo128HeadsWithinItsBudget):
// here a backend of 4,096 elements a call, below the 8,192 of a learned call's 512 tokens of d = 16
// or an ALiBi call's 512 queries of 16 heads, so that each dimension must give way.
TEST(CaseGenerator, TableBiasAndLearnedCallsKeepWithinTheCallBudget) {
  BackendCapabilities capabilities = make_backend("cpu")->capabilities();
  capabilities.largest_call_elements = 4096;
  const Profile smoke = profile_named("smoke");
  const std::int64_t budget = std::min(smoke.largest_call_elements, capabilities.largest_call_elements);
  for (const Family family : {Family::sinusoidal, Family::xl, Family::alibi, Family::t5, Family::shaw, Family::learned}) {
    CaseFilters filters;
    filters.families = {family};
    const std::vector<CaseCell> cells = campaign_cells(capabilities, filters);
    std::int64_t largest = 0;
    for (std::uint64_t k = 0; k < 300; ++k) {
      const CaseDescription c = draw_case(kSeed, k, cells, filters, smoke, capabilities);
      // A learned call's table (at most 64 rows of d = 16) is the spec's, not the call's.
      const std::int64_t call = family == Family::learned ? c.batch * c.seq * c.spec.d : largest_tensor(c);
      EXPECT_LE(call, budget) << c.text();
      largest = std::max(largest, call);
    }
    // The budget is reached, not merely kept: a call is halved only while it exceeds it.
    EXPECT_GT(largest, budget / 4) << family_name(family);
  }
}

// rope's cases on `profile` for a kernel of `capabilities`, over the first cycle of cells and
// three runs of 64 (as EveryFamilyFilterOnTheDeepProfileDrawsCasesItsFamilyTakes draws them):
// the long calls (more than 65,536 tokens) and the huge ones (past 2^31 elements) among them.
struct BigCalls {
  std::vector<CaseDescription> long_calls, huge;
};
BigCalls big_calls(const BackendCapabilities& capabilities, const Profile& profile) {
  CaseFilters filters;
  filters.families = {Family::rope};
  const std::vector<CaseCell> cells = campaign_cells(capabilities, filters);
  BigCalls big;
  for (std::uint64_t k = 0; k < std::max<std::uint64_t>(2 * cells.size(), 3 * 64); ++k) {
    const CaseDescription c = draw_case(kSeed, k, cells, filters, profile, capabilities);
    if (elements(c) > kTwoTo31)
      big.huge.push_back(c);
    else if (c.seq > 65536)
      big.long_calls.push_back(c);
  }
  return big;
}

// The most elements of a long call, one head of up to 2 x 65,536 tokens of up to 256 dims, and its
// most tokens; the huge call's, 2^31 passed by less than one token of 128 heads of d = 512, and its
// tokens at 32 heads of the smallest d (2), one past 2^31 / 64.
constexpr std::int64_t kLongCallElements = std::int64_t{1} << 25, kLongCallTokens = std::int64_t{1} << 17;
constexpr std::int64_t kHugeCallElements = kTwoTo31 + 128 * 512, kHugeCallTokens = kTwoTo31 / 64 + 1;

// The long calls are one head of one batch row with no key operand; the huge call is 32, 64 or
// 128 heads of one batch row, in place (4 GiB out of place would be 8), unpadded, bshd.
TEST(CaseGenerator, LongAndHugeCallsHaveTheirStatedShapes) {
  const BigCalls big = big_calls(make_backend("cpu")->capabilities(), profile_named("deep"));
  EXPECT_EQ(big.long_calls.size(), 3u);
  for (const CaseDescription& c : big.long_calls) {
    EXPECT_EQ(c.heads, 1) << c.text();
    EXPECT_EQ(c.kv_heads, 0) << c.text();
    EXPECT_EQ(c.batch, 1) << c.text();
  }
  ASSERT_EQ(big.huge.size(), 1u);
  const CaseDescription& huge = big.huge.front();
  EXPECT_TRUE(huge.heads == 32 || huge.heads == 64 || huge.heads == 128) << huge.text();
  EXPECT_EQ(huge.kv_heads, 0) << huge.text();
  EXPECT_EQ(huge.batch, 1) << huge.text();
  EXPECT_TRUE(huge.in_place) << huge.text();
  EXPECT_EQ(huge.pad, 0) << huge.text();
  EXPECT_EQ(huge.order, "bshd") << huge.text();
}

// A backend takes the long calls only where its calls may reach their size, and the huge call
// only where they may pass 2^31 elements and be made in place.
TEST(CaseGenerator, ABackendTakesTheLongAndHugeCallsOnlyWhereItsCallsHoldThem) {
  const BackendCapabilities cpu = make_backend("cpu")->capabilities();
  const Profile deep = profile_named("deep");
  BackendCapabilities kernel = cpu;
  kernel.largest_call_elements = kLongCallElements - 1;
  EXPECT_TRUE(big_calls(kernel, deep).long_calls.empty());
  kernel.largest_call_elements = kLongCallElements;
  EXPECT_EQ(big_calls(kernel, deep).long_calls.size(), 3u);
  kernel.largest_call_elements = kTwoTo31;
  EXPECT_TRUE(big_calls(kernel, deep).huge.empty());
  kernel.largest_call_elements = kTwoTo31 + 1;
  EXPECT_EQ(big_calls(kernel, deep).huge.size(), 1u);
  kernel.takes.in_place = false;
  EXPECT_TRUE(big_calls(kernel, deep).huge.empty());
}

// A run's token bound alone, or its element bound alone, leaves out the long and huge calls it
// has no room for, and keeps those it has room for.
TEST(CaseGenerator, EachBoundAloneLeavesOutTheLongAndHugeCallsItHasNoRoomFor) {
  const BackendCapabilities cpu = make_backend("cpu")->capabilities();
  const auto bounded = [](std::int64_t elements, std::int64_t tokens) {
    Profile deep = profile_named("deep");
    deep.largest_tensor_elements = elements;
    deep.most_tokens = tokens;
    return deep;
  };
  EXPECT_TRUE(big_calls(cpu, bounded(0, kLongCallTokens - 1)).long_calls.empty());
  EXPECT_EQ(big_calls(cpu, bounded(0, kLongCallTokens)).long_calls.size(), 3u);
  EXPECT_TRUE(big_calls(cpu, bounded(kLongCallElements - 1, 0)).long_calls.empty());
  EXPECT_EQ(big_calls(cpu, bounded(kLongCallElements, 0)).long_calls.size(), 3u);
  EXPECT_TRUE(big_calls(cpu, bounded(0, kHugeCallTokens - 1)).huge.empty());
  EXPECT_EQ(big_calls(cpu, bounded(0, kHugeCallTokens)).huge.size(), 1u);
  EXPECT_TRUE(big_calls(cpu, bounded(kHugeCallElements - 1, 0)).huge.empty());
  EXPECT_EQ(big_calls(cpu, bounded(kHugeCallElements, 0)).huge.size(), 1u);
}

// ci draws long_calls_per_family long calls for each rotary family in its first cycle of cells,
// and none after it; smoke none at all; neither draws the huge call.
TEST(CaseGenerator, CiDrawsItsLongCallsInTheFirstCycleAndSmokeNone) {
  const BackendCapabilities capabilities = make_backend("cpu")->capabilities();
  const std::vector<CaseCell> cells = campaign_cells(capabilities, {});
  for (const char* name : {"ci", "smoke"}) {
    const Profile profile = profile_named(name);
    std::vector<Family> first_cycle;
    int later = 0, huge = 0;
    for (std::uint64_t k = 0; k < cells.size() + 3 * 64; ++k) {
      const CaseDescription c = draw_case(kSeed, k, cells, {}, profile, capabilities);
      if (elements(c) > kTwoTo31)
        ++huge;
      else if (c.seq > 65536 && k < cells.size())
        first_cycle.push_back(c.spec.family);
      else if (c.seq > 65536)
        ++later;
    }
    for (const Family family : capabilities.families)
      EXPECT_EQ(std::count(first_cycle.begin(), first_cycle.end(), family), is_rotary(family) ? profile.long_calls_per_family : 0)
          << name << " " << family_name(family);
    EXPECT_EQ(later, 0) << name;
    EXPECT_EQ(huge, 0) << name;
  }
}

// A kernel that does not take a kind of call is never drawn one: each CallsTaken flag cleared in
// turn, every case keeps to it, where the draws for a kernel taking everything do not.
TEST(CaseGenerator, ACaseIsNarrowedToTheCallsItsKernelTakes) {
  struct Narrowing {
    const char* what;
    bool CallsTaken::*flag;
    bool (*kept)(const CaseDescription&);
  };
  const Narrowing narrowings[] = {
      {"in place", &CallsTaken::in_place, [](const CaseDescription& c) { return !is_rotary(c.spec.family) || !c.in_place; }},
      {"out of place", &CallsTaken::out_of_place, [](const CaseDescription& c) { return !is_rotary(c.spec.family) || c.in_place; }},
      {"key operand", &CallsTaken::key_operand, [](const CaseDescription& c) { return c.kv_heads == 0; }},
      {"int64 ids", &CallsTaken::ids64, [](const CaseDescription& c) { return c.spec.family == Family::sinusoidal || !c.ids64; }},
      {"int32 ids", &CallsTaken::ids32, [](const CaseDescription& c) { return c.spec.family == Family::sinusoidal || c.ids64; }},
      {"strided", &CallsTaken::strided, [](const CaseDescription& c) { return c.order == "bshd" && c.pad == 0; }},
  };
  const BackendCapabilities every_call = make_backend("cpu")->capabilities();
  CaseFilters filters;
  filters.families = {Family::rope, Family::learned, Family::sinusoidal};
  const std::vector<CaseCell> cells = campaign_cells(every_call, filters);
  for (const Narrowing& narrowing : narrowings) {
    BackendCapabilities narrowed = every_call;
    narrowed.takes.*narrowing.flag = false;
    int unkept = 0;
    for (std::uint64_t k = 0; k < 200; ++k) {
      unkept += !narrowing.kept(draw_case(kSeed, k, cells, filters, profile_named("ci"), every_call));
      const CaseDescription c = draw_case(kSeed, k, cells, filters, profile_named("ci"), narrowed);
      EXPECT_TRUE(narrowing.kept(c)) << narrowing.what << ": " << c.text();
    }
    EXPECT_GT(unkept, 0) << "a kernel taking every call is drawn " << narrowing.what << " calls";
  }
}

// The integer families (T5, Shaw) have neither dtype nor class: one cell, keyed int32 and exact;
// learned has a dtype but no class: one cell per dtype, keyed exact.
TEST(CaseGenerator, TheIntegerFamiliesHaveOneCellAndLearnedOnePerDtype) {
  const BackendCapabilities capabilities = make_backend("cpu")->capabilities();
  EXPECT_EQ(cell_of("cpu", Spec::parse("t5(buckets=32,max_distance=128)")), (CellKey{"cpu", "t5", "int32", "exact"}));
  EXPECT_EQ(cell_of("cpu", Spec::parse("shaw(k=4)")), (CellKey{"cpu", "shaw", "int32", "exact"}));
  EXPECT_EQ(cell_of("cpu", Spec::parse("learned(d=16,rows=64,dtype=bf16)")), (CellKey{"cpu", "learned", "bf16", "exact"}));
  std::vector<Family> families;
  std::set<Dtype> learned_dtypes;
  for (const CaseCell& cell : campaign_cells(capabilities, {})) {
    families.push_back(cell.family);
    if (cell.family == Family::learned) learned_dtypes.insert(cell.dtype);
  }
  EXPECT_EQ(std::count(families.begin(), families.end(), Family::t5), 1);
  EXPECT_EQ(std::count(families.begin(), families.end(), Family::shaw), 1);
  EXPECT_EQ(std::count(families.begin(), families.end(), Family::learned), static_cast<std::ptrdiff_t>(capabilities.dtypes.size()));
  EXPECT_EQ(learned_dtypes.size(), capabilities.dtypes.size());
}

// --spec gives one cell, its own dtype and class, which never rounds as a model (the spec says
// where it rounds), and is drawn for a class (fp64-angle) or an ALiBi lowp-cache cell that the
// campaign draws only where named.
TEST(CaseGenerator, ASpecHasOneCellOfItsOwnDtypeAndClass) {
  const BackendCapabilities capabilities = make_backend("cpu")->capabilities();
  ASSERT_TRUE(capabilities.takes_rounding_keys) << "else no cell rounds as a model, with or without --spec";
  for (const char* text : {"rope(d=64,dtype=fp16)", "sinusoidal(d=16,precision=fp64-angle)", "alibi(heads=8,precision=lowp-cache)"}) {
    CaseFilters filters;
    filters.spec = Spec::parse(text);
    std::vector<CaseCell> cells;
    ASSERT_NO_THROW(cells = campaign_cells(capabilities, filters)) << text;
    ASSERT_EQ(cells.size(), 1u) << text;
    EXPECT_EQ(cells[0].dtype, filters.spec->dtype) << text;
    EXPECT_EQ(cells[0].precision, filters.spec->precision) << text;
    EXPECT_FALSE(cells[0].model_rounding) << text;
  }
  // Unnamed, ALiBi has no lowp-cache cell: it has no cos/sin to cache.
  for (const CaseCell& cell : campaign_cells(capabilities, {}))
    EXPECT_FALSE(cell.family == Family::alibi && cell.precision == PrecisionClass::lowp_cache);
}

// Filters that leave no cell are refused up front, as is a --spec the kernel's pattern does not admit.
TEST(CaseGenerator, FiltersThatLeaveNoCellAreRefused) {
  const BackendCapabilities capabilities = make_backend("cpu")->capabilities();
  const std::string no_case = "the filters (--spec, --family, --dtype, --precision) leave no case this backend supports";
  CaseFilters t5_in_fp16;
  t5_in_fp16.families = {Family::t5};
  t5_in_fp16.dtypes = {Dtype::fp16};
  EXPECT_EQ(refusal([&] { campaign_cells(capabilities, t5_in_fp16); }), no_case);
  BackendCapabilities d64 = capabilities;
  d64.patterns = {SpecPattern::parse("rope(d=64,dtype=fp32)")};
  CaseFilters d128;
  d128.spec = Spec::parse("rope(d=128,dtype=fp32)");
  EXPECT_EQ(refusal([&] { campaign_cells(d64, d128); }), no_case);
  d128.spec = Spec::parse("rope(d=64,dtype=fp32)");
  EXPECT_EQ(refusal([&] { campaign_cells(d64, d128); }), "") << "the pattern admits d=64";
}

// A patterned kernel is drawn only specs of its pattern: the fixed keys as fixed, the choices
// among their values.
TEST(CaseGenerator, APatternedKernelIsDrawnOnlyItsPatternsSpecs) {
  BackendCapabilities capabilities = make_backend("cpu")->capabilities();
  capabilities.patterns = {SpecPattern::parse("rope(d=64|128,layout=*,dtype=bf16,precision=fp32-angle,theta=hf)")};
  const std::vector<CaseCell> cells = campaign_cells(capabilities, {});
  std::set<int> ds;
  for (std::uint64_t k = 0; k < 100; ++k) {
    const CaseDescription c = draw_case(kSeed, k, cells, {}, profile_named("ci"), capabilities);
    ds.insert(c.spec.d);
    EXPECT_EQ(c.spec.theta, ThetaRecipe::hf) << c.text();
    EXPECT_EQ(c.spec.dtype, Dtype::bf16) << c.text();
    EXPECT_EQ(c.spec.scaling.kind, PlanKind::none) << "a key the pattern does not name keeps its default: " << c.text();
  }
  EXPECT_EQ(ds, (std::set<int>{64, 128}));
}

// A pattern no spec can be made from, one whose cells the backend cannot serve, and one that
// fails on some cells: each is named by pattern_problem, and backend_problem names the first.
TEST(CaseGenerator, APatternTheCampaignCannotDrawFromIsNamed) {
  BackendCapabilities three_classes = make_backend("cpu")->capabilities();
  three_classes.precisions = {PrecisionClass::exact_angle, PrecisionClass::fp32_angle, PrecisionClass::lowp_cache};
  EXPECT_EQ(pattern_problem(SpecPattern::parse("sinusoidal(d=16,precision=fp64-angle)"), three_classes),
            "pattern 'sinusoidal(d=16,precision=fp64-angle)' allows none of the dtypes and classes the backend serves");
  // hf's theta is a float32 recipe: the exact-angle cells cannot take it.
  const std::string theta_hf = pattern_problem(SpecPattern::parse("rope(d=64,precision=*,theta=hf)"), three_classes);
  EXPECT_NE(theta_hf.find("made no valid"), std::string::npos) << theta_hf;
  EXPECT_NE(theta_hf.find("in 64 draws"), std::string::npos) << theta_hf;
  EXPECT_TRUE(theta_hf.ends_with("(name the keys that depend on the fixed ones, or leave those free)")) << theta_hf;
  EXPECT_EQ(pattern_problem(SpecPattern::parse("rope(d=64,precision=fp32-angle,theta=hf)"), three_classes), "");
}

// The specs each rotary family is drawn: rope every frequency plan, xPos none, linear and YaRN,
// M-RoPE none and linear, 2D RoPE none; a partial rotation sometimes, but never for 2D RoPE.
TEST(CaseGenerator, EachRotaryFamilyDrawsItsPlansAndPartialRotations) {
  const BackendCapabilities capabilities = make_backend("cpu")->capabilities();
  const std::set<PlanKind> every_plan(all_plans().begin(), all_plans().end());
  const struct {
    Family family;
    std::set<PlanKind> plans;
    bool partial;
  } expected[] = {{Family::rope, every_plan, true},
                  {Family::xpos, {PlanKind::none, PlanKind::linear, PlanKind::yarn}, true},
                  {Family::mrope, {PlanKind::none, PlanKind::linear}, true},
                  {Family::rope2d, {PlanKind::none}, false}};
  for (const auto& [family, plans, partial] : expected) {
    CaseFilters filters;
    filters.families = {family};
    const std::vector<CaseCell> cells = campaign_cells(capabilities, filters);
    std::set<PlanKind> drawn;
    int partials = 0;
    for (std::uint64_t k = 0; k < 400; ++k) {
      const CaseDescription c = draw_case(kSeed, k, cells, filters, profile_named("ci"), capabilities);
      drawn.insert(c.spec.scaling.kind);
      partials += c.spec.rotary_dims() < c.spec.d;
    }
    EXPECT_EQ(drawn, plans) << family_name(family);
    EXPECT_EQ(partials > 0, partial) << family_name(family) << ": " << partials << " partial rotations in 400";
  }
}

// fp32-angle kernels form theta (ALiBi: its slopes) by one of their family's recipes: each case
// draws one the spec allows, and over many cases more than one.
TEST(CaseGenerator, Fp32AngleCasesDrawTheirFamilysRecipes) {
  const BackendCapabilities capabilities = make_backend("cpu")->capabilities();
  CaseFilters filters;
  filters.precisions = {PrecisionClass::fp32_angle};
  filters.families = {Family::rope};
  std::vector<CaseCell> cells = campaign_cells(capabilities, filters);
  std::set<ThetaRecipe> thetas;
  for (std::uint64_t k = 0; k < 200; ++k) {
    const Spec spec = draw_case(kSeed, k, cells, filters, profile_named("ci"), capabilities).spec;
    const std::vector<ThetaRecipe> allowed = theta_recipes(spec);
    EXPECT_NE(std::find(allowed.begin(), allowed.end(), spec.theta), allowed.end()) << spec.canonical();
    thetas.insert(spec.theta);
  }
  EXPECT_GT(thetas.size(), 1u);
  filters.families = {Family::alibi};
  cells = campaign_cells(capabilities, filters);
  std::set<SlopeRecipe> slopes;
  for (std::uint64_t k = 0; k < 200; ++k) slopes.insert(draw_case(kSeed, k, cells, filters, profile_named("ci"), capabilities).spec.slopes);
  EXPECT_EQ(slopes, (std::set<SlopeRecipe>{SlopeRecipe::exact, SlopeRecipe::bloom, SlopeRecipe::mpt}));
}

// Half the learned calls have int64 ids, and half are a run of positions (the rest scattered).
TEST(CaseGenerator, LearnedCallsAreDrawnInTheStatedShares) {
  const BackendCapabilities capabilities = make_backend("cpu")->capabilities();
  CaseFilters filters;
  filters.families = {Family::learned};
  const std::vector<CaseCell> cells = campaign_cells(capabilities, filters);
  constexpr int n = 2000;
  int ids64 = 0, run = 0;
  for (std::uint64_t k = 0; k < n; ++k) {
    const CaseDescription c = draw_case(kSeed, k, cells, filters, profile_named("ci"), capabilities);
    ids64 += c.ids64;
    run += c.positions == PositionMode::run;
  }
  expect_share(ids64, n, 0.5, "int64 ids");
  expect_share(run, n, 0.5, "a run of positions");
}

// `family(*)` leaves every key to the campaign: its first draw is the one a kernel without
// patterns gets, so such a kernel is drawn exactly the cases our own kernels are.
TEST(CaseGenerator, AKernelWhosePatternLeavesEveryKeyFreeIsDrawnAsOurOwn) {
  const BackendCapabilities own = make_backend("cpu")->capabilities();
  BackendCapabilities every_key_free = own;
  every_key_free.patterns = {SpecPattern::parse("rope(*)")};
  CaseFilters filters;
  filters.families = {Family::rope};
  const std::vector<CaseCell> own_cells = campaign_cells(own, filters), free_cells = campaign_cells(every_key_free, {});
  ASSERT_EQ(own_cells.size(), free_cells.size());
  for (std::uint64_t k = 0; k < 100; ++k)
    EXPECT_EQ(draw_case(kSeed, k, free_cells, {}, profile_named("ci"), every_key_free).text(),
              draw_case(kSeed, k, own_cells, filters, profile_named("ci"), own).text());
}

// A backend's problem is the first of its patterns' problems.
TEST(CaseGenerator, ABackendsProblemIsItsFirstPatternsProblem) {
  class Patterned final : public TensorBackend {
   public:
    explicit Patterned(std::vector<SpecPattern> patterns) : patterns_(std::move(patterns)) {}
    std::string name() const override { return "patterned"; }
    BackendCapabilities capabilities() const override {
      BackendCapabilities capabilities = make_backend("cpu")->capabilities();
      capabilities.patterns = patterns_;
      return capabilities;
    }
    void run(KernelCall&) const override {}

   private:
    std::vector<SpecPattern> patterns_;
  };
  const SpecPattern good = SpecPattern::parse("rope(d=64,precision=fp32-angle,theta=hf)");
  const SpecPattern bad = SpecPattern::parse("rope(d=64,precision=*,theta=hf)");
  const std::string problem = pattern_problem(bad, Patterned({bad}).capabilities());
  ASSERT_FALSE(problem.empty());
  EXPECT_EQ(backend_problem(Patterned({good, bad})), problem);
  EXPECT_EQ(backend_problem(Patterned({good})), "");
}

}  // namespace
}  // namespace peconform::harness
