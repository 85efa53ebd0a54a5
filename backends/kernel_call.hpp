#pragma once
// One kernel call as plain data, the form in which a case crosses into any backend (in this
// process, a child process, a device): the spec, host buffers with their strides, the ids, the
// ranges. A backend copies the inputs wherever its kernel runs and the outputs back into
// `outputs`. Every buffer carries guard elements around it and padding between its rows, and
// each of them, and each output element before the kernel writes it, holds a sentinel of its
// own, so that an unwritten element, a read of padding or of a guard and a write out of bounds
// all show in the result, even a write that copies one buffer's sentinel into another's.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "backends/buffer_storage.hpp"

#include "backends/implementation.hpp"

namespace peconform {

// What an element of a buffer holds: a float dtype, or an int32 index (T5 and Shaw outputs).
enum class ElementType { fp64, fp32, fp16, bf16, int32 };
ElementType element_type(Dtype dtype);
std::size_t element_size(ElementType type);

// Guard elements before and after every buffer.
inline constexpr std::int64_t kGuardElements = 64;

// What a buffer's elements hold before the kernel runs wherever nothing was drawn: its guards,
// its padding, and (outputs) its logical elements, which the kernel must overwrite.
enum class SentinelRole { guard, padding, unwritten };
struct Sentinels {
  std::uint64_t guard = 0, padding = 0, unwritten = 0;
};

// A buffer's place in its call, which picks its sentinels: inputs[i] is slot i, outputs[i] is
// slot kMaxOperands + i.
inline constexpr int kMaxOperands = 2;
inline int input_slot(std::size_t operand) { return static_cast<int>(operand); }
inline int output_slot(std::size_t operand) { return kMaxOperands + static_cast<int>(operand); }

// The sentinels of the buffer in `slot`: quiet NaNs (int32: integers no index reaches), each
// (slot, role) its own payload, none of them the NaN an arithmetic or a conversion produces
// (payload 0, the x86, Arm and PyTorch default, nor all ones, CUDA's), all fixed: the same
// bits on every run and every seed.
Sentinels sentinels_of(ElementType type, int slot);

// Which sentinel `bits` is, if it is one: a NaN's sign is ignored, so that a kernel that read a
// sentinel and negated it (rotate_half's -x) is still caught with it.
struct SentinelOrigin {
  int slot = 0;
  SentinelRole role = SentinelRole::guard;
};
std::optional<SentinelOrigin> sentinel_origin(ElementType type, std::uint64_t bits);

// A strided [batch, seq, heads, dim] tensor (tables: [1, rows, 1, d]; ALiBi: [1, heads, q, k];
// T5 and Shaw: [1, 1, q, k]) inside `bytes`, whose element `origin` is [0, 0, 0, 0].
struct Buffer {
  ElementType type = ElementType::fp32;
  std::array<std::int64_t, 4> shape{}, stride{};
  std::int64_t origin = kGuardElements;
  BufferBytes bytes;  // buffer_storage.hpp: resize does not zero
  Sentinels sentinels;  // in place, the output's are its input's: it starts as a copy of it
  // Its logical elements were copied from an array the kernel allocated and returned (a Python
  // callable's numpy.empty or torch.empty): peconform filled none of them, so bits there that
  // match a sentinel are memory the kernel left as it found it, never a sentinel peconform wrote.
  // Its guards and padding are still peconform's. Set by the backend that copies such an array.
  bool kernel_array = false;

  std::int64_t offset_of(std::int64_t b, std::int64_t s, std::int64_t h, std::int64_t e) const {
    return origin + b * stride[0] + s * stride[1] + h * stride[2] + e * stride[3];
  }
  std::int64_t size() const { return static_cast<std::int64_t>(bytes.size() / element_size(type)); }
  void* data() { return bytes.data() + origin * static_cast<std::int64_t>(element_size(type)); }
  const void* data() const { return bytes.data() + origin * static_cast<std::int64_t>(element_size(type)); }
  // The element at storage index `index` (not logical), widened exactly to double.
  double value(std::int64_t index) const;
  std::uint64_t bits(std::int64_t index) const;
  void set_bits(std::int64_t index, std::uint64_t bits);
  // Whether storage index `index` lies in a guard (else in padding, or a logical element).
  bool in_guard(std::int64_t index) const { return index < origin || index >= size() - kGuardElements; }
};

// The bits of `value` rounded to nearest in `type` (bf16 through float: a double rounding, the
// same on every run, that only values not already bf16 see).
std::uint64_t element_bits(ElementType type, double value);

struct KernelCall {
  Spec spec;
  std::int64_t sequence_length = 1;  // what dynamic NTK and LongRoPE key on, from the unshrunk case
  bool in_place = false;
  // Rotary: one operand per tensor (q, then k); the kernel reads inputs[i] and writes outputs[i],
  // which in place starts as a copy of inputs[i] and is read and written. Learned: inputs[0] is
  // the [1, 1, rows, d] table. Other families have no inputs.
  std::vector<Buffer> inputs, outputs;
  // Rotary and learned: [axes, batch, seq] contiguous ids (int64 or int32), plus id_offset.
  std::int64_t batch = 1, seq = 1;
  int axes = 1;
  bool ids64 = true;
  std::vector<std::int64_t> ids64_data;
  std::vector<std::int32_t> ids32_data;
  std::int64_t id_offset = 0;
  // Tables: rows from `first` (sinusoidal positions, xl distances). Relative: queries from
  // `first`, `keys` keys from `key_first`.
  std::int64_t first = 0, rows = 0, key_first = 0, keys = 0;

  std::int64_t id(int axis, std::int64_t b, std::int64_t s) const;  // with id_offset added
};

// Where the reference evaluates: token (b, s) of a rotary or learned call, row `row` of a
// table, or (query row, key `key`) of a relative call; an ALiBi point's third coordinate is the
// anchor of mode=last-key, the call's last key (0 otherwise, as at a point given alone).
Point token_point(const KernelCall& call, std::int64_t b, std::int64_t s);
Point row_point(const KernelCall& call, std::int64_t row, std::int64_t key);
// The one-query, one-key call whose bias is an ALiBi point's: a kernel anchors last-key at its
// call's last key, so a point (i, j) with anchor a becomes the causal bias of query a at key j,
// -m(a - j), or, for a key past the anchor, the key-mode bias of key j - a, +m(j - a). The tensor
// calls of a campaign take the last-key path itself; a point evaluator cannot, in one element.
struct AlibiPointCall {
  AlibiMode mode;
  std::int64_t query, key;
};
AlibiPointCall alibi_point_call(const Spec& spec, const Point& point);
// The d input values of head h of token (b, s) of rotary operand `operand`, or a learned
// call's whole table, as the reference takes them.
std::vector<Wide> input_values(const KernelCall& call, std::size_t operand, std::int64_t b, std::int64_t s, std::int64_t h);

// The failure kind of an element of output `out` that holds one of the call's sentinels:
// "unwritten" for an output's unwritten sentinel (the kernel left it, or copied one it had
// not written), "out-of-bounds" for a guard's or a padding's (the kernel read out of bounds);
// empty where it holds none. What the kernel computes must never be one of them.
std::string_view sentinel_kind(ElementType type, std::uint64_t bits);
// The same for a logical element of `out`: none where the kernel's own array supplied it
// (Buffer::kernel_array), whose bits peconform never wrote.
std::string_view sentinel_kind(const Buffer& out, std::uint64_t bits);

// A hash of everything the kernel may only read: the input buffers (guards and padding
// included) and the ids. A kernel that writes into them changes it.
std::uint64_t input_fingerprint(const KernelCall& call);

}  // namespace peconform
