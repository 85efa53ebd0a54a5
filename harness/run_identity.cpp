#include "harness/run_identity.hpp"

#include <array>
#include <cstdio>
#include <fmt/format.h>
#include <fstream>
#include <thread>

namespace peconform::harness {

std::string source_commit() {
  const std::string command = fmt::format("git -C '{}' rev-parse HEAD 2>/dev/null", PECONFORM_SOURCE_DIR);
  std::FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return "unknown";
  std::array<char, 64> buffer{};
  std::string out;
  while (std::fgets(buffer.data(), buffer.size(), pipe) != nullptr) out += buffer.data();
  pclose(pipe);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out.size() == 40 ? out : "unknown";
}

std::string machine_summary() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line, model = "unknown CPU";
  while (std::getline(cpuinfo, line))
    if (line.starts_with("model name")) {
      model = line.substr(line.find(':') + 2);
      break;
    }
  return fmt::format("{}, {} logical cores", model, std::thread::hardware_concurrency());
}

std::string compiler_summary() {
#if defined(__clang__)
  return fmt::format("clang {}", __clang_version__);
#elif defined(__GNUC__)
  return fmt::format("GCC {}", __VERSION__);
#else
  return "unknown compiler";
#endif
}

}  // namespace peconform::harness
