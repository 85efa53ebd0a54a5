#include "property_profile.hpp"

#include <cstdlib>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <string>

namespace peconform {

bool start_property_run(int& argc, char** argv, int ci_cases) {
  const char* chosen = std::getenv("PECONFORM_PROPERTY_PROFILE");
  const std::string profile = chosen == nullptr || *chosen == '\0' ? "ci" : chosen;
  std::string params;
  if (profile == "ci") {
    params = fmt::format("seed={} max_success={}", kCiSeed, ci_cases);
  } else if (profile == "deep") {
    params = fmt::format("max_success={}", kDeepCases);
  } else {
    fmt::print(stderr, "PECONFORM_PROPERTY_PROFILE='{}'; expected ci or deep\n", profile);
    return false;
  }
  if (const char* user = std::getenv("RC_PARAMS")) params += fmt::format(" {}", user);
  setenv("RC_PARAMS", params.c_str(), 1);
  fmt::print("property profile: {} (RC_PARAMS={})\n", profile, params);
  testing::InitGoogleTest(&argc, argv);
  return true;
}

}  // namespace peconform
