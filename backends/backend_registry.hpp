#pragma once
// The backends `--backend` names, each made from its adapter. Plugins, Python and GPU backends
// register here as they land.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "backends/tensor_backend.hpp"

namespace peconform {

// cpu, fast, exact or cuda; throws SpecError naming the unknown name and the known ones (cuda:
// naming what is missing where it cannot run).
std::unique_ptr<TensorBackend> make_backend(std::string_view name);
const std::vector<std::string>& backend_names();

}  // namespace peconform
