#pragma once
// One kernel of a plugin library as a tensor backend: each call crosses the C ABI as DLPack
// tensors over the call's own buffers, guards and padding in place around them, so that the
// campaign judges a plugin's writes exactly as it judges our own kernels'. A device kernel's
// buffers are copied whole to its device and back (device_memory.hpp).
#include <cstddef>
#include <memory>
#include <optional>

#include "backends/plugin/plugin_library.hpp"
#include "backends/tensor_backend.hpp"

namespace peconform::plugin {

// The backend of `library`'s kernel `kernel`, which must be served (KernelDeclaration::served).
// Its name is the kernel's name; it keeps the library loaded. A device kernel's device is opened
// here: `device` (--device) picks it as open_device_memory does, and a missing device or driver
// throws SpecError naming it and the kernel.
std::unique_ptr<TensorBackend> make_plugin_tensor_backend(std::shared_ptr<const PluginLibrary> library, std::size_t kernel,
                                                          std::optional<int> device = std::nullopt);

}  // namespace peconform::plugin
