#include "harness/case_call.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <cmath>
#include <fmt/format.h>
#include <string_view>

#include "backends/cpu/storage.hpp"
#include "harness/activation_draw.hpp"
#include "harness/counter_random.hpp"
#include "harness/parallel_work.hpp"
#include "harness/sixteen_bit_rows.hpp"
#include "properties/generators.hpp"
#include "spec/spec_error.hpp"

namespace peconform::harness {
namespace {

// Streams of counter_hash, one per thing drawn, so that no two draws share values.
enum Stream : std::uint64_t { kValues = 100, kOutlierChannels = 200, kCacheStarts = 300, kScattered = 400, kEdges = 500 };

struct Format {
  int exponent_bits, mantissa_bits;
};

constexpr Format format_of(ElementType type) {
  switch (type) {
    case ElementType::fp64: return {11, 52};
    case ElementType::fp32: return {8, 23};
    case ElementType::fp16: return {5, 10};
    case ElementType::bf16: return {8, 7};
    case ElementType::int32: return {0, 0};
  }
  return {8, 23};
}

// Fills `buffer`'s guards, padding and (unless the caller draws them: `drawn`) logical
// elements with its sentinels; `extent` is the span of its logical elements and padding.
template <class Unit> void fill_sentinels(Buffer& buffer, std::int64_t extent, bool drawn) {
  Unit* const data = reinterpret_cast<Unit*>(buffer.bytes.data());
  Unit* const begin = data + buffer.origin;
  Unit* const end = begin + extent;
  const Sentinels& sentinels = buffer.sentinels;
  std::fill(data, begin, static_cast<Unit>(sentinels.guard));
  std::fill(end, data + buffer.size(), static_cast<Unit>(sentinels.guard));
  // Plain names, not a structured binding: clang 14 cannot capture one in the OpenMP region.
  const std::int64_t batch = buffer.shape[0], seq = buffer.shape[1], heads = buffer.shape[2], d = buffer.shape[3];
  const bool dense = batch * seq * heads * d == extent;
  if (dense && drawn) return;
  // In parallel: the first write to each page faults it in, and a large output's pages are then
  // shared between the team's threads.
  const auto fill = static_cast<Unit>(dense ? sentinels.unwritten : sentinels.padding);
#pragma omp parallel for schedule(static) if (worth_a_team(extent))
  for (std::int64_t i = 0; i < extent; ++i) begin[i] = fill;
  if (dense || drawn) return;
  const std::int64_t step = buffer.stride[3];
#pragma omp parallel for collapse(2) schedule(static) if (worth_a_team(batch * seq * heads * d))
  for (std::int64_t b = 0; b < batch; ++b)
    for (std::int64_t s = 0; s < seq; ++s)
      for (std::int64_t h = 0; h < heads; ++h) {
        Unit* const row = data + buffer.offset_of(b, s, h, 0);
        for (std::int64_t e = 0; e < d; ++e) row[e * step] = static_cast<Unit>(sentinels.unwritten);
      }
}

// A buffer of `shape` laid out in `order` (outermost axis first) with `pad` spare elements
// after every row and every outer axis, guards around it, all of it the sentinels of `slot`:
// an input's logical elements are left to the draw that follows, which writes every one.
Buffer make_buffer(ElementType type, std::array<std::int64_t, 4> shape, const std::string& order, int pad, int slot) {
  Buffer buffer;
  buffer.type = type;
  buffer.shape = shape;
  buffer.sentinels = sentinels_of(type, slot);
  std::int64_t extent = 1;
  for (auto letter = order.rbegin(); letter != order.rend(); ++letter) {
    const std::size_t axis = std::string_view("bshd").find(*letter);
    buffer.stride[axis] = extent;
    extent = extent * shape[axis] + pad;
  }
  buffer.origin = kGuardElements;
  buffer.bytes.resize(static_cast<std::size_t>(extent + 2 * kGuardElements) * element_size(type));
  const bool drawn = slot < kMaxOperands;
  switch (element_size(type)) {
    case 2: fill_sentinels<std::uint16_t>(buffer, extent, drawn); break;
    case 4: fill_sentinels<std::uint32_t>(buffer, extent, drawn); break;
    default: fill_sentinels<std::uint64_t>(buffer, extent, drawn); break;
  }
  return buffer;
}

// The scale of each of the d channels: 1, or 8 to 63 for about one channel in 32, the
// outliers real q and k carry.
std::vector<double> channel_scales(const CaseDescription& c) {
  std::vector<double> out;
  for (std::int64_t e = 0; e < c.spec.d; ++e) {
    const std::uint64_t channel = counter_hash(c.seed, kOutlierChannels, static_cast<std::uint64_t>(e));
    out.push_back(below(channel, 32) == 0 ? 8.0 + static_cast<double>(below(channel >> 8, 56)) : 1.0);
  }
  return out;
}

std::int64_t pick(const std::optional<std::int64_t>& chosen, std::int64_t index) { return chosen ? *chosen : index; }

// The bits of `value` rounded to nearest in kType: element_bits's roundings, inline, so that a
// drawing loop over one dtype pays no switch and no call per element (fp16 rounds a row at a
// time, sixteen_bit_rows.hpp).
template <ElementType kType> [[gnu::always_inline]] inline std::uint64_t encode(double value) {
  static_assert(kType != ElementType::fp16);
  if constexpr (kType == ElementType::fp64) return std::bit_cast<std::uint64_t>(value);
  else if constexpr (kType == ElementType::fp32) return std::bit_cast<std::uint32_t>(static_cast<float>(value));
  else return cpu::narrow_to_bfloat16(static_cast<float>(value)).bits;
}

// One bit-pattern input of kType for element `index` of an operand (its index in the original,
// unshrunk case); `values` is the operand's stream (counter_hash(c.seed, kValues + operand,
// index)). Activations are drawn a row at a time (activation_draw.hpp).
template <ElementType kType> std::uint64_t draw_bit_pattern(const CounterKey& values, std::uint64_t index) {
  const std::uint64_t h = values(index);
  const auto [exponent_bits, mantissa_bits] = format_of(kType);
  const std::uint64_t mantissa_mask = (std::uint64_t{1} << mantissa_bits) - 1;
  const std::uint64_t top = (std::uint64_t{1} << exponent_bits) - 1;
  const std::uint64_t sign = (h >> 63) << (exponent_bits + mantissa_bits);
  const std::uint64_t mantissa = (h >> 8) & mantissa_mask;
  std::uint64_t exponent = 0, fraction = 0;
  switch (below(h, 64)) {
    case 0: case 1: case 2: break;                                                       // +-0
    case 3: case 4: fraction = 1; break;                                                 // smallest subnormal
    case 5: case 6: case 7: fraction = mantissa == 0 ? 1 : mantissa; break;              // a subnormal
    case 8: case 9: exponent = top - 1; fraction = mantissa_mask; break;                 // largest finite
    case 10: case 11: exponent = 1; break;                                               // smallest normal
    // The canonical quiet NaN: a payload of its own would sometimes equal the sentinel's.
    case 12: exponent = top; fraction = std::uint64_t{1} << (mantissa_bits - 1); break;
    default: exponent = 1 + below(h >> 20, top - 1); fraction = mantissa; break;        // any normal binade
  }
  return sign | (exponent << mantissa_bits) | fraction;
}

// Draws every logical element of `buffer` ([batch, seq, heads, d] of the call), operand
// `operand` of the case: element (b, s, h, e) is the value of the original case's element
// (ob, os, oh, e), whichever elements the selection `sel` kept (a learned table, [1, 1, rows,
// d], is drawn whole: element (r, e) is r d + e).
template <ElementType kType, class Unit>
void draw_operand(Buffer& buffer, const CaseDescription& c, const Selection& sel, int operand, std::int64_t original_heads,
                  const std::vector<double>& scales) {
  const std::int64_t batch = buffer.shape[0], seq = buffer.shape[1], heads = buffer.shape[2], d = buffer.shape[3];
  const std::int64_t step = buffer.stride[3];
  const CounterKey values(c.seed, kValues + static_cast<std::uint64_t>(operand));
  Unit* const data = reinterpret_cast<Unit*>(buffer.bytes.data());
  const bool activations = c.inputs == InputKind::activations;
#pragma omp parallel if (worth_a_team(batch * seq * heads * d))
  {
    std::vector<double> row_values(static_cast<std::size_t>(d));
    std::vector<std::uint16_t> row_half_bits(kType == ElementType::fp16 ? row_values.size() : 0);
#pragma omp for collapse(2) schedule(static)
    for (std::int64_t b = 0; b < batch; ++b)
      for (std::int64_t s = 0; s < seq; ++s)
        for (std::int64_t h = 0; h < heads; ++h) {
          const std::int64_t ob = pick(sel.batch, b), os = pick(sel.token, s), oh = sel.head ? *sel.head : h;
          const auto first = static_cast<std::uint64_t>(((ob * c.seq + os) * original_heads + oh) * d);
          Unit* const row = data + buffer.offset_of(b, s, h, 0);
          if (activations) {
            draw_activation_row(values, first, scales.data(), row_values.size(), row_values.data());
            if constexpr (kType == ElementType::fp16) {
              // Rounded in vectors (sixteen_bit_rows.hpp), into the row itself where it is dense.
              std::uint16_t* const rounded = step == 1 ? row : row_half_bits.data();
              round_row_to_half_bits(row_values.data(), row_values.size(), rounded);
              if (step != 1)
                for (std::int64_t e = 0; e < d; ++e) row[e * step] = rounded[e];
            } else {
              for (std::int64_t e = 0; e < d; ++e) row[e * step] = static_cast<Unit>(encode<kType>(row_values[static_cast<std::size_t>(e)]));
            }
          } else {
            for (std::int64_t e = 0; e < d; ++e)
              row[e * step] = static_cast<Unit>(draw_bit_pattern<kType>(values, first + static_cast<std::uint64_t>(e)));
          }
        }
  }
}

void draw_values(Buffer& buffer, const CaseDescription& c, const Selection& sel, int operand, std::int64_t original_heads,
                 const std::vector<double>& scales) {
  switch (buffer.type) {
    case ElementType::fp64: draw_operand<ElementType::fp64, std::uint64_t>(buffer, c, sel, operand, original_heads, scales); break;
    case ElementType::fp32: draw_operand<ElementType::fp32, std::uint32_t>(buffer, c, sel, operand, original_heads, scales); break;
    case ElementType::fp16: draw_operand<ElementType::fp16, std::uint16_t>(buffer, c, sel, operand, original_heads, scales); break;
    case ElementType::bf16: draw_operand<ElementType::bf16, std::uint16_t>(buffer, c, sel, operand, original_heads, scales); break;
    case ElementType::int32: throw std::logic_error("inputs are drawn in a float dtype");
  }
}

// The ids the kernel is given for axis `axis` of token (b, s) of the original case, before
// the call's offset.
std::int64_t original_id(const CaseDescription& c, int axis, std::int64_t b, std::int64_t s, std::int64_t limit) {
  const Family family = c.spec.family;
  if (family == Family::learned && c.positions == PositionMode::scattered)
    return static_cast<std::int64_t>(below(counter_hash(c.seed, kScattered, static_cast<std::uint64_t>(b * c.seq + s)),
                                           static_cast<std::uint64_t>(c.spec.rows)));
  const std::int64_t width = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(std::sqrt(double(c.seq)))));
  switch (c.positions) {
    case PositionMode::run:
      if (family == Family::rope2d) return axis == 0 ? s % width : s / width;
      return s;
    case PositionMode::cache: {
      const std::int64_t spread = std::clamp<std::int64_t>(limit - (c.offset + c.seq - 1), 0, 4096);
      const std::int64_t start =
          c.offset + static_cast<std::int64_t>(below(counter_hash(c.seed, kCacheStarts, static_cast<std::uint64_t>(b)),
                                                     static_cast<std::uint64_t>(spread + 1)));
      if (family == Family::rope2d) return start + (axis == 0 ? s % width : s / width);
      if (family == Family::mrope && axis > 0)
        return static_cast<std::int64_t>(below(counter_hash(c.seed, kCacheStarts + axis, static_cast<std::uint64_t>(b * c.seq + s)), 64));
      return start + s;
    }
    case PositionMode::scattered: {
      const std::uint64_t index = static_cast<std::uint64_t>((axis * c.batch + b) * c.seq + s);
      const std::uint64_t h = counter_hash(c.seed, kScattered, index);
      if (below(h, 8) == 0) {
        const std::int64_t edges[] = {0, 1, (1 << 24) - 1, 1 << 24, (1 << 24) + 1, limit};
        const std::int64_t edge = edges[below(counter_hash(c.seed, kEdges, index), std::size(edges))];
        return std::min(edge, limit);
      }
      return static_cast<std::int64_t>(below(h >> 3, static_cast<std::uint64_t>(limit) + 1));
    }
  }
  return s;
}

int id_axes(Family family) {
  switch (family) {
    case Family::mrope: return 3;
    case Family::rope2d: return 2;
    default: return 1;
  }
}

// The sequence length dynamic NTK and LongRoPE key on: the plan's own, else one past the
// largest position of the unshrunk case, as transformers takes max(position_ids) + 1.
std::int64_t case_sequence_length(const CaseDescription& c, std::int64_t limit) {
  if (c.spec.scaling.length) return *c.spec.scaling.length;
  if (!is_rotary(c.spec.family)) return 1;
  const std::int64_t call_offset = c.positions == PositionMode::run ? c.offset : 0;
  std::int64_t largest = 0;
  for (int axis = 0; axis < id_axes(c.spec.family); ++axis)
    for (std::int64_t b = 0; b < c.batch; ++b)
      for (std::int64_t s = 0; s < c.seq; ++s) largest = std::max(largest, original_id(c, axis, b, s, limit) + call_offset);
  return largest + 1;
}

void check_range(const CaseDescription& c, std::int64_t limit) {
  const Family family = c.spec.family;
  if (c.offset < 0 && family != Family::xl && !(is_relative(family)))
    throw SpecError(fmt::format("case offset {} is negative; positions of {} start at 0", c.offset, family_name(family)));
  if (family == Family::learned) {
    if (c.positions == PositionMode::run && c.offset + c.seq > c.spec.rows)
      throw SpecError(fmt::format("case offset {} + seq {} runs past the table's {} rows", c.offset, c.seq, c.spec.rows));
    if (c.positions == PositionMode::scattered && c.offset != 0)
      throw SpecError(fmt::format("case offset {} with scattered ids can run past the table; use offset=0", c.offset));
    if (c.positions == PositionMode::cache)
      throw SpecError("case positions=cache does not apply to a learned table; use run or scattered");
    return;
  }
  const std::int64_t end = c.offset + c.seq - 1;
  if (end > limit || (is_relative(family) && family != Family::xl && c.key_offset + c.keys - 1 > limit))
    throw SpecError(fmt::format("case positions reach {}, past {}'s limit {}", std::max(end, c.key_offset + c.keys - 1),
                                family_name(family), limit));
}

}  // namespace

KernelCall materialize(const CaseDescription& c) {
  const Spec& spec = c.spec;
  c.validate();
  const std::int64_t limit = position_limit(spec);
  check_range(c, limit);
  KernelCall call;
  call.spec = spec;
  call.in_place = c.in_place;
  call.sequence_length = case_sequence_length(c, limit);
  const Selection& sel = c.select;
  const std::int64_t batch = sel.batch ? 1 : c.batch, seq = sel.token ? 1 : c.seq;
  const ElementType type = element_type(spec.dtype);
  const Family family = spec.family;

  if (is_rotary(family) || family == Family::learned) {
    call.batch = batch;
    call.seq = seq;
    call.axes = id_axes(family);
    call.ids64 = c.ids64;
    call.id_offset = c.positions == PositionMode::run ? c.offset : 0;
    for (int axis = 0; axis < call.axes; ++axis)
      for (std::int64_t b = 0; b < batch; ++b)
        for (std::int64_t s = 0; s < seq; ++s) {
          const std::int64_t id = original_id(c, axis, pick(sel.batch, b), pick(sel.token, s), limit);
          if (c.ids64)
            call.ids64_data.push_back(id);
          else
            call.ids32_data.push_back(static_cast<std::int32_t>(id));
        }
  }

  const std::vector<double> scales = channel_scales(c);
  if (is_rotary(family)) {
    for (int operand = 0; operand < (c.kv_heads > 0 ? 2 : 1); ++operand) {
      if (sel.operand && *sel.operand != operand) continue;
      const int original_heads = operand == 0 ? c.heads : c.kv_heads;
      const std::int64_t heads = sel.head ? 1 : original_heads;
      Buffer input = make_buffer(type, {batch, seq, heads, spec.d}, c.order, c.pad, input_slot(call.inputs.size()));
      draw_values(input, c, sel, operand, original_heads, scales);
      call.outputs.push_back(c.in_place ? input : make_buffer(type, input.shape, c.order, c.pad, output_slot(call.outputs.size())));
      call.inputs.push_back(std::move(input));
    }
    return call;
  }

  switch (family) {
    case Family::learned: {
      Buffer table = make_buffer(type, {1, 1, spec.rows, spec.d}, "bshd", 0, input_slot(0));
      draw_values(table, c, Selection{}, 0, spec.rows, scales);
      call.inputs.push_back(std::move(table));
      call.outputs.push_back(make_buffer(type, {batch, seq, 1, spec.d}, "bshd", 0, output_slot(0)));
      break;
    }
    case Family::sinusoidal:
    case Family::xl:
      call.first = c.offset + (sel.token ? *sel.token : 0);
      call.rows = seq;
      call.outputs.push_back(make_buffer(type, {1, seq, 1, spec.d}, "bshd", c.pad, output_slot(0)));
      break;
    case Family::alibi:
    case Family::t5:
    case Family::shaw: {
      call.first = c.offset + (sel.token ? *sel.token : 0);
      call.rows = seq;
      call.key_first = c.key_offset;
      call.keys = c.keys;
      const std::int64_t heads = family == Family::alibi ? spec.heads : 1;
      call.outputs.push_back(
          make_buffer(family == Family::alibi ? type : ElementType::int32, {1, heads, seq, c.keys}, "bshd", 0, output_slot(0)));
      break;
    }
    default: break;
  }
  return call;
}

}  // namespace peconform::harness
