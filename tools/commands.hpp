#pragma once
// Each peconform subcommand registers itself on the app; main() owns error handling
// (SpecError and bad options: exit 2; failed checks: exit 1).
#include <CLI/CLI.hpp>

namespace peconform {

void add_list_command(CLI::App& app);
void add_reference_command(CLI::App& app);
void add_selfcheck_command(CLI::App& app);
void add_bench_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_merge_command(CLI::App& app);
void add_worker_command(CLI::App& app);
void add_plugin_info_command(CLI::App& app);
void add_devices_command(CLI::App& app);
void add_cases_command(CLI::App& app);
void add_properties_command(CLI::App& app);

}  // namespace peconform
