#pragma once
// The RapidCheck property catalog (properties/) run against a backend's point evaluator inside
// a campaign, each property with its own seed drawn from the campaign's. RapidCheck is not
// thread-safe, so properties run on the calling thread, never on the OpenMP team.
#include <cstdint>

#include "harness/campaign_result.hpp"
#include "properties/property.hpp"

namespace peconform::harness {

PropertyVerdict run_property(const Property& property, const Implementation& implementation, std::uint64_t seed, int cases);

}  // namespace peconform::harness
