#include "harness/regression_corpus.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>

#include "harness/counter_random.hpp"
#include "reports/atomic_file.hpp"
#include "spec/spec_error.hpp"

namespace peconform::harness {
namespace {

constexpr const char* kFormat = "peconform.regression/1";

std::uint64_t text_hash(const std::string& text) {
  std::uint64_t h = 0;
  for (const unsigned char c : text) h = mix64(h ^ c);
  return h;
}

}  // namespace

std::vector<SavedRegression> load_regressions(const std::filesystem::path& root, const std::string& backend) {
  const std::filesystem::path folder = root / backend;
  std::vector<SavedRegression> out;
  if (!std::filesystem::is_directory(folder)) return out;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(folder))
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const std::filesystem::path& file : files) {
    std::ifstream in(file);
    const nlohmann::json json = nlohmann::json::parse(in, nullptr, false);
    // Compared as JSON, not through value("format", ""), which throws when "format" is not a string;
    // read with at(), which throws where operator[] of a const document has no key to read.
    if (json.is_discarded() || !json.is_object() || !json.contains("format") || json.at("format") != kFormat ||
        !json.contains("case") || !json.at("case").is_string())
      throw SpecError(fmt::format("regression file '{}' is not a {} document with a \"case\" string", file.string(), kFormat));
    out.push_back({file, json.at("case").get<std::string>()});
  }
  return out;
}

std::filesystem::path save_regression(const std::filesystem::path& root, const std::string& backend,
                                      const FailureRecord& failure) {
  const std::string family = failure.cell_family.empty() ? "case" : failure.cell_family;
  const std::filesystem::path file = root / backend / fmt::format("{}-{:016x}.json", family, text_hash(failure.case_text));
  const nlohmann::json json = {{"format", kFormat},
                               {"backend", backend},
                               {"case", failure.case_text},
                               {"found",
                                {{"seed", failure.seed},
                                 {"case_index", failure.case_index},
                                 {"original_case", failure.original_case},
                                 {"kind", failure.first.kind},
                                 {"element", failure.first.element},
                                 {"position", failure.first.position},
                                 {"reference", failure.first.reference},
                                 {"actual", failure.first.actual},
                                 {"ratio", std::isfinite(failure.first.ratio) ? nlohmann::json(failure.first.ratio) : "inf"},
                                 {"message", failure.message},
                                 {"flaky", failure.flaky}}}};
  write_file_atomically(file, json.dump(2) + "\n");
  return file;
}

}  // namespace peconform::harness
