// `peconform plugin-info` and `peconform run --plugin` end to end.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/scratch_dir.hpp"

namespace peconform {
namespace {

ToolRun run(const std::string& arguments) { return run_tool(fmt::format("{} {}", PECONFORM_BINARY, arguments)); }

void expect_contains(const std::string& text, const std::string& needle) {
  EXPECT_NE(text.find(needle), std::string::npos) << "in: " << text << "\nmissing: " << needle;
}

TEST(PluginCli, PluginInfoListsEveryKernelAndExitsTwoWhenOneIsRefused) {
  const ToolRun result = run(fmt::format("plugin-info {}", DECLARATIONS_PLUGIN));
  EXPECT_EQ(result.exit_code, 2) << result.output;
  expect_contains(result.output, "library 'declarations', ABI version 1, 14 kernel(s)");
  expect_contains(result.output, "served: served");
  expect_contains(result.output, "unknown-key: REFUSED: pattern 'rope(d=64,flavour=spicy)': unknown key 'flavour'");
  // The campaign's own check: a recipe only fp32-angle has, under a class left free.
  expect_contains(result.output, "class-without-recipe: REFUSED: pattern 'rope(d=64,precision=*,theta=hf)' made no valid fp32 exact-angle spec");
  expect_contains(result.output, "no-spec: REFUSED: pattern 'rope(layout=half)' made no valid");
  expect_contains(result.output, "11 of 14 kernel(s) refused");
}

TEST(PluginCli, PluginInfoJsonSaysWhichKernelsAreServed) {
  const ToolRun result = run(fmt::format("plugin-info --json {} 2>/dev/null", CPU_PLUGIN));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const nlohmann::json json = nlohmann::json::parse(result.output);
  EXPECT_EQ(json.at("library"), "peconform-cpu");
  ASSERT_EQ(json.at("kernels").size(), 1u);
  EXPECT_EQ(json.at("kernels")[0].at("name"), "cpu");
  EXPECT_EQ(json.at("kernels")[0].at("served"), true);
  EXPECT_EQ(json.at("kernels")[0].at("takes").size(), 6u);
}

TEST(PluginCli, BadPluginsAndKernelsAreBadInput) {
  const std::pair<std::string, std::string> cases[] = {
      {fmt::format("run --plugin {}", OTHER_ABI_PLUGIN), "built against peconform ABI version 99; this peconform speaks version 1"},
      {fmt::format("run --plugin {} --kernel unknown-key", DECLARATIONS_PLUGIN), "kernel 'unknown-key' is refused: pattern"},
      {fmt::format("run --plugin {} --kernel nope", DECLARATIONS_PLUGIN), "declares no kernel 'nope'"},
      {fmt::format("run --plugin {}", DECLARATIONS_PLUGIN), "kernel 'unknown-key' is refused"},
      {"run --plugin /nonexistent/libx.so", "cannot load plugin '/nonexistent/libx.so'"},
      {"run --kernel cpu", "--kernel names a kernel of a plugin"},
      {fmt::format("run --backend cpu --plugin {}", CPU_PLUGIN), "--backend excludes --plugin"},
  };
  for (const auto& [arguments, message] : cases) {
    const ToolRun result = run(arguments);
    EXPECT_EQ(result.exit_code, 2) << arguments << "\n" << result.output;
    expect_contains(result.output, message);
  }
}

// A kernel that refuses every call gets "refused" verdicts, each with a replay line that names
// the plugin and the kernel.
TEST(PluginCli, ARefusedCallIsARefusalVerdictWithAReplayLine) {
  const ScratchDir dir;
  const ToolRun result = run(fmt::format("run --plugin {} --kernel served --profile smoke --cases 3 --no-properties --quiet "
                                         "--regressions {}/corpus --out {}/out",
                                         DECLARATIONS_PLUGIN, dir.path().string(), dir.path().string()));
  EXPECT_EQ(result.exit_code, 1) << result.output;
  const nlohmann::json report = nlohmann::json::parse(dir.read("out/report.json"));
  ASSERT_EQ(report.at("failures").size(), 3u);
  for (const nlohmann::json& failure : report.at("failures")) {
    EXPECT_EQ(failure.at("first_failure").at("kind"), "refused");
    expect_contains(failure.at("message"), "kernel 'served' refused the call");
    expect_contains(failure.at("replay"), fmt::format("peconform run --plugin {} --kernel served --replay 'rope(d=64", DECLARATIONS_PLUGIN));
  }
  // Saved under the library's and the kernel's names.
  EXPECT_TRUE(std::filesystem::is_directory(dir.path() / "corpus" / "declarations" / "served"));
}

// A kernel that returns PEC_FAILED gets "error" verdicts carrying its own message; a status that
// is none of the ABI's three is named with its number (issue 38: a mutant that sent PEC_FAILED
// down the unknown-status path survived).
TEST(PluginCli, AFailedCallIsAnErrorVerdictWithTheKernelsMessage) {
  const std::pair<const char*, std::string> kernels[] = {
      {"fails", "kernel 'fails' failed: the device was lost"},
      {"unknown-status", "kernel 'unknown-status' returned status -7, which is none of PEC_OK, PEC_REFUSED, PEC_FAILED (status minus seven)"},
  };
  for (const auto& [kernel, message] : kernels) {
    const ScratchDir dir;
    const ToolRun result = run(fmt::format("run --plugin {} --kernel {} --profile smoke --cases 2 --no-properties --quiet "
                                           "--regressions {}/corpus --out {}/out",
                                           DECLARATIONS_PLUGIN, kernel, dir.path().string(), dir.path().string()));
    EXPECT_EQ(result.exit_code, 1) << result.output;
    const nlohmann::json report = nlohmann::json::parse(dir.read("out/report.json"));
    ASSERT_EQ(report.at("failures").size(), 2u) << kernel;
    for (const nlohmann::json& failure : report.at("failures")) expect_contains(failure.at("message"), message);
  }
}

// A replay line is a command to paste: a plugin path with a space in it is quoted.
TEST(PluginCli, TheReplayLineQuotesAPluginPathThatNeedsIt) {
  const ScratchDir dir;
  const std::filesystem::path spaced = dir.path() / "my kernels" / "lib's.so";
  std::filesystem::create_directories(spaced.parent_path());
  std::filesystem::copy_file(DECLARATIONS_PLUGIN, spaced);
  const ToolRun result = run(fmt::format("run --plugin {} --kernel served --cases 1 --no-properties --no-save --quiet --out {}/out",
                                         shell_quote(spaced.string()), dir.path().string()));
  EXPECT_EQ(result.exit_code, 1) << result.output;
  const nlohmann::json report = nlohmann::json::parse(dir.read("out/report.json"));
  ASSERT_EQ(report.at("failures").size(), 1u);
  const std::string replay = report.at("failures")[0].at("replay");
  expect_contains(replay, fmt::format("peconform run --plugin {} --kernel served --replay '", shell_quote(spaced.string())));
}

// The ABI carries every family, dtype, layout, plan and call shape the campaign draws: our CPU
// kernels through it give, on the same seed, the cells and verdicts `--backend cpu` gives. The
// smoke profile's 400 cases reach every cell at small shapes (11 M elements, 8 s a run); the ci
// profile's long calls add size, not kinds of call, and took 145 s of CI here.
TEST(PluginCli, TheCpuPluginMatchesTheCpuBackendOverManyCases) {
  const ScratchDir dir;
  const std::string common = "--profile smoke --cases 400 --seed 42 --no-save --no-properties --quiet --threads 2";
  const ToolRun backend = run(fmt::format("run --backend cpu {} --out {}/cpu", common, dir.path().string()));
  ASSERT_EQ(backend.exit_code, 0) << backend.output;
  const ToolRun plugin = run(fmt::format("run --plugin {} {} --out {}/plugin", CPU_PLUGIN, common, dir.path().string()));
  ASSERT_EQ(plugin.exit_code, 0) << plugin.output;
  const nlohmann::json expected = nlohmann::json::parse(dir.read("cpu/report.json"));
  const nlohmann::json actual = nlohmann::json::parse(dir.read("plugin/report.json"));
  EXPECT_EQ(actual.at("run").at("backend"), "plugin:peconform-cpu");
  EXPECT_EQ(actual.at("cells").size(), expected.at("cells").size());
  EXPECT_EQ(actual.at("cells"), expected.at("cells"));
  EXPECT_EQ(actual.at("failures"), expected.at("failures"));
  EXPECT_EQ(actual.at("total_elements"), expected.at("total_elements"));
}

}  // namespace
}  // namespace peconform
