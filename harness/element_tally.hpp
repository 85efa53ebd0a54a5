#pragma once
// What one thread of the verifier gathers, and the formatting every failure shares: hex float
// and decimal, ULPs in the storage dtype.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "harness/verifier.hpp"

namespace peconform::harness {

// A failure's place in the order the verdict reports the first one by.
struct FailureKey {
  std::size_t operand = 0;
  std::int64_t element = 0;
  friend auto operator<=>(const FailureKey&, const FailureKey&) = default;
};

class ElementTally {
 public:
  CellStats stats;
  std::uint64_t failing = 0;
  double escalation_seconds = 0;

  // A bounded element: its error against its bound, at `position` (for the position plot).
  [[gnu::always_inline]] void bounded(double error, double bound, double ulps, int position_bin) {
    bounded_ratio(bound > 0 ? error / bound : (error > 0 ? std::numeric_limits<double>::infinity() : 0), ulps, position_bin);
  }
  [[gnu::always_inline]] void bounded_ratio(double ratio, double ulps, int position_bin) {
    ++stats.elements;
    ++stats.bounded_elements;
    if (ratio > stats.worst_ratio) stats.worst_ratio = ratio;
    if (ulps > stats.max_ulp) stats.max_ulp = ulps;
    double& at = stats.worst_ratio_by_position[static_cast<std::size_t>(position_bin)];
    if (ratio > at) at = ratio;
    ++stats.ratio_histogram[static_cast<std::size_t>(ratio_bin(ratio))];
  }
  // A bounded element whose ratio and ULPs are known to raise no maximum the tally holds: only
  // its count and its ratio's bin change, as bounded_ratio would change them.
  void bounded_in_bin(int ratio_bin) {
    ++stats.elements;
    ++stats.bounded_elements;
    ++stats.ratio_histogram[static_cast<std::size_t>(ratio_bin)];
  }
  void identical() { ++stats.elements, ++stats.identical_elements; }
  void unconstrained() { ++stats.elements, ++stats.unconstrained_elements; }
  // Records a failure; `describe` builds the details only when it is the lowest so far.
  template <class Describe> void fail(FailureKey key, Describe&& describe) {
    ++failing;
    ++stats.failed_elements;
    if (!first_ || key < first_key_) {
      first_key_ = key;
      first_ = describe();
    }
  }
  void merge(const ElementTally& other);
  CaseVerdict verdict() const;

 private:
  std::optional<ElementFailure> first_;
  FailureKey first_key_;
};

// "0x1.8p+0 (1.5)"
std::string hex_and_decimal(double value);
// "q", "k", "table", "out", "bias" or "index": how failures name the buffer in `slot`.
std::string buffer_name(const KernelCall& call, int slot);
// An element as failures show it: hex and decimal, or for one of the call's sentinels its bits
// and whose it is, "bits 0x7fdead04 (the guard sentinel of input k)".
std::string element_text(const KernelCall& call, ElementType type, std::uint64_t bits, double value);
// A logical element of output `out` as failures show it: as above, but in the kernel's own array
// (Buffer::kernel_array) bits that match a sentinel are said to be what they are, memory the
// kernel most likely did not write, which had held one of peconform's buffers.
std::string element_text(const KernelCall& call, const Buffer& out, std::uint64_t bits, double value);
// A float format's precision and least normal exponent, for counting ULPs.
struct UlpFormat {
  int mantissa_bits = 23, min_exponent = -126;
  bool integer = false;
};
inline UlpFormat ulp_format(ElementType type) {
  switch (type) {
    case ElementType::fp64: return {52, -1022, false};
    case ElementType::fp32: return {23, -126, false};
    case ElementType::fp16: return {10, -14, false};
    case ElementType::bf16: return {7, -126, false};
    case ElementType::int32: return {0, 0, true};
  }
  return {};
}

// |actual - reference| in units in the last place of `reference` in `format`; inline and free
// of libm calls, as it runs per element.
[[gnu::always_inline]] inline double ulps_between(double actual, double reference, const UlpFormat& format) {
  if (format.integer) return actual == reference ? 0 : std::numeric_limits<double>::infinity();
  const std::uint64_t bits = std::bit_cast<std::uint64_t>(reference);
  const int biased = static_cast<int>((bits >> 52) & 0x7ff);
  if (biased == 0x7ff) return std::numeric_limits<double>::infinity();
  const int exponent = std::max(biased - 1023, format.min_exponent);
  const int spacing = exponent - format.mantissa_bits;  // >= -1074
  const double difference = actual > reference ? actual - reference : reference - actual;
  // Dividing by a power of two is multiplying by its inverse, exactly, when that is a double.
  if (spacing > -1023) return difference * std::bit_cast<double>(static_cast<std::uint64_t>(1023 - spacing) << 52);
  return difference * 0x1p1022 / std::bit_cast<double>(static_cast<std::uint64_t>(spacing + 2045) << 52);
}
inline double ulps_between(double actual, double reference, ElementType type) {
  return ulps_between(actual, reference, ulp_format(type));
}

}  // namespace peconform::harness
