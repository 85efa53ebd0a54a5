#include "harness/property_runs.hpp"

#include <rapidcheck.h>
#include <iostream>
#include <sstream>

namespace peconform::harness {

namespace {

// Thrown into RapidCheck by a case that starts after a halt. RapidCheck takes it for a failure
// and would shrink it, but the throw comes before the case draws anything, so there is nothing
// to shrink; the verdict is dropped.
struct Halted {};

}  // namespace

std::optional<PropertyVerdict> run_property(const Property& property, const Implementation& implementation, std::uint64_t seed,
                                            int cases, const std::atomic<bool>& halt) {
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
  bool halted = false;
  const rc::detail::TestResult result = rc::detail::checkTestable(
      [&] {
        if (halt.load()) {
          halted = true;
          throw Halted{};
        }
        property.check(implementation);
      },
      metadata, params);
  std::cerr.rdbuf(standard_error);
  if (halted) return std::nullopt;
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
