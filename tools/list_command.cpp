#include <fmt/format.h>

#include "tools/commands.hpp"
#include "tools/family_examples.hpp"

namespace peconform {

void add_list_command(CLI::App& app) {
  CLI::App* command = app.add_subcommand("list", "Print every family with a spec that works");
  command->callback([] {
    for (const FamilyExample& example : kFamilyExamples)
      fmt::print("{:<11} {:<52} {}\n", example.family, example.spec, example.what);
  });
}

}  // namespace peconform
