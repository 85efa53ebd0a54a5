#include "support/scratch_dir.hpp"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <sys/wait.h>

namespace peconform {

ScratchDir::ScratchDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "peconform-test-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error(fmt::format("mkdtemp '{}' failed", pattern));
  path_ = pattern;
}

ScratchDir::~ScratchDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::filesystem::path ScratchDir::write(const std::string& name, std::string_view text) const {
  const std::filesystem::path file = path_ / name;
  std::ofstream(file, std::ios::binary) << text;
  return file;
}

std::string ScratchDir::read(const std::string& name) const {
  std::ifstream in(path_ / name, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

ToolRun run_tool(const std::string& command) {
  ToolRun result;
  std::FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> buffer{};
  std::size_t n = 0;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) result.output.append(buffer.data(), n);
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

std::string shell_quote(std::string_view text) {
  std::string quoted = "'";
  for (const char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

::testing::AssertionResult tool_installed(const std::filesystem::path& tool, std::string_view debian_package) {
  if (std::filesystem::exists(tool)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << tool << " is missing: install the Debian package " << debian_package
                                       << " (scripts/install-deps.sh lists it)";
}

}  // namespace peconform
