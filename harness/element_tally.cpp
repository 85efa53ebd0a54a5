#include "harness/element_tally.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace peconform::harness {

void ElementTally::merge(const ElementTally& other) {
  stats.merge(other.stats);
  failing += other.failing;
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
  return out;
}

std::string hex_and_decimal(double value) { return fmt::format("{:a} ({:.17g})", value, value); }

}  // namespace peconform::harness
