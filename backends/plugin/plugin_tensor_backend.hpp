#pragma once
// One kernel of a plugin library as a tensor backend: each call crosses the C ABI as DLPack
// tensors over the call's own buffers, guards and padding in place around them, so that the
// campaign judges a plugin's writes exactly as it judges our own kernels'.
#include <cstddef>
#include <memory>

#include "backends/plugin/plugin_library.hpp"
#include "backends/tensor_backend.hpp"

namespace peconform::plugin {

// The backend of `library`'s kernel `kernel`, which must be served (KernelDeclaration::served).
// Its name is the kernel's name; it keeps the library loaded.
std::unique_ptr<TensorBackend> make_plugin_tensor_backend(std::shared_ptr<const PluginLibrary> library, std::size_t kernel);

}  // namespace peconform::plugin
