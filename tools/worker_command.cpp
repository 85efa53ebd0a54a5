// peconform worker: the child side of `peconform run --isolate`. Serves kernel calls from
// standard input to standard output until the campaign closes the pipe; not for people.
#include "backends/backend_registry.hpp"
#include "harness/isolated_backend.hpp"
#include "tools/commands.hpp"

namespace peconform {

void add_worker_command(CLI::App& app) {
  auto backend = std::make_shared<std::string>("cpu");
  CLI::App* command = app.add_subcommand("worker", "Serve kernel calls for `run --isolate` (internal)");
  command->group("");  // not listed in --help
  command->add_option("--backend", *backend, "The backend whose kernels to run");
  command->callback([backend] {
    const std::unique_ptr<TensorBackend> served = make_backend(*backend);
    std::exit(harness::serve_worker(*served));
  });
}

}  // namespace peconform
