#include "backends/cpu/rotary_axes.hpp"

#include <vector>

namespace peconform::cpu {
namespace {

int blocked_axis(const std::vector<int>& sections, int pair) {
  int end = 0;
  for (int axis = 0; axis < static_cast<int>(sections.size()); ++axis) {
    end += sections[static_cast<std::size_t>(axis)];
    if (pair < end) return axis;
  }
  return static_cast<int>(sections.size()) - 1;  // past the sections: validation forbids it
}

// transformers' apply_interleaved_mrope (Qwen3-VL; vLLM's apply_interleaved_rope is the same):
// frequencies start on t, then h overwrites i = 1 mod 3 below 3 sections[1] and w i = 2 mod 3
// below 3 sections[2]. The period is 3 whatever the number of sections.
int interleaved_axis(const std::vector<int>& sections, int pair) {
  for (int axis = 1; axis < static_cast<int>(sections.size()); ++axis)
    if (pair % 3 == axis && pair < 3 * sections[static_cast<std::size_t>(axis)]) return axis;
  return 0;
}

}  // namespace

int position_axes(const Spec& spec) {
  return spec.family == Family::mrope ? 3 : spec.family == Family::rope2d ? 2 : 1;
}

PairAxis pair_axis(const Spec& spec, int pair) {
  switch (spec.family) {
    case Family::mrope:
      return {spec.section_mode == SectionMode::blocked ? blocked_axis(spec.sections, pair)
                                                        : interleaved_axis(spec.sections, pair),
              pair};
    case Family::rope2d: {
      const int per_axis = spec.d / 4;
      return {pair / per_axis, pair % per_axis};
    }
    default: return {0, pair};
  }
}

}  // namespace peconform::cpu
