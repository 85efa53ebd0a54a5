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

}  // namespace
}  // namespace peconform::harness
