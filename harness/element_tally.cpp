#include "harness/element_tally.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace peconform::harness {

void ElementTally::merge(const ElementTally& other) {
  stats.merge(other.stats);
  failing += other.failing;
  escalation_seconds += other.escalation_seconds;
  if (other.first_ && (!first_ || other.first_key_ < first_key_)) {
    first_ = other.first_;
    first_key_ = other.first_key_;
  }
}

CaseVerdict ElementTally::verdict() const {
  CaseVerdict out;
  out.stats = stats;
  out.stats.cases = 1;
  out.stats.failed_cases = failing > 0 ? 1 : 0;
  out.failing_elements = failing;
  out.first_failure = first_;
  out.escalation_seconds = escalation_seconds;
  return out;
}

std::string hex_and_decimal(double value) { return fmt::format("{:a} ({:.17g})", value, value); }

std::string buffer_name(const KernelCall& call, int slot) {
  const bool output = slot >= kMaxOperands;
  const int operand = output ? slot - kMaxOperands : slot;
  switch (call.spec.family) {
    case Family::learned: return output ? "out" : "table";
    case Family::sinusoidal:
    case Family::xl: return "table";
    case Family::alibi: return "bias";
    case Family::t5:
    case Family::shaw: return "index";
    default: return operand == 0 ? "q" : "k";
  }
}

namespace {

// "the guard sentinel of input k"
std::string sentinel_text(const KernelCall& call, const SentinelOrigin& origin) {
  static constexpr const char* kRoleNames[] = {"guard", "padding", "unwritten"};
  return fmt::format("the {} sentinel of {} {}", kRoleNames[static_cast<int>(origin.role)],
                     origin.slot >= kMaxOperands ? "output" : "input", buffer_name(call, origin.slot));
}

}  // namespace

std::string element_text(const KernelCall& call, ElementType type, std::uint64_t bits, double value) {
  const std::optional<SentinelOrigin> origin = sentinel_origin(type, bits);
  if (!origin) return type == ElementType::int32 ? fmt::format("{}", static_cast<std::int32_t>(bits)) : hex_and_decimal(value);
  return fmt::format("bits {:#x} ({})", bits, sentinel_text(call, *origin));
}

std::string element_text(const KernelCall& call, const Buffer& out, std::uint64_t bits, double value) {
  const std::optional<SentinelOrigin> origin = sentinel_origin(out.type, bits);
  if (!out.kernel_array || !origin) return element_text(call, out.type, bits, value);
  // A freed peconform buffer's memory, handed out again by the allocator the kernel took its
  // array from: the bits are a sentinel's, but no sentinel was put there.
  return fmt::format("bits {:#x} in the kernel's own array, which peconform never filled: most likely an element the kernel "
                     "did not write, in memory that had held {}", bits, sentinel_text(call, *origin));
}

}  // namespace peconform::harness
