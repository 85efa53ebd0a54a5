#include "harness/property_runs.hpp"

#include <rapidcheck.h>
#include <iostream>
#include <sstream>

namespace peconform::harness {

PropertyVerdict run_property(const Property& property, const Implementation& implementation, std::uint64_t seed, int cases) {
  rc::detail::TestMetadata metadata;
  metadata.id = std::string(property.name);
  metadata.description = std::string(property.name);
  rc::detail::TestParams params;
  params.seed = seed;
  params.maxSuccess = cases;
  // RapidCheck announces the configuration it loads on first use, with a seed this run does
  // not use (each property has its own, above); the report says what ran, so it is silenced.
  std::ostringstream ignored;
  std::streambuf* const standard_error = std::cerr.rdbuf(ignored.rdbuf());
  const rc::detail::TestResult result =
      rc::detail::checkTestable([&] { property.check(implementation); }, metadata, params);
  std::cerr.rdbuf(standard_error);
  PropertyVerdict verdict{std::string(property.name), std::string(property.families), false, cases, ""};
  rc::detail::SuccessResult success;
  if (result.match(success)) {
    verdict.passed = true;
    verdict.cases = success.numSuccess;
    return verdict;
  }
  std::ostringstream message;
  rc::detail::printResultMessage(result, message);
  verdict.message = message.str();
  return verdict;
}

}  // namespace peconform::harness
