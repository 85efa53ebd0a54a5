#include "reports/atomic_file.hpp"

#include <cstdio>
#include <fmt/format.h>
#include <stdexcept>
#include <unistd.h>

namespace peconform {

void write_file_atomically(const std::filesystem::path& path, std::string_view text) {
  const std::filesystem::path parent = path.parent_path().empty() ? "." : path.parent_path();
  std::error_code ignored;
  std::filesystem::create_directories(parent, ignored);
  const std::filesystem::path temporary = parent / fmt::format(".{}.{}.partial", path.filename().string(), getpid());
  std::FILE* file = std::fopen(temporary.c_str(), "wb");
  if (file == nullptr) throw std::runtime_error(fmt::format("cannot write '{}'", temporary.string()));
  const bool written = std::fwrite(text.data(), 1, text.size(), file) == text.size() && std::fflush(file) == 0 &&
                       fsync(fileno(file)) == 0;
  const bool closed = std::fclose(file) == 0;
  if (!written || !closed) {
    std::filesystem::remove(temporary, ignored);
    throw std::runtime_error(fmt::format("cannot write '{}'", path.string()));
  }
  std::filesystem::rename(temporary, path);
}

}  // namespace peconform
