#include "support/mutant_corpus.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/scratch_dir.hpp"

namespace peconform {

ToolRun run_mutant_corpus(const MutantCorpus& corpus, const std::string& arguments) {
  return run_tool(fmt::format("timeout 600 {} run --plugin {} {}", PECONFORM_BINARY, corpus.plugin, arguments));
}

void expect_caught_shrunk_and_replayed(const MutantCorpus& corpus, const Mutant& mutant) {
  const ScratchDir dir;
  const std::string common = fmt::format("--profile ci --no-save --no-properties --quiet --regressions {}/corpus{}",
                                         dir.path().string(), mutant.isolate ? " " + corpus.isolate_options : "");
  auto run = [&](const std::string& kernel, const std::string& arguments, const std::string& out) {
    return run_mutant_corpus(corpus, fmt::format("--kernel {} {} {} --out {}/{}", kernel, arguments, common, dir.path().string(), out));
  };

  const ToolRun caught = run(mutant.name, "--max-failures 1", "mutant");
  ASSERT_EQ(caught.exit_code, 1) << mutant.name << " was not caught by --profile ci:\n" << caught.output;
  const nlohmann::json report = nlohmann::json::parse(dir.read("mutant/report.json"));
  ASSERT_EQ(report.at("failures").size(), 1u) << caught.output;
  const nlohmann::json& failure = report.at("failures")[0];
  const std::string kind = failure.at("first_failure").at("kind");
  EXPECT_NE(std::find(mutant.kinds.begin(), mutant.kinds.end(), kind), mutant.kinds.end())
      << mutant.name << " failed as '" << kind << "', expected one of " << fmt::format("{}", mutant.kinds) << ":\n"
      << caught.output;
  const std::string replay = failure.at("replay");
  const std::string replay_prefix = fmt::format("peconform run --plugin {} --kernel {} --replay '", corpus.plugin, mutant.name);
  EXPECT_EQ(replay.rfind(replay_prefix, 0), 0u) << replay;
  const std::uint64_t cases = failure.at("case_index");  // random cases are numbered from 1
  ASSERT_GE(cases, 1u);

  // The twin runs cases 1..cases of the same campaign: the case the mutant failed and every case
  // before it, and at least a whole cycle of the cells.
  const std::string twin = fmt::format("{}.correct", mutant.name);
  const std::uint64_t twin_cases = std::max(cases, corpus.twin_cases);
  const ToolRun passed = run(twin, fmt::format("--cases {}", twin_cases), "twin");
  EXPECT_EQ(passed.exit_code, 0) << twin << " failed the cases " << mutant.name << " ran:\n" << passed.output;
  const nlohmann::json twin_report = nlohmann::json::parse(dir.read("twin/report.json"));
  EXPECT_EQ(twin_report.at("failures").size(), 0u);
  EXPECT_EQ(twin_report.at("run").at("cases_run"), twin_cases);

  if (kind == "hang") return;
  const std::string shrunk = failure.at("case");
  const std::string replay_shrunk = fmt::format("--replay {}", shell_quote(shrunk));
  const ToolRun replayed_mutant = run(mutant.name, replay_shrunk, "replay-mutant");
  EXPECT_EQ(replayed_mutant.exit_code, 1) << mutant.name << " passed its own shrunk case " << shrunk << ":\n" << replayed_mutant.output;
  const ToolRun replayed = run(twin, replay_shrunk, "replay");
  EXPECT_EQ(replayed.exit_code, 0) << twin << " failed the shrunk case " << shrunk << ":\n" << replayed.output;
}

void expect_every_kernel_a_mutant_or_its_twin(const MutantCorpus& corpus, std::span<const Mutant> mutants,
                                              const std::string& device) {
  const ToolRun info = run_tool(fmt::format("{} plugin-info --json {} 2>/dev/null", PECONFORM_BINARY, corpus.plugin));
  ASSERT_EQ(info.exit_code, 0) << info.output;
  const nlohmann::json json = nlohmann::json::parse(info.output);
  EXPECT_EQ(json.at("library"), corpus.library);
  std::vector<std::string> declared, expected;
  for (const nlohmann::json& kernel : json.at("kernels")) {
    EXPECT_EQ(kernel.at("served"), true) << kernel.dump();
    EXPECT_EQ(kernel.at("device"), device) << kernel.dump();
    declared.push_back(kernel.at("name"));
  }
  for (const Mutant& mutant : mutants) {
    expected.push_back(mutant.name);
    expected.push_back(fmt::format("{}.correct", mutant.name));
  }
  std::sort(declared.begin(), declared.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(declared, expected);
}

}  // namespace peconform
