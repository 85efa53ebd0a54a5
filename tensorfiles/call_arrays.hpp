#pragma once
// A kernel call's buffers as the tensor-file route shows them: each one a contiguous C-order
// array of its logical shape, the axes the C ABI shows (include/peconform/kernel_abi.h,
// pec_call): a rotary operand [batch, seq, heads, d]; a learned table [rows, d] and its
// output [batch, seq, d]; a sinusoidal or xl table [rows, d]; ALiBi [heads, queries, keys];
// T5 and Shaw [queries, keys]; the ids [axes, batch, seq]. The case's memory order and padding
// (order=, pad=) are not reproduced: a kernel reading files takes plain arrays. bf16 has no
// NumPy dtype, so it travels as its raw bits, '<u2' (torch: tensor.view(torch.bfloat16)).
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "backends/kernel_call.hpp"

namespace peconform::tensorfiles {

// The .npy dtype a buffer of `type` is stored as: '<f8', '<f4', '<f2', '<u2' (bf16 bits), '<i4'.
std::string storage_descr(ElementType type);
// What the manifest says of that storage: "fp32", or "bf16 bits as uint16".
std::string storage_note(ElementType type);

// The shape the file route shows for `buffer` (an input when `input`) of `family`.
std::vector<std::int64_t> shown_shape(const Buffer& buffer, Family family, bool input);

// The buffer's logical elements, in C order of its [batch, seq, heads, d] shape (the axes a
// file drops all have extent 1, so that order is the file's).
std::vector<std::byte> logical_bytes(const Buffer& buffer);
// Writes `bytes`, the logical elements in that order, into the buffer's elements.
void set_logical_bytes(Buffer& buffer, std::span<const std::byte> bytes);

// A hash of everything that tells one call from another: the spec, the ranges, the sequence
// length, the layout and input_fingerprint (the inputs and ids). The outputs of an exported
// case are found again by it, whatever order the campaign runs its cases in.
std::uint64_t call_fingerprint(const KernelCall& call);

}  // namespace peconform::tensorfiles
