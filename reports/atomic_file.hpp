#pragma once
#include <filesystem>
#include <string_view>

namespace peconform {

// Writes `text` to `path` whole or not at all: into a temporary file beside it, flushed and
// closed, then renamed over `path` (rename is atomic within one filesystem). Creates missing
// parent directories. Throws std::runtime_error naming the path on failure.
void write_file_atomically(const std::filesystem::path& path, std::string_view text);

}  // namespace peconform
