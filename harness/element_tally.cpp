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

std::string element_text(const KernelCall& call, ElementType type, std::uint64_t bits, double value) {
  const std::optional<SentinelOrigin> origin = sentinel_origin(type, bits);
  if (!origin) return type == ElementType::int32 ? fmt::format("{}", static_cast<std::int32_t>(bits)) : hex_and_decimal(value);
  static constexpr const char* kRoleNames[] = {"guard", "padding", "unwritten"};
  return fmt::format("bits {:#x} (the {} sentinel of {} {})", bits, kRoleNames[static_cast<int>(origin->role)],
                     origin->slot >= kMaxOperands ? "output" : "input", buffer_name(call, origin->slot));
}

}  // namespace peconform::harness
