#pragma once
// A private temporary directory for a test, and running commands in it: the peconform binary,
// and the external tools (xmllint, Python's jsonschema, headless Chromium) that check the
// reports. Each test gets its own directory from mkdtemp, so parallel ctest runs never share a
// file.
#include <filesystem>
#include <gtest/gtest.h>
#include <string>
#include <string_view>

namespace peconform {

class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path write(const std::string& name, std::string_view text) const;
  std::string read(const std::string& name) const;

 private:
  std::filesystem::path path_;
};

struct ToolRun {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

ToolRun run_tool(const std::string& command);
// For a shell command line: `text` in single quotes.
std::string shell_quote(std::string_view text);
// CI installs every tool the report tests use, so a missing one fails the test instead of
// skipping it: a skipped check would let a broken report through.
::testing::AssertionResult tool_installed(const std::filesystem::path& tool, std::string_view debian_package);

}  // namespace peconform
