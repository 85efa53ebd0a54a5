#pragma once
// A campaign result shaped like a real one, for the report tests: several families, dtypes and
// classes, a loose cell, an integer-valued cell, two failures (one non-finite) whose case text
// holds markup characters, and a failing property whose message holds a control character.
#include "harness/campaign_result.hpp"

namespace peconform {

inline constexpr const char* kFailingCase =
    "rope(d=8,base=10000) | batch=1 seq=3 heads=1 kv_heads=1 order=bshd pad=0 place=out ids=int32 positions=p<2^17 "
    "offset=131070 inputs=activations seed=0x00000000000000a7 select=q&k";
inline constexpr const char* kLooseCell = "cpu/rope/bfloat16/lowp-cache";

harness::CampaignResult sample_result();

}  // namespace peconform
