#pragma once
// A spec pattern: the specs one kernel serves (include/peconform/kernel_abi.h,
// `pec_kernel.spec_patterns`). It is spec text in which a key's value may be a choice
// `a|b|c` or `*`, which the campaign draws as it draws for our own kernels; a key the pattern
// does not name keeps its default, and `family(*)` leaves every key to the campaign:
//
//   rope(d=64|128,layout=*,rot=*,scaling=none|linear(factor=2),dtype=fp32|bf16,precision=fp32-angle,theta=hf)
//
// A real kernel is parameterised, so a CI gate must explore those parameters; a key it does
// not name is one it does not take, so the campaign never varies it.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "spec/call_syntax.hpp"
#include "spec/spec.hpp"

namespace peconform {

class SpecPattern {
 public:
  // One pattern. Throws SpecError naming the bad token, an unknown family or key, or a key
  // given twice. Values are checked when a spec is made from them (narrow).
  static SpecPattern parse(std::string_view text);
  // Patterns separated by ';'.
  static std::vector<SpecPattern> parse_list(std::string_view text);

  Family family() const { return family_; }
  const std::string& text() const { return text_; }
  // Whether every key is left to the campaign (`family(*)`).
  bool every_key_free() const { return every_key_free_; }
  // Whether key `name` is left to the campaign: `family(*)`, or `name=*`.
  bool leaves_free(std::string_view name) const;

  // The dtypes and precision classes of `candidates` the pattern's specs may have.
  std::vector<Dtype> dtypes(const std::vector<Dtype>& candidates) const;
  std::vector<PrecisionClass> precisions(const std::vector<PrecisionClass>& candidates) const;

  // A spec of the pattern made from `drawn`, a spec the campaign drew for this family (with
  // the dtype and class of its cell): keys left free keep drawn's values, a choice is picked by
  // `below(n)` (a number below n; dtype and precision keep drawn's, which the cell took from
  // the pattern), and every other key takes its default. Throws SpecError when that makes no
  // valid spec (a drawn rot past a fixed d, say): the caller draws again.
  Spec narrow(const Spec& drawn, const std::function<std::uint64_t(std::uint64_t)>& below) const;

  // Whether `spec` is one of the pattern's specs.
  bool admits(const Spec& spec) const;

 private:
  struct Key {
    std::string name;
    bool free = false;                 // `*`
    std::vector<Argument> choices;     // one or more values otherwise
  };
  const Key* key(std::string_view name) const;

  Family family_ = Family::rope;
  std::string text_;
  bool every_key_free_ = false;
  std::vector<Key> keys_;
};

}  // namespace peconform
