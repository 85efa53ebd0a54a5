// peconform plugin-info PATH [--json]: what a kernel library declares through the C ABI, and
// for each kernel peconform refuses, why. Exit 0 when every kernel is served, 2 otherwise.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "backends/plugin/device_memory.hpp"
#include "backends/plugin/plugin_library.hpp"
#include "backends/plugin/plugin_tensor_backend.hpp"
#include "harness/case_generator.hpp"
#include "spec/spec_error.hpp"
#include "tools/commands.hpp"

namespace peconform {
namespace {

std::vector<std::string> calls_taken(std::uint32_t takes) {
  const std::pair<std::uint32_t, const char*> flags[] = {
      {PEC_TAKES_OUT_OF_PLACE, "out-of-place"}, {PEC_TAKES_IN_PLACE, "in-place"}, {PEC_TAKES_IDS32, "int32-ids"},
      {PEC_TAKES_IDS64, "int64-ids"},           {PEC_TAKES_STRIDED, "strided"},   {PEC_TAKES_KEY_OPERAND, "key-operand"}};
  std::vector<std::string> out;
  for (const auto& [bit, name] : flags)
    if ((takes & bit) != 0) out.emplace_back(name);
  return out;
}

// Why peconform refuses kernel `index`: its declaration, its device (none here, or no driver),
// or a pattern the campaign cannot draw from, checked as `run --plugin` checks it.
std::string refusal(const std::shared_ptr<const plugin::PluginLibrary>& library, std::size_t index) {
  const plugin::KernelDeclaration& kernel = library->kernels()[index];
  if (!kernel.served()) return kernel.refusal;
  try {
    return harness::backend_problem(*plugin::make_plugin_tensor_backend(library, index));
  } catch (const SpecError& error) {
    return error.what();
  }
}

void show(const std::string& path, bool json) {
  const std::shared_ptr<const plugin::PluginLibrary> library = plugin::PluginLibrary::load(path);
  nlohmann::json kernels = nlohmann::json::array();
  std::size_t refused = 0;
  for (std::size_t index = 0; index < library->kernels().size(); ++index) {
    const plugin::KernelDeclaration& kernel = library->kernels()[index];
    const std::string why = refusal(library, index);
    refused += why.empty() ? 0 : 1;
    kernels.push_back({{"name", kernel.name},
                       {"spec_patterns", kernel.spec_patterns},
                       {"device_type", kernel.device_type},
                       {"device", plugin::device_type_name(kernel.device_type)},
                       {"takes", calls_taken(kernel.takes)},
                       {"largest_call_elements", kernel.largest_call_elements},
                       {"served", why.empty()},
                       {"refusal", why}});
  }
  if (json) {
    const nlohmann::json out = {{"plugin", path},
                                {"library", library->name()},
                                {"abi_version", PECONFORM_ABI_VERSION},
                                {"kernels", kernels}};
    fmt::print("{}\n", out.dump(2));
  } else {
    fmt::print("plugin {}: library '{}', ABI version {}, {} kernel(s)\n", path, library->name(), PECONFORM_ABI_VERSION,
               kernels.size());
    for (const nlohmann::json& k : kernels) {
      fmt::print("  {}: {}\n", k["name"].get<std::string>(),
                 k["served"].get<bool>() ? "served" : "REFUSED: " + k["refusal"].get<std::string>());
      fmt::print("    specs: {}\n", k["spec_patterns"].get<std::string>());
      const std::int64_t largest = k["largest_call_elements"];
      fmt::print("    device {} ({}); takes {}; largest call {}\n", k["device"].get<std::string>(), k["device_type"].get<int>(),
                 fmt::join(k["takes"].get<std::vector<std::string>>(), ", "),
                 largest == 0 ? std::string("unlimited") : fmt::format("{} elements", largest));
    }
  }
  if (refused > 0)
    throw SpecError(fmt::format("plugin '{}': {} of {} kernel(s) refused (reasons above)", path, refused, kernels.size()));
}

}  // namespace

void add_plugin_info_command(CLI::App& app) {
  auto path = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  CLI::App* command = app.add_subcommand("plugin-info", "List what a kernel library declares, and why any kernel is refused");
  command->add_option("plugin", *path, "The shared library (.so) that exports peconform_plugin_v1")->required();
  command->add_flag("--json", *json, "Print JSON instead of text");
  command->callback([path, json] { show(*path, *json); });
}

}  // namespace peconform
