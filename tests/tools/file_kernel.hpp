#pragma once
// The far end of the tensor-file route, for tests: a kernel that knows only the files. It reads
// each exported case's manifest entry and .npy inputs (never the case string), runs a backend's
// kernel on plain contiguous buffers made from them and writes the outputs the manifest names.
#include <filesystem>

#include "backends/tensor_backend.hpp"

namespace peconform::testing {

void run_kernel_on_files(const TensorBackend& kernel, const std::filesystem::path& folder);

}  // namespace peconform::testing
