// Every property of the catalog, registered as ExactTier.<property> and FastTier.<property>.
// The suites are registered at start-up from the catalog, so adding a property to
// properties/ adds it to both tiers (and, later, to every backend) without a line here.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <iostream>

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
  try {
    const std::string profile = peconform::apply_property_profile();
    std::cout << "property profile: " << profile << " (RC_PARAMS=" << std::getenv("RC_PARAMS") << ")\n";
  } catch (const std::exception& error) {
    std::cerr << error.what() << '\n';
    return 2;
  }
  testing::InitGoogleTest(&argc, argv);
  peconform::register_properties("ExactTier", peconform::exact_tier());
  peconform::register_properties("FastTier", peconform::fast_tier());
  return RUN_ALL_TESTS();
}
