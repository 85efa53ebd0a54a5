#pragma once
// The backends `--backend` names, each made from its adapter. Plugins, Python and GPU backends
// register here as they land.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backends/tensor_backend.hpp"

namespace peconform {

// cpu, fast, exact, opencl or cuda; throws SpecError naming the unknown name and the known ones
// (opencl, cuda: naming what is missing where they cannot run). `device` picks the device of a
// device backend: opencl's index as `peconform devices` prints it, cuda's CUDA device index.
std::unique_ptr<TensorBackend> make_backend(std::string_view name, std::optional<int> device = std::nullopt);
const std::vector<std::string>& backend_names();

}  // namespace peconform
