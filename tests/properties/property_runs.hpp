#pragma once
// One property of the catalog run from a test on any implementation (a planted bug, a kernel
// that records what it is asked), for a set number of cases from the run's seed and without
// shrinking, so that a failure is the first falsifying case and a success counts every case.
#include <rapidcheck.h>

#include <stdexcept>
#include <string>
#include <string_view>

#include "properties/property.hpp"

namespace peconform {

// Throws std::out_of_range naming a property the catalog does not hold.
inline const Property& property_named(std::string_view name) {
  for (const Property& property : all_properties())
    if (property.name == name) return property;
  throw std::out_of_range(std::string(name));
}

// `id` names the run in RapidCheck's own messages.
inline rc::detail::TestResult run_property(const Property& property, const Implementation& implementation, int cases,
                                           const std::string& id) {
  rc::detail::TestMetadata metadata;
  metadata.id = id;
  rc::detail::TestParams params = rc::detail::configuration().testParams;
  params.maxSuccess = cases;
  params.disableShrinking = true;
  return rc::detail::checkProperty(rc::detail::toProperty([&] { property.check(implementation); }), metadata, params);
}

}  // namespace peconform
