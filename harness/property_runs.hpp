#pragma once
// The RapidCheck property catalog (properties/) run against a backend's point evaluator inside
// a campaign, each property with its own seed drawn from the campaign's. RapidCheck is not
// thread-safe: the campaign runs every property on one thread (property_thread.hpp).
#include <atomic>
#include <cstdint>
#include <optional>

#include "harness/campaign_result.hpp"
#include "properties/property.hpp"

namespace peconform::harness {

// The property's verdict over `cases` RapidCheck cases; nothing when `halt` was set while it
// ran, which stops it before its next case.
std::optional<PropertyVerdict> run_property(const Property& property, const Implementation& implementation, std::uint64_t seed,
                                            int cases, const std::atomic<bool>& halt);

}  // namespace peconform::harness
