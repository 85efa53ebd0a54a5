// peconform properties --plugin LIB [--kernel NAME] [--seed N] [--cases N] [--json]: the
// catalog's properties that need only the implementation, run on a library's variant kernels
// (include/peconform/variant_abi.h; properties/README.md, "Variants without a Spec"). Exit 0
// when no property failed, 1 when one did, 2 for a library or declaration peconform cannot read.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "backends/plugin/variant_plugin_library.hpp"
#include "tools/commands.hpp"
#include "tools/exit_codes.hpp"

namespace peconform {
namespace {

struct PropertiesOptions {
  std::string plugin, kernel;
  std::uint64_t seed = VariantRunOptions{}.seed;
  int cases = VariantRunOptions{}.cases;
  bool json = false;
};

nlohmann::json result_json(const VariantPropertyResult& result) {
  return {{"property", result.name},           {"relation", result.relation},
          {"scope", result.scope},
          {"verdict", std::string(variant_verdict_name(result.verdict))},
          {"reason", result.reason},           {"counterexample", result.counterexample},
          {"seed", result.seed},               {"cases", result.cases},
          {"unconstrained_cases", result.unconstrained_cases}};
}

void run_properties(const PropertiesOptions& options) {
  const auto library = plugin::VariantPluginLibrary::load(options.plugin);
  const std::vector<plugin::VariantPluginKernel> kernels =
      options.kernel.empty() ? library->kernels() : std::vector<plugin::VariantPluginKernel>{library->kernel(options.kernel)};
  nlohmann::json out = nlohmann::json::array();
  std::size_t failed = 0;
  for (const plugin::VariantPluginKernel& kernel : kernels) {
    const std::vector<VariantPropertyResult> results =
        run_variant_properties(kernel, kernel.declaration(), {options.seed, options.cases});
    nlohmann::json properties = nlohmann::json::array();
    if (!options.json) fmt::print("{} {}\n", kernel.name(), variant_text(kernel.declaration()));
    for (const VariantPropertyResult& result : results) {
      failed += result.verdict == VariantVerdict::failed ? 1 : 0;
      properties.push_back(result_json(result));
      if (options.json) continue;
      fmt::print("  {}: {} ({})\n", result.name, variant_verdict_name(result.verdict), result.relation);
      if (!result.scope.empty()) fmt::print("    checked over {}\n", result.scope);
      if (result.verdict == VariantVerdict::held || result.verdict == VariantVerdict::not_constrained)
        fmt::print("    {} cases, seed {}{}\n", result.cases, result.seed,
                   result.unconstrained_cases > 0 ? fmt::format(", {} with unconstrained elements", result.unconstrained_cases) : "");
      if (!result.reason.empty()) fmt::print("    {}\n", result.reason);
      std::string indented = "    " + result.counterexample;
      for (std::size_t at = indented.find('\n'); at != std::string::npos; at = indented.find('\n', at + 1)) indented.insert(at + 1, "    ");
      if (!result.counterexample.empty()) fmt::print("{}\n", indented);
    }
    out.push_back({{"kernel", kernel.name()}, {"variant", variant_text(kernel.declaration())}, {"properties", properties}});
  }
  if (options.json) fmt::print("{}\n", nlohmann::json{{"plugin", options.plugin}, {"library", library->name()}, {"kernels", out}}.dump(2));
  if (failed > 0) throw CheckFailed(fmt::format("{} propert{} failed on the variants of '{}'", failed, failed == 1 ? "y" : "ies", options.plugin));
}

}  // namespace

void add_properties_command(CLI::App& app) {
  auto options = std::make_shared<PropertiesOptions>();
  CLI::App* command =
      app.add_subcommand("properties", "Run the properties that need only the implementation on a library's variant kernels");
  command->add_option("--plugin", options->plugin, "The shared library (.so) that exports peconform_variants_v1")->required();
  command->add_option("--kernel", options->kernel, "Only this variant kernel (default: every one the library declares)");
  command->add_option("--seed", options->seed, "The run's seed; each property mixes it with its name");
  command->add_option("--cases", options->cases, "Cases per property")->check(CLI::Range(1, 100000000));
  command->add_flag("--json", options->json, "Print JSON instead of text");
  command->callback([options] { run_properties(*options); });
}

}  // namespace peconform
