#pragma once
// `peconform cases export`: the cases `peconform run` would draw, written as .npy inputs and
// ids with a manifest (manifest.hpp) naming each case and the output files its kernel must write.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "tensorfiles/manifest.hpp"

namespace peconform::tensorfiles {

struct ExportRequest {
  std::string spec;  // a spec or a spec pattern (file_route.hpp); empty with `replay`
  std::string profile = "ci";
  std::uint64_t seed = 0;
  std::optional<std::uint64_t> cases;  // overrides the profile's count
  std::optional<std::string> replay;   // export this one case string instead
};

// Writes every case into `out` (which must be missing or empty) and returns the manifest it
// wrote there. `progress(done, total)` is called after each case. Throws SpecError for bad
// options, a folder in use or a case that cannot be drawn.
Manifest export_cases(const ExportRequest& request, const std::filesystem::path& out,
                      const std::function<void(std::uint64_t, std::uint64_t)>& progress = {});

}  // namespace peconform::tensorfiles
