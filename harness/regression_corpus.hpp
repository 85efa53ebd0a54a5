#pragma once
// The regression corpus (fixtures/regressions/<backend>/*.json): every shrunk failure the
// campaign finds is saved there, and every run replays its backend's saved cases before any
// random case (Hypothesis's example database, DESIGN.md section 6). One file per case, named
// after its family and a hash of its text, so that finding it again rewrites the same file.
#include <filesystem>
#include <string>
#include <vector>

#include "harness/campaign_result.hpp"

namespace peconform::harness {

struct SavedRegression {
  std::filesystem::path file;
  std::string case_text;
};

// The saved cases of `backend` under `root`, in file-name order; none when the folder is
// missing. Throws SpecError naming a file that is not a peconform.regression/1 document.
std::vector<SavedRegression> load_regressions(const std::filesystem::path& root, const std::string& backend);

// Writes `failure` (atomically) and returns the file's path.
std::filesystem::path save_regression(const std::filesystem::path& root, const std::string& backend,
                                      const FailureRecord& failure);

}  // namespace peconform::harness
