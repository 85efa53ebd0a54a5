#include "backends/backend_registry.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "backends/cpu/cpu_tensor_backend.hpp"
#include "backends/cuda/cuda_tensor_backend.hpp"
#include "backends/opencl/opencl_tensor_backend.hpp"
#include "backends/reference_tensor_backend.hpp"
#include "backends/reference_tiers.hpp"
#include "spec/spec_error.hpp"

namespace peconform {

const std::vector<std::string>& backend_names() {
  static const std::vector<std::string> names{"cpu", "fast", "exact", "opencl", "cuda"};
  return names;
}

std::unique_ptr<TensorBackend> make_backend(std::string_view name, std::optional<int> device) {
  // The tiers' call sizes keep one call near a second: binary128 costs about a microsecond
  // per element, MPFR about twenty.
  if (name == "opencl") return opencl::make_opencl_tensor_backend(device);
  if (name == "cuda") return cuda::make_cuda_tensor_backend(device);
  if (device && std::find(backend_names().begin(), backend_names().end(), name) != backend_names().end())
    throw SpecError(fmt::format("device {} was given, but backend '{}' runs on the host; --device is for opencl and cuda", *device, name));
  if (name == "cpu") return cpu::make_cpu_tensor_backend();
  if (name == "fast") return make_reference_tensor_backend("fast", fast_tier(), std::int64_t{1} << 15);
  if (name == "exact") return make_reference_tensor_backend("exact", exact_tier(), std::int64_t{1} << 11);
  throw SpecError(fmt::format("unknown backend '{}'; expected one of {}", name, fmt::join(backend_names(), ", ")));
}

}  // namespace peconform
