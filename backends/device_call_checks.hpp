#pragma once
// The refusals of the GPU backends (OpenCL and CUDA), made on the host before anything is
// uploaded: those of the CPU kernels (backends/cpu), through the CPU's own checks where they
// stand apart (check_view_pair, check_position_range, PositionIds::at) and in its words where
// they sit inside a kernel, plus one a device needs and the host does not: every element a
// kernel will address lies inside its buffer, since a device write out of bounds is not a
// verdict but undefined behaviour.
#include <array>
#include <cstdint>
#include <string_view>

#include "backends/cpu/rotary_plan.hpp"
#include "backends/cpu/table_kernels.hpp"
#include "backends/kernel_call.hpp"

namespace peconform::device {

// Throws SpecError unless the [extent] view of `buffer` from its origin lies inside it and
// within its shape.
void check_view_in_buffer(const Buffer& buffer, const std::array<std::int64_t, 4>& extent, std::string_view what);

// Rotary: 1 to kMaxOperands operands of the plan's d sharing [batch, seq], each input and
// output the same view (in place) or disjoint, the ids' axes the plan's, every position within
// +-plan.largest_position.
void check_rotary_call(const cpu::RotaryPlan& plan, const KernelCall& call);

// Sinusoidal and xl tables: rows >= 0, sinusoidal positions from 0, within the plan's range.
void check_table_call(const cpu::SinusoidPlan& plan, const KernelCall& call);

// ALiBi, T5, Shaw: queries and keys within kLargestTablePosition; ALiBi rows of at most
// 2^31 - 1 keys.
void check_relative_call(const KernelCall& call);

// ALiBi with math=storage in fp16 or bf16 (Falcon's 16-bit slopes and products): the CPU kernels
// compute it; the device kernels compute in float32 and refuse it, naming `device`.
void check_alibi_math(const Spec& spec, std::string_view device);

// Learned: every id (plus the offset) a row of the table.
void check_gather_call(const KernelCall& call);

}  // namespace peconform::device
