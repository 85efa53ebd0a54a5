#include "harness/case_generator.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <string_view>

#include "harness/counter_random.hpp"
#include "properties/generators.hpp"
#include "spec/spec_error.hpp"

namespace peconform::harness {
namespace {

// kSpecSeed + 16 * attempt seeds a pattern's later draws (kShape + 16 * index never meets them).
enum Stream : std::uint64_t { kCaseSeed = 1, kSpecSeed = 2, kShape = 3, kThetaRecipe = 4, kPatternChoice = 5 };

// Draws of a spec a pattern may reject (a drawn rot past the pattern's d) before giving up.
constexpr int kPatternAttempts = 64;
// Cases per cell that pattern_problem draws before it calls a pattern one the campaign can draw from.
constexpr std::uint64_t kPatternCasesChecked = 16;

bool has_dtype(Family family) { return family != Family::t5 && family != Family::shaw; }
bool has_precision(Family family) { return has_dtype(family) && family != Family::learned; }

template <class T> bool allowed(const std::vector<T>& chosen, T value) {
  return chosen.empty() || std::find(chosen.begin(), chosen.end(), value) != chosen.end();
}

// A spec of `family` from the property generators, drawn with a RapidCheck random of the case's
// own seed (RapidCheck's generators are deterministic for a given random and size).
rc::Gen<Spec> spec_generator(Family family) {
  switch (family) {
    case Family::rope: return gen_rotary_spec({Family::rope, all_plans(), Partial::sometimes});
    case Family::xpos: return gen_rotary_spec({Family::xpos, {PlanKind::none, PlanKind::linear, PlanKind::yarn}, Partial::sometimes});
    case Family::mrope: return gen_rotary_spec({Family::mrope, {PlanKind::none, PlanKind::linear}, Partial::sometimes});
    case Family::rope2d: return gen_rotary_spec({Family::rope2d, {PlanKind::none}, Partial::never});
    case Family::sinusoidal: return gen_sinusoidal_spec();
    case Family::xl: return gen_xl_spec();
    case Family::learned: return gen_learned_spec();
    case Family::alibi: return gen_alibi_spec();
    case Family::t5: return gen_t5_spec();
    case Family::shaw: return gen_shaw_spec();
  }
  return gen_any_spec();
}

Spec draw_spec(Family family, std::uint64_t seed) { return spec_generator(family)(rc::Random(seed), 100).value(); }

// An offset for `count` consecutive positions below `limit`: log-uniform, or one of the edges
// 0, 2^24 - 1, 2^24, 2^24 + 1 and the limit itself.
std::int64_t draw_offset(CounterStream& random, std::int64_t count, std::int64_t limit) {
  const std::int64_t top = std::max<std::int64_t>(0, limit - count + 1);
  if (random.chance(0.3)) {
    const std::int64_t edges[] = {0, (1 << 24) - 1, 1 << 24, (1 << 24) + 1, top};
    return std::min(edges[random.below(std::size(edges))], top);
  }
  return random.log_uniform(1, std::max<std::int64_t>(1, top)) - 1;
}

std::string draw_order(CounterStream& random) {
  switch (random.below(4)) {
    case 0: case 1: return "bshd";
    case 2: return "bhsd";
    default: {
      std::string order = "bshd";
      for (std::size_t i = order.size() - 1; i > 0; --i) std::swap(order[i], order[random.below(i + 1)]);
      return order;
    }
  }
}

// Query heads go to 128, as in Llama-3-405B (Llama-2/3-70B have 64): a kernel that handles only
// the first 32 heads fails there.
constexpr int kMostHeads = 128;

// A long call is one head over more than 65,536 tokens (launch grids broke there); a huge one
// is a tensor past 2^31 elements (32-bit offsets broke there), in place to fit.
enum class CallSize { normal, long_call, huge };
constexpr std::int64_t kLongCallTokens = 65536, kHugeCallElements = std::int64_t{1} << 31;
// A KV-cache case's batch rows start up to this far apart.
constexpr std::int64_t kCacheSpread = 4096;
constexpr std::uint64_t kCasesPerLongCall = 64;

// The most elements a long call has: one head of up to 2 * kLongCallTokens tokens of up to 256
// dims. A backend whose calls must stay smaller (the reference tiers) takes none.
constexpr std::int64_t kLongCallElements = std::int64_t{1} << 25;

// The most tokens of a long call, and of the huge call (its seq at 32 heads of the smallest d).
constexpr std::int64_t kLongCallMostTokens = 2 * kLongCallTokens;
constexpr std::int64_t kHugeCallMostTokens = kHugeCallElements / (32 * 2) + 1;
// The most elements of the huge call's tensor: it passes 2^31 by less than one token (128 heads of d = 512).
constexpr std::int64_t kHugeCallMostElements = kHugeCallElements + 128 * 512;

// Whether a run's bounds (Profile::largest_tensor_elements, most_tokens) leave room for a call
// of up to `elements` elements in its tensor and `tokens` tokens: a long or huge call is drawn
// whole or not at all, never cut short of what makes it long.
bool bounds_allow(const Profile& profile, std::int64_t elements, std::int64_t tokens) {
  return (profile.largest_tensor_elements == 0 || profile.largest_tensor_elements >= elements) &&
         (profile.most_tokens == 0 || profile.most_tokens >= tokens);
}

// Every rotary family takes a long call where its positions reach far enough (xPos, the
// shortest, reaches 543,078 with the smallest scale_base the generators draw; draw_case checks
// a --spec's).
bool takes_long_call(const CaseCell& cell, const BackendCapabilities& capabilities, const Profile& profile) {
  return is_rotary(cell.family) && capabilities.largest_call_elements >= kLongCallElements &&
         bounds_allow(profile, kLongCallElements, kLongCallMostTokens);
}

// The ci profile's long calls: in the first cycle of cells, `per_family` cells of each kernel's
// rotary family spread over its cells (every 6th of 12, say), so that each family meets one
// whatever its cells' order.
bool first_cycle_long_call(std::uint64_t index, const std::vector<CaseCell>& cells, const Profile& profile,
                           std::span<const BackendCapabilities> kernels) {
  const int per_family = profile.long_calls_per_family;
  if (per_family <= 0 || index >= cells.size()) return false;
  const CaseCell& cell = cells[index];
  if (!takes_long_call(cell, kernels[cell.kernel], profile)) return false;
  std::uint64_t position = 0, count = 0;
  for (std::uint64_t k = 0; k < cells.size(); ++k)
    if (cells[k].kernel == cell.kernel && cells[k].family == cell.family) {
      if (k < index) ++position;
      ++count;
    }
  // Position p is chosen when it is the first of its share: floor(j * count / per_family) for some j.
  const auto share = [&](std::uint64_t p) { return p * static_cast<std::uint64_t>(per_family) / count; };
  return position == 0 || share(position) != share(position - 1);
}

// The huge call is rope's, in a 16-bit dtype (4 GiB), in place, on a backend whose calls may pass
// 2^31 elements (a huge call passes it by less than one token) and that takes in-place calls
// (out of place, it would need twice the memory).
bool takes_huge_call(const CaseCell& cell, const BackendCapabilities& capabilities, const Profile& profile) {
  return cell.family == Family::rope && (cell.dtype == Dtype::fp16 || cell.dtype == Dtype::bf16) &&
         capabilities.largest_call_elements > kHugeCallElements && capabilities.takes.in_place &&
         bounds_allow(profile, kHugeCallMostElements, kHugeCallMostTokens);
}

// The huge call is the first case whose cell takes it; a long call the first case of each run
// of kCasesPerLongCall (from its second) whose cell takes one. Both depend on the case index
// and the cells alone, so every shard split draws them alike; a filter that leaves no cell
// taking them leaves them out.
CallSize call_size(std::uint64_t index, const std::vector<CaseCell>& cells, const Profile& profile,
                   std::span<const BackendCapabilities> kernels) {
  if (first_cycle_long_call(index, cells, profile, kernels)) return CallSize::long_call;
  if (!profile.long_calls) return CallSize::normal;
  const auto kernel_of = [&](std::uint64_t k) -> const BackendCapabilities& { return kernels[cells[k % cells.size()].kernel]; };
  std::optional<std::uint64_t> huge;
  for (std::uint64_t k = 0; k < cells.size() && !huge; ++k)
    if (takes_huge_call(cells[k], kernel_of(k), profile)) huge = k;
  if (index == huge) return CallSize::huge;
  const std::uint64_t run = index - index % kCasesPerLongCall;
  for (std::uint64_t k = run + 1; k < run + kCasesPerLongCall && k <= index; ++k)
    if (k != huge && takes_long_call(cells[k % cells.size()], kernel_of(k), profile))
      return k == index ? CallSize::long_call : CallSize::normal;
  return CallSize::normal;
}

// Narrows a drawn case to the calls its kernel takes (a plugin's PEC_TAKES_* flags). The draws
// themselves are made first, so that a kernel taking every call is drawn what our own are.
void keep_to_calls_taken(CaseDescription& c, const CallsTaken& takes) {
  const Family family = c.spec.family;
  if (is_rotary(family)) {
    if (!takes.in_place) c.in_place = false;
    if (!takes.out_of_place) c.in_place = true;
    if (!takes.key_operand) c.kv_heads = 0;
  }
  if (is_rotary(family) || family == Family::learned) {
    if (!takes.ids64) c.ids64 = false;
    if (!takes.ids32) c.ids64 = true;
  }
  if (!takes.strided) {
    c.order = "bshd";
    c.pad = 0;
  }
}

// A bound no call of the spec can keep to: even one token of one head (one row, one query and
// key) has more elements than it allows.
[[noreturn]] void refuse_bound(const Profile& profile, const Spec& spec, std::int64_t smallest, const std::string& smallest_call) {
  throw SpecError(fmt::format("max_elements is {}, below the {} elements of {} under {}", profile.largest_tensor_elements, smallest,
                              smallest_call, spec.canonical()));
}

// Keeps a drawn rotary, table or learned call within the run's bounds (Profile::most_tokens,
// largest_tensor_elements), giving up tokens first, then batch rows, then heads (`headed`:
// rotary), as the budget does; `row` is the elements of one token of one head (d). A call that
// would exceed them even at one token of one head is refused.
void keep_within_bounds(CaseDescription& c, const Profile& profile, std::int64_t row, bool headed) {
  if (profile.most_tokens > 0) {
    c.batch = std::min(c.batch, profile.most_tokens);
    c.seq = std::min(c.seq, profile.most_tokens / c.batch);
  }
  const std::int64_t cap = profile.largest_tensor_elements;
  if (cap == 0) return;
  const std::int64_t heads = headed ? c.heads : 1;
  c.seq = std::max<std::int64_t>(1, std::min(c.seq, cap / (c.batch * heads * row)));
  c.batch = std::max<std::int64_t>(1, std::min(c.batch, cap / (c.seq * heads * row)));
  if (!headed) {
    if (c.batch * c.seq * row > cap) refuse_bound(profile, c.spec, row, fmt::format("one row of d={}", c.spec.d));
    return;
  }
  c.heads = static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(c.heads, cap / (c.batch * c.seq * row))));
  c.kv_heads = std::min(c.kv_heads, c.heads);
  if (c.batch * c.seq * c.heads * row > cap) refuse_bound(profile, c.spec, row, fmt::format("one token of one head of d={}", c.spec.d));
}

// The same for an ALiBi, T5 or Shaw call of `heads` heads: its queries and its keys are each
// at most most_tokens, and queries, then keys, give way to the element bound.
void keep_bias_within_bounds(CaseDescription& c, const Profile& profile, std::int64_t heads) {
  if (profile.most_tokens > 0) {
    c.seq = std::min(c.seq, profile.most_tokens);
    c.keys = std::min(c.keys, profile.most_tokens);
  }
  const std::int64_t cap = profile.largest_tensor_elements;
  if (cap == 0) return;
  c.seq = std::max<std::int64_t>(1, std::min(c.seq, cap / (heads * c.keys)));
  c.keys = std::max<std::int64_t>(1, std::min(c.keys, cap / (heads * c.seq)));
  if (heads * c.seq * c.keys > cap) refuse_bound(profile, c.spec, heads, fmt::format("one query and key of {} heads", heads));
}

void draw_rotary_shape(CaseDescription& c, CounterStream& random, std::int64_t budget, CallSize size, const Profile& profile) {
  const bool long_call = size == CallSize::long_call;
  c.heads = static_cast<int>(random.log_uniform(1, kMostHeads));
  c.kv_heads = random.chance(0.5) ? std::max(1, c.heads >> random.below(4)) : 0;
  c.batch = random.log_uniform(1, 4);
  c.seq = long_call ? kLongCallTokens + 1 + static_cast<std::int64_t>(random.below(kLongCallTokens)) : random.log_uniform(1, 4096);
  const std::int64_t per_token = static_cast<std::int64_t>(c.heads + c.kv_heads) * c.spec.d;
  if (long_call) {
    c.heads = 1, c.kv_heads = 0, c.batch = 1;
  } else {
    while (c.batch * c.seq * per_token > budget && c.seq > 1) c.seq = (c.seq + 1) / 2;
    while (c.batch * c.seq * per_token > budget && c.batch > 1) --c.batch;
    while (c.batch * c.seq * static_cast<std::int64_t>(c.heads + c.kv_heads) * c.spec.d > budget && c.heads > 1) {
      c.heads = (c.heads + 1) / 2;
      c.kv_heads = std::min(c.kv_heads, c.heads);
    }
    if (size == CallSize::normal) keep_within_bounds(c, profile, c.spec.d, true);
  }
  c.order = draw_order(random);
  c.pad = random.chance(0.5) ? 0 : static_cast<int>(1 + random.below(8));
  c.in_place = random.chance(0.3);
  c.ids64 = random.chance(0.5);
  const std::uint64_t mode = random.below(4);
  c.positions = mode < 2 ? PositionMode::run : (mode == 2 ? PositionMode::cache : PositionMode::scattered);
  if (size == CallSize::huge) {
    c.heads = 32 << random.below(3);  // 32, 64 or 128
    c.kv_heads = 0, c.batch = 1, c.in_place = true, c.pad = 0, c.order = "bshd";
    c.seq = kHugeCallElements / (c.heads * std::int64_t{c.spec.d}) + 1;
  }
  const std::int64_t limit = position_limit(c.spec);
  // An xPos spec with a small scale_base stops its positions short of the tokens drawn (8485
  // scale_base of them): the call keeps within them, so that such a spec is checked, not refused.
  c.seq = std::min(c.seq, limit + 1);
  const std::int64_t spread = c.positions == PositionMode::cache ? kCacheSpread : 0;
  c.offset = c.positions == PositionMode::scattered ? 0 : draw_offset(random, c.seq + spread, limit);
}

}  // namespace

CellKey cell_of(const std::string& backend, const Spec& spec) {
  return {backend, std::string(family_name(spec.family)), has_dtype(spec.family) ? std::string(dtype_name(spec.dtype)) : "int32",
          has_precision(spec.family) ? class_label(spec) : "exact"};
}

std::string class_label(const Spec& spec) {
  std::string label(precision_name(spec.precision));
  if (spec.cache == RoundsIn::storage) label += ",cache=storage";
  if (spec.math == RoundsIn::storage) label += ",math=storage";
  return label;
}

namespace {

// Whether a cell's cases round as a 16-bit model does every other cycle (CaseCell::model_rounding):
// a rotary family in fp16 or bf16 whose angle is exact or float32 (lowp-cache holds cos/sin in
// the storage dtype already), on a backend that takes the keys, or a pattern that leaves them to
// the campaign. --spec fixes them itself. Every other cycle, not a cell more: the ci profile's
// 1000 cases then check the elements they did before the keys existed, in the time they took.
bool model_rounding_cell(const BackendCapabilities& capabilities, const SpecPattern* pattern, Family family, Dtype dtype,
                         PrecisionClass precision, const CaseFilters& filters) {
  if (filters.spec || !is_rotary(family) || (dtype != Dtype::fp16 && dtype != Dtype::bf16) ||
      precision == PrecisionClass::lowp_cache)
    return false;
  return pattern ? pattern->leaves_free("cache") && pattern->leaves_free("math") : capabilities.takes_rounding_keys;
}

}  // namespace

std::vector<CaseCell> campaign_cells(const BackendCapabilities& capabilities, const CaseFilters& filters, std::size_t kernel) {
  std::vector<CaseCell> cells;
  // A kernel with patterns has cells per pattern, else per family.
  const bool patterned = !capabilities.patterns.empty();
  const std::size_t sources = patterned ? capabilities.patterns.size() : capabilities.families.size();
  for (std::size_t source = 0; source < sources; ++source) {
    const SpecPattern* pattern = patterned ? &capabilities.patterns[source] : nullptr;
    const Family family = pattern ? pattern->family() : capabilities.families[source];
    if (!allowed(filters.families, family) || (filters.spec && filters.spec->family != family)) continue;
    if (pattern && filters.spec && !pattern->admits(*filters.spec)) continue;
    // Filters on dtype and class apply to the families that have them; T5 and Shaw have neither.
    const bool typed = has_dtype(family), classed = has_precision(family);
    if (!typed && (!filters.dtypes.empty() || !filters.precisions.empty())) continue;
    const std::vector<Dtype> dtypes = pattern ? pattern->dtypes(capabilities.dtypes) : capabilities.dtypes;
    const std::vector<PrecisionClass> precisions = pattern ? pattern->precisions(capabilities.precisions) : capabilities.precisions;
    for (const Dtype dtype : typed ? dtypes : std::vector<Dtype>{Dtype::fp32}) {
      if (typed && (!allowed(filters.dtypes, dtype) || (filters.spec && filters.spec->dtype != dtype))) continue;
      for (const PrecisionClass precision : classed ? precisions : std::vector<PrecisionClass>{PrecisionClass::exact_angle}) {
        if (classed && (!allowed(filters.precisions, precision) || (filters.spec && filters.spec->precision != precision)))
          continue;
        // ALiBi has no cos/sin to cache: lowp-cache says nothing more than exact-angle there.
        if (family == Family::alibi && precision == PrecisionClass::lowp_cache && !filters.spec) continue;
        // fp64-angle describes float64 tables only, and is drawn where --spec, --precision or the
        // kernel's pattern names it: a kernel that never heard of it keeps the campaign it had.
        const bool named = filters.spec || !filters.precisions.empty() || (pattern && !pattern->leaves_free("precision"));
        if (precision == PrecisionClass::fp64_angle && ((family != Family::sinusoidal && family != Family::xl) || !named))
          continue;
        cells.push_back({family, dtype, precision, model_rounding_cell(capabilities, pattern, family, dtype, precision, filters),
                         pattern ? static_cast<int>(source) : -1, kernel});
      }
    }
  }
  if (cells.empty() && filters.spec && has_precision(filters.spec->family) &&
      std::find(capabilities.precisions.begin(), capabilities.precisions.end(), filters.spec->precision) ==
          capabilities.precisions.end()) {
    std::vector<std::string_view> served;
    for (const PrecisionClass precision : capabilities.precisions) served.push_back(precision_name(precision));
    throw SpecError(fmt::format("--spec asks for precision={}, which this backend does not serve; it serves {}",
                                precision_name(filters.spec->precision), fmt::join(served, ", ")));
  }
  if (cells.empty()) throw SpecError("the filters (--spec, --family, --dtype, --precision) leave no case this backend supports");
  return cells;
}

namespace {

// Whether case `index` of `cell` rounds as a 16-bit model does: every other cycle of the cells.
bool rounds_as_model(const CaseCell& cell, std::uint64_t index, std::size_t cell_count) {
  return cell.model_rounding && (index / cell_count) % 2 == 1;
}

// The spec the generators draw for `cell` from `spec_seed`, with the cell's dtype and class, and
// where its rotation rounds.
Spec cell_spec(const CaseCell& cell, std::uint64_t spec_seed, std::uint64_t recipe, bool model_rounding) {
  Spec spec = draw_spec(cell.family, spec_seed);
  if (has_dtype(cell.family)) spec.dtype = cell.dtype;
  if (has_precision(cell.family)) spec.precision = cell.precision;
  // fp32-angle kernels form theta (or ALiBi's slopes) as one of their family's recipes (docs/precision.md,
  // `theta`, `slopes`); each is drawn alike where the spec allows one.
  // The drawn spec may carry a recipe for a class the cell then replaced: start from exact.
  spec.theta = ThetaRecipe::exact;
  spec.slopes = SlopeRecipe::exact;
  // The cell's cycle, not the generators' draw, says where a rotation rounds.
  spec.cache = spec.math = model_rounding ? RoundsIn::storage : RoundsIn::compute;
  if (spec.precision == PrecisionClass::fp32_angle) {
    const std::vector<ThetaRecipe> recipes = theta_recipes(spec);
    spec.theta = recipes[recipe % recipes.size()];
    if (cell.family == Family::alibi) {
      constexpr SlopeRecipe kSlopeRecipes[] = {SlopeRecipe::exact, SlopeRecipe::bloom, SlopeRecipe::mpt};
      spec.slopes = kSlopeRecipes[recipe % std::size(kSlopeRecipes)];
    }
  }
  return spec;
}

// The spec of case `index` for `cell`: the drawn one, narrowed to the kernel's pattern. A draw
// the pattern cannot take is drawn again, from the next seed; the first draw is the one a
// kernel without patterns gets, so `family(*)` is drawn exactly as our own kernels are.
Spec pattern_spec(const CaseCell& cell, const BackendCapabilities& kernel, std::uint64_t campaign_seed, std::uint64_t index,
                  bool model_rounding) {
  const std::uint64_t recipe = counter_hash(campaign_seed, kThetaRecipe, index);
  if (cell.pattern < 0) return cell_spec(cell, counter_hash(campaign_seed, kSpecSeed, index), recipe, model_rounding);
  const SpecPattern& pattern = kernel.patterns.at(static_cast<std::size_t>(cell.pattern));
  std::string last_problem;
  for (std::uint64_t attempt = 0; attempt < kPatternAttempts; ++attempt) {
    const Spec drawn = cell_spec(cell, counter_hash(campaign_seed, kSpecSeed + 16 * attempt, index), recipe, model_rounding);
    CounterStream choices(counter_hash(campaign_seed, kPatternChoice, index), attempt);
    try {
      return pattern.narrow(drawn, [&](std::uint64_t count) { return choices.below(count); });
    } catch (const SpecError& error) {
      last_problem = error.what();
    }
  }
  throw SpecError(fmt::format("pattern '{}' made no valid {} {} spec in {} draws; the last: {}", pattern.text(),
                              dtype_name(cell.dtype), precision_name(cell.precision), kPatternAttempts, last_problem));
}

}  // namespace

std::string pattern_problem(const SpecPattern& pattern, const BackendCapabilities& capabilities) {
  BackendCapabilities kernel = capabilities;
  kernel.families = {pattern.family()};
  kernel.patterns = {pattern};
  std::vector<CaseCell> cells;
  try {
    cells = campaign_cells(kernel, {});
  } catch (const SpecError&) {
    return fmt::format("pattern '{}' allows none of the dtypes and classes the backend serves", pattern.text());
  }
  // Several cases per cell: a pattern whose fixed keys rarely fit the free ones it is drawn with
  // (a fixed d with sections drawn for another) fails on some of them.
  for (std::uint64_t k = 0; k < cells.size() * kPatternCasesChecked; ++k) {
    try {
      pattern_spec(cells[k % cells.size()], kernel, 0, k, rounds_as_model(cells[k % cells.size()], k, cells.size()));
    } catch (const SpecError& error) {
      return fmt::format("{} (name the keys that depend on the fixed ones, or leave those free)", error.what());
    }
  }
  return "";
}

bool takes_call(const CaseDescription& c, const CallsTaken& takes) {
  CaseDescription kept = c;
  keep_to_calls_taken(kept, takes);
  return kept == c;
}

std::string backend_problem(const TensorBackend& backend) {
  const BackendCapabilities capabilities = backend.capabilities();
  for (const SpecPattern& pattern : capabilities.patterns)
    if (std::string problem = pattern_problem(pattern, capabilities); !problem.empty()) return problem;
  return "";
}

CaseDescription draw_case(std::uint64_t campaign_seed, std::uint64_t index, const std::vector<CaseCell>& cells,
                          const CaseFilters& filters, const Profile& profile, std::span<const BackendCapabilities> kernels) {
  const CaseCell& cell = cells[index % cells.size()];
  const BackendCapabilities& capabilities = kernels[cell.kernel];
  CounterStream random(campaign_seed, kShape + 16 * index);
  CaseDescription c;
  c.seed = counter_hash(campaign_seed, kCaseSeed, index);
  c.spec = filters.spec ? *filters.spec
                         : pattern_spec(cell, capabilities, campaign_seed, index, rounds_as_model(cell, index, cells.size()));
  c.inputs = random.chance(0.25) ? InputKind::bit_patterns : InputKind::activations;
  const std::int64_t budget = std::min(profile.largest_call_elements, capabilities.largest_call_elements);
  const Family family = c.spec.family;
  const std::int64_t limit = position_limit(c.spec);
  if (is_rotary(family)) {
    CallSize size = call_size(index, cells, profile, kernels);
    // A --spec whose positions stop short (xPos with a small scale_base) takes no long call.
    if (size == CallSize::long_call && limit < 2 * kLongCallTokens + kCacheSpread) size = CallSize::normal;
    draw_rotary_shape(c, random, budget, size, profile);
    keep_to_calls_taken(c, capabilities.takes);
    return c;
  }
  switch (family) {
    case Family::sinusoidal:
    case Family::xl:
      c.seq = std::min<std::int64_t>(random.log_uniform(1, 4096), std::max<std::int64_t>(1, budget / c.spec.d));
      keep_within_bounds(c, profile, c.spec.d, false);  // a table's rows are its tokens
      c.pad = random.chance(0.5) ? 0 : static_cast<int>(1 + random.below(8));
      c.offset = family == Family::xl && random.chance(0.5) ? -draw_offset(random, c.seq, limit) - c.seq + 1
                                                            : draw_offset(random, c.seq, limit);
      break;
    case Family::alibi:
    case Family::t5:
    case Family::shaw: {
      const std::int64_t heads = family == Family::alibi ? c.spec.heads : 1;
      c.seq = random.log_uniform(1, 512);
      c.keys = random.log_uniform(1, 512);
      while (heads * c.seq * c.keys > budget && c.seq > 1) c.seq = (c.seq + 1) / 2;
      while (heads * c.seq * c.keys > budget && c.keys > 1) c.keys = (c.keys + 1) / 2;
      keep_bias_within_bounds(c, profile, heads);
      c.offset = draw_offset(random, c.seq, limit);
      // Keys near the queries most of the time (where buckets and clipping change), anywhere otherwise.
      c.key_offset = random.chance(0.7)
                         ? std::clamp<std::int64_t>(c.offset + static_cast<std::int64_t>(random.below(1024)) - 512, 0,
                                                    limit - c.keys + 1)
                         : draw_offset(random, c.keys, limit);
      break;
    }
    case Family::learned:
      c.batch = random.log_uniform(1, 4);
      c.seq = random.log_uniform(1, 512);
      while (c.batch * c.seq * c.spec.d > budget && c.seq > 1) c.seq = (c.seq + 1) / 2;
      while (c.batch * c.seq * c.spec.d > budget && c.batch > 1) --c.batch;
      keep_within_bounds(c, profile, c.spec.d, false);
      // The table is an input tensor too, of the spec's size.
      if (profile.largest_tensor_elements > 0 && c.spec.rows * c.spec.d > profile.largest_tensor_elements)
        refuse_bound(profile, c.spec, c.spec.rows * c.spec.d, fmt::format("the table of {} rows", c.spec.rows));
      c.ids64 = random.chance(0.5);
      c.positions = random.chance(0.5) ? PositionMode::run : PositionMode::scattered;
      if (c.positions == PositionMode::run) {
        c.seq = std::min(c.seq, c.spec.rows);
        c.offset = static_cast<std::int64_t>(random.below(static_cast<std::uint64_t>(c.spec.rows - c.seq + 1)));
      }
      break;
    default: break;
  }
  keep_to_calls_taken(c, capabilities.takes);
  return c;
}

}  // namespace peconform::harness
