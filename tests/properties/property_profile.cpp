#include "property_profile.hpp"

#include <cstdlib>
#include <fmt/format.h>
#include <stdexcept>

namespace peconform {

std::string apply_property_profile() {
  const char* chosen = std::getenv("PECONFORM_PROPERTY_PROFILE");
  const std::string profile = chosen == nullptr || *chosen == '\0' ? "ci" : chosen;
  std::string params;
  if (profile == "ci")
    params = fmt::format("seed={} max_success={}", kCiSeed, kCiCases);
  else if (profile == "deep")
    params = fmt::format("max_success={}", kDeepCases);
  else
    throw std::invalid_argument(fmt::format("PECONFORM_PROPERTY_PROFILE='{}'; expected ci or deep", profile));
  if (const char* user = std::getenv("RC_PARAMS")) params += fmt::format(" {}", user);
  setenv("RC_PARAMS", params.c_str(), 1);
  return profile;
}

}  // namespace peconform
