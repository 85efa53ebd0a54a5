#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <string>
#include <vector>

#include "spec/spec_error.hpp"
#include "tools/commands.hpp"
#include "tools/exit_codes.hpp"
#include "tools/wait_policy.hpp"

int main(int argc, char** argv) {
  peconform::wait_passively_in_campaigns(argc, argv);
  CLI::App app{"peconform: conformance suite for positional-encoding kernels"};
  app.require_subcommand(1);
  peconform::add_list_command(app);
  peconform::add_reference_command(app);
  peconform::add_selfcheck_command(app);
  peconform::add_bench_command(app);
  peconform::add_run_command(app);
  peconform::add_merge_command(app);
  peconform::add_worker_command(app);
  peconform::add_plugin_info_command(app);
  peconform::add_devices_command(app);
  peconform::add_cases_command(app);
  peconform::add_properties_command(app);
  try {
    if (argc > 1 && argv[1][0] != '-') {
      const std::string name = argv[1];
      std::vector<std::string> known;
      for (const CLI::App* command : app.get_subcommands({})) known.push_back(command->get_name());
      if (std::find(known.begin(), known.end(), name) == known.end())
        throw peconform::SpecError(fmt::format("unknown command '{}'; expected one of {}", name, fmt::join(known, ", ")));
    }
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::fputs(app.help().c_str(), stdout);
    return peconform::kExitOk;
  } catch (const CLI::CallForAllHelp&) {
    std::fputs(app.help("", CLI::AppFormatMode::All).c_str(), stdout);
    return peconform::kExitOk;
  } catch (const CLI::ParseError& error) {
    fmt::print(stderr, "peconform: error: {}\nRun 'peconform --help' for usage.\n", error.what());
    return peconform::kExitBadInput;
  } catch (const peconform::SpecError& error) {
    fmt::print(stderr, "peconform: error: {}\n", error.what());
    return peconform::kExitBadInput;
  } catch (const peconform::CheckFailed& failed) {
    fmt::print(stderr, "peconform: {}\n", failed.what());
    return peconform::kExitCheckFailed;
  } catch (const std::exception& error) {
    fmt::print(stderr, "peconform: error: {}\n", error.what());
    return peconform::kExitInternal;
  }
  return peconform::kExitOk;
}
