#pragma once
// One campaign case, one kernel call, as plain data with a one-line text form that is at once
// the report's case string and the reproducer (`peconform run --replay 'TEXT'`):
//
//   rope(d=80,base=10000,layout=half,dtype=bf16) | batch=2 seq=300 heads=8 kv_heads=2 order=bhsd pad=3
//     place=out ids=int32 positions=run offset=16777215 inputs=activations seed=0x9e3779b97f4a7c15
//
// Everything the call reads is a function of this text: the buffers are drawn from `seed` by
// counter-based hashing (harness/counter_random.hpp), never from the process's state. A shrunk
// case keeps the drawn data and narrows it with `select=` (one batch, one token, one head,
// one operand), so that it replays exactly the elements that failed.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "spec/spec.hpp"

namespace peconform::harness {

// How token position ids are drawn. run: token s has id s and the call's offset carries the
// start (a prefill at a random offset). cache: every batch row starts at its own drawn offset
// (a KV-cache continuation), baked into the ids. scattered: independent ids anywhere below
// the family's limit.
enum class PositionMode { run, cache, scattered };
// activations: normal values with a few outlier channels, as real q and k carry. bit_patterns:
// every exponent range of the dtype equally likely, with zeros of both signs, subnormals, the
// largest and smallest values and NaN (whose propagation the verifier states).
enum class InputKind { activations, bit_patterns };

struct Selection {
  std::optional<std::int64_t> batch, token;
  std::optional<int> head;
  std::optional<int> operand;  // 0: q (or the only operand), 1: k
  friend bool operator==(const Selection&, const Selection&) = default;
};

struct CaseDescription {
  Spec spec;
  // Rotary: [batch, seq, heads, d] query operand and, when kv_heads > 0, a key operand with
  // kv_heads heads. Tables (sinusoidal, xl): seq rows from `offset` (xl: distances).
  // Relative (alibi, t5, shaw): seq queries from `offset`, `keys` keys from `key_offset`.
  // Learned: a [batch, seq] gather of spec.rows x d.
  std::int64_t batch = 1, seq = 1;
  int heads = 1, kv_heads = 0;
  std::int64_t keys = 1, key_offset = 0;
  std::string order = "bshd";  // memory order of the four axes, outermost first
  int pad = 0;                 // elements of padding after every row and every outer axis
  bool in_place = false;
  bool ids64 = true;
  PositionMode positions = PositionMode::run;
  std::int64_t offset = 0;
  InputKind inputs = InputKind::activations;
  std::uint64_t seed = 0;
  Selection select;

  std::string text() const;
  // Throws SpecError naming the bad token or value.
  static CaseDescription parse(std::string_view text);
  // Throws SpecError for a combination no call has: an order that is not a permutation of
  // b, s, h, d, a key operand or in-place call outside the rotary families, a key range
  // outside alibi, t5 and shaw, a selection outside the shape.
  void validate() const;

  friend bool operator==(const CaseDescription&, const CaseDescription&) = default;
};

// The dims of one row of the call's output: d, or 1 for the index families and ALiBi biases.
int row_dims(const CaseDescription& description);

}  // namespace peconform::harness
