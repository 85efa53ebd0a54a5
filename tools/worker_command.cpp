// peconform worker: the child side of `peconform run --isolate`. Serves kernel calls from
// standard input to standard output until the campaign closes the pipe; not for people.
#include "backends/backend_registry.hpp"
#include "backends/plugin/plugin_tensor_backend.hpp"
#include "harness/isolated_backend.hpp"
#include "tools/commands.hpp"

namespace peconform {

void add_worker_command(CLI::App& app) {
  auto backend = std::make_shared<std::string>("cpu");
  auto plugin = std::make_shared<std::string>();
  auto kernel = std::make_shared<std::string>();
  auto device = std::make_shared<std::optional<int>>();
  CLI::App* command = app.add_subcommand("worker", "Serve kernel calls for `run --isolate` (internal)");
  command->group("");  // not listed in --help
  command->add_option("--backend", *backend, "The backend whose kernels to run");
  command->add_option("--plugin", *plugin, "The plugin library whose kernel to run, instead");
  command->add_option("--kernel", *kernel, "With --plugin: the kernel");
  command->add_option("--device", *device, "With --backend opencl or a device kernel's --plugin: the device index");
  command->callback([backend, plugin, kernel, device] {
    std::unique_ptr<TensorBackend> served;
    if (plugin->empty()) {
      served = make_backend(*backend, *device);
    } else {
      const auto library = plugin::PluginLibrary::load(*plugin);
      served = plugin::make_plugin_tensor_backend(library, library->index_of(*kernel), *device);
    }
    std::exit(harness::serve_worker(*served));
  });
}

}  // namespace peconform
