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

// cpu, fast, exact or opencl; throws SpecError naming the unknown name and the known ones.
// `device` picks the device of a device backend (opencl: the index `peconform devices` prints).
std::unique_ptr<TensorBackend> make_backend(std::string_view name, std::optional<int> device = std::nullopt);
const std::vector<std::string>& backend_names();

}  // namespace peconform
