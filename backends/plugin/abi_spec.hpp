#pragma once
// A Spec as the ABI's flat pec_spec (include/peconform/kernel_abi.h), for kernels in plain C
// that read numbers rather than parse text. It owns the arrays the struct points into, so it
// stays where it was made.
#include <string>
#include <vector>

#include "peconform/kernel_abi.h"
#include "spec/spec.hpp"

namespace peconform::plugin {

class AbiSpec {
 public:
  explicit AbiSpec(const Spec& spec);
  AbiSpec(const AbiSpec&) = delete;
  AbiSpec& operator=(const AbiSpec&) = delete;

  const pec_spec& flat() const { return flat_; }
  const std::string& text() const { return text_; }

 private:
  std::string text_;
  std::vector<double> short_factors_, long_factors_, freqs_, factors_;
  pec_spec flat_{};
};

}  // namespace peconform::plugin
