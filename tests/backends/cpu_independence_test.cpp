// The CPU backend is a second, independent version of every scheme (issue 10): its kernels and
// plans compute frequencies, attention factors, slopes, sections and buckets themselves, so that
// the Cpu properties compare two readings of each definition. This test holds the rule: no file
// of backends/cpu includes reference/ or names peconform::Reference.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

namespace {

TEST(CpuIndependence, NoBackendFileUsesTheReference) {
  const std::filesystem::path directory = PECONFORM_CPU_BACKEND_DIR;
  ASSERT_TRUE(std::filesystem::is_directory(directory)) << directory;
  const std::regex include_reference(R"(#\s*include\s*["<]reference/)");
  const std::regex reference_type(R"(\bReference\s*<|peconform::Reference\b)");
  std::vector<std::string> violations;
  int scanned = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(directory)) {
    const std::string extension = entry.path().extension().string();
    if (!entry.is_regular_file() || (extension != ".cpp" && extension != ".hpp")) continue;
    ++scanned;
    std::ifstream file(entry.path());
    std::string line;
    for (int number = 1; std::getline(file, line); ++number)
      if (std::regex_search(line, include_reference) || std::regex_search(line, reference_type))
        violations.push_back(entry.path().string() + ":" + std::to_string(number) + ": " + line);
  }
  EXPECT_GT(scanned, 10) << "too few sources under " << directory;
  for (const std::string& violation : violations) ADD_FAILURE() << "backends/cpu uses the reference: " << violation;
}

}  // namespace
