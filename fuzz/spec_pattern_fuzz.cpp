// The spec patterns of a plugin's kernel declaration (pec_kernel.spec_patterns), the one part
// of a declaration that is text: SpecPattern::parse_list on arbitrary text. For a list it
// accepts, each pattern's dtypes and classes are read, and each is narrowed, under a few
// choices, from a drawn spec of its family given a dtype and class of the pattern's, as the
// campaign's cells give them; every spec a pattern makes must be one it admits, and round-trip
// like any spec.
// fuzz-sources: spec/spec_pattern.cpp
#include <algorithm>
#include <optional>
#include <vector>

#include "fuzz/fuzz_support.hpp"
#include "spec/spec_pattern.hpp"

namespace {

using namespace peconform;

// A spec of each family, with keys away from their defaults, as the campaign might draw it.
std::optional<Spec> drawn_spec_of(Family family) {
  switch (family) {
    case Family::sinusoidal: return Spec::parse("sinusoidal(d=33,base=500,layout=half,order=cos-sin,dtype=bf16)");
    case Family::learned: return Spec::parse("learned(d=8,rows=64,dtype=fp16)");
    case Family::rope:
      return Spec::parse("rope(d=96,base=500000,layout=interleaved,rot=64,rot_at=last,scaling=linear(factor=4),dtype=bf16,"
                         "precision=fp32-angle,theta=hf)");
    case Family::xpos: return Spec::parse("xpos(d=64,base=10000,layout=half,scale_base=256,role=key)");
    case Family::mrope: return Spec::parse("mrope(d=128,base=1000000,layout=half,sections=[16,24,24],dtype=bf16)");
    case Family::rope2d: return Spec::parse("rope2d(d=64,base=100,layout=interleaved,sign=-1)");
    case Family::alibi: return Spec::parse("alibi(heads=12,mode=causal,dtype=fp16,precision=fp32-angle,slopes=bloom)");
    case Family::t5: return Spec::parse("t5(buckets=64,max_distance=256,bidirectional=false)");
    case Family::shaw: return Spec::parse("shaw(k=16)");
    case Family::xl: return Spec::parse("xl(d=64,base=10000,clamp_len=100)");
  }
  return std::nullopt;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<SpecPattern> patterns;
  try {
    patterns = SpecPattern::parse_list(fuzz::as_text(data, size));
  } catch (const SpecError&) {
    return 0;
  }
  const std::vector<Dtype> dtypes{Dtype::fp64, Dtype::fp32, Dtype::fp16, Dtype::bf16};
  const std::vector<PrecisionClass> classes{PrecisionClass::exact_angle, PrecisionClass::fp32_angle, PrecisionClass::lowp_cache};
  for (const SpecPattern& pattern : patterns) {
    std::vector<Dtype> allowed_dtypes;
    std::vector<PrecisionClass> allowed_classes;
    try {
      allowed_dtypes = pattern.dtypes(dtypes);
      allowed_classes = pattern.precisions(classes);
    } catch (const SpecError&) {
      continue;  // a dtype or class no spec has: the declaration is refused
    }
    if (allowed_dtypes.empty() || allowed_classes.empty()) continue;  // refused as well
    std::optional<Spec> drawn = drawn_spec_of(pattern.family());
    fuzz::require(drawn.has_value(), "every family has a drawn spec", pattern.text());
    // Only a family with the key has a dtype or class of its own (T5 and Shaw have neither).
    const std::vector<std::string_view> keys = spec_keys(pattern.family());
    const auto has_key = [&](std::string_view key) { return std::find(keys.begin(), keys.end(), key) != keys.end(); };
    for (std::uint64_t pick = 0; pick < 3; ++pick) {
      if (has_key("dtype")) drawn->dtype = allowed_dtypes[pick % allowed_dtypes.size()];
      if (has_key("precision")) drawn->precision = allowed_classes[pick % allowed_classes.size()];
      if (drawn->precision != PrecisionClass::fp32_angle) {  // the recipes belong to fp32-angle alone
        drawn->theta = ThetaRecipe::exact;
        drawn->slopes = SlopeRecipe::exact;
      }
      std::optional<Spec> made;
      try {
        made = pattern.narrow(*drawn, [pick](std::uint64_t count) { return pick % count; });
      } catch (const SpecError&) {
        continue;  // the campaign draws again
      }
      fuzz::check_spec_round_trips(*made);
      fuzz::must_not_throw("pattern.admits(pattern.narrow(s))", pattern.text(), [&] {
        fuzz::require(pattern.admits(*made), "pattern.admits(pattern.narrow(s))", pattern.text() + " made " + made->canonical());
      });
    }
  }
  return 0;
}
