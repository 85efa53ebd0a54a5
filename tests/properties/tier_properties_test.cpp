// Every property of the catalog, registered as ExactTier.<property>, FastTier.<property> and
// Cpu.<property> (our CPU kernels, under each spec's dtype and precision class). The suites
// are registered at start-up from the catalog, so adding a property to properties/ adds it to
// every implementation without a line here. Built twice: exact_property_test holds the exact
// tier, at its own CI budget (property_profile.hpp), and property_test the others.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "backends/cpu/cpu_backend.hpp"
#include "backends/reference_tiers.hpp"
#include "properties/property.hpp"
#include "property_profile.hpp"

namespace peconform {
namespace {

class PropertyTest : public testing::Test {
 public:
  PropertyTest(const Property& property, const Implementation& implementation)
      : property_(property), implementation_(implementation) {}
  void TestBody() override {
    rc::detail::checkGTest([this] { property_.check(implementation_); });
  }

 private:
  const Property& property_;
  const Implementation& implementation_;
};

void register_properties(const char* suite, const Implementation& implementation) {
  for (const Property& property : all_properties()) {
    testing::RegisterTest(suite, std::string(property.name).c_str(), nullptr, std::string(property.families).c_str(),
                          __FILE__, __LINE__, [&property, &implementation]() -> testing::Test* {
                            return new PropertyTest(property, implementation);
                          });
  }
}

}  // namespace
}  // namespace peconform

int main(int argc, char** argv) {
#ifdef PECONFORM_EXACT_TIER_PROPERTIES
  if (!peconform::start_property_run(argc, argv, peconform::kExactTierCiCases)) return 2;
  peconform::register_properties("ExactTier", peconform::exact_tier());
#else
  if (!peconform::start_property_run(argc, argv)) return 2;
  peconform::register_properties("FastTier", peconform::fast_tier());
  peconform::register_properties("Cpu", peconform::cpu_backend());
#endif
  return RUN_ALL_TESTS();
}
