// The corpus of buggy plugins (issue 19, label mutants): each kernel of
// tests/plugins/mutant_plugins.cpp plants one bug real kernels shipped, and `peconform run
// --plugin --profile ci --max-failures 1` must catch it with the verdict kind that bug gives;
// its twin NAME.correct, with the same spec patterns and calls and the bug switched off, must
// pass the very cases the mutant ran (the same seed, patterns and calls draw the same cases)
// and the shrunk case it failed, so that the bug, not the pattern or the wrapping, is what
// fails. tools/BENCHMARKS.md, "Buggy plugins (issue 19)", has the table this run gives.
#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/scratch_dir.hpp"

namespace peconform {
namespace {

// The verifier's verdicts for a wrong value: the sign flipped where the reference is larger
// than the bound (sign), an error past the bound (numeric), a rotated pair's norm off where
// the angle is free (norm).
const std::vector<std::string> kWrongAngle = {"numeric", "sign"};
const std::vector<std::string> kWrongMagnitude = {"numeric", "norm"};
// A bug that pairs other elements breaks the NaN policy too: a NaN input (bit-pattern inputs)
// that leaves the other element of its pair finite (nan).
const std::vector<std::string> kWrongPairs = {"numeric", "sign", "nan"};

struct Mutant {
  const char* name;
  std::vector<std::string> kinds;  // the verdict kinds the bug can give; the first is the usual one
  bool isolate = false;            // crashes and hangs need a worker process
};

void PrintTo(const Mutant& mutant, std::ostream* out) { *out << mutant.name; }

const Mutant kMutants[] = {
    {"gptj-pairing-on-neox", kWrongPairs},
    {"rotation-sign-flipped", kWrongAngle},
    // The first rot dims rotated where they pass through: a pass-through dim is not its input.
    {"rot-at-last-as-first", {"mismatch"}},
    {"theta-over-d-for-partial", kWrongAngle},
    {"pass-through-via-bf16", {"mismatch"}},
    {"position-off-by-one", kWrongAngle},
    {"offset-ignored", kWrongAngle},
    {"int64-ids-read-as-int32", kWrongAngle},
    {"positions-via-float32", kWrongAngle},
    // In place, a token never touched holds its input: a wrong value.
    {"stops-after-65535-tokens", {"unwritten", "numeric", "sign"}},
    {"fp32-angle-claimed-exact", kWrongAngle},
    // cos and sin off by their bf16 rounding: the value, its norm where the angle is free, or
    // the sign of a value just past the bound.
    {"bf16-cache-claimed-fp32-angle", {"norm", "numeric", "sign"}},
    {"inv-freq-in-bf16", kWrongAngle},
    {"yarn-attention-factor-dropped", kWrongMagnitude},
    {"llama3-smoothing-dropped", kWrongAngle},
    {"dynamic-ntk-on-token-count", kWrongAngle},
    {"mrope-interleaved-as-blocked", kWrongAngle},
    {"alibi-slopes-2pow-8i-over-n", {"numeric"}},
    {"t5-distance-sign-reversed", {"mismatch"}},
    // Row 0 holds the last row's positions (a wrong value), or, where every row has the same
    // positions, row 1 is the first wrong: unwritten.
    {"batch-stride-ignored", {"numeric", "sign", "unwritten"}},
    {"gqa-keys-unrotated", kWrongPairs},
    {"write-past-end", {"out-of-bounds"}},
    {"last-element-unwritten", {"unwritten"}},
    {"input-written", {"input-modified"}},
    {"crash-on-one-shape", {"crash"}, true},
    {"hang-on-one-shape", {"hang"}, true},
};

// A kernel that hangs without --isolate would hold the test for ever: every run has a limit.
ToolRun run(const std::string& arguments) {
  return run_tool(fmt::format("timeout 600 {} run --plugin {} {}", PECONFORM_BINARY, MUTANT_PLUGINS, arguments));
}

class MutantPlugins : public ::testing::TestWithParam<Mutant> {};

TEST_P(MutantPlugins, TheCiProfileCatchesTheBugAndTheTwinPassesTheSameCases) {
  const Mutant& mutant = GetParam();
  const ScratchDir dir;
  const std::string common = fmt::format("--profile ci --no-save --no-properties --quiet --regressions {}/corpus{}",
                                         dir.path().string(), mutant.isolate ? " --isolate --case-timeout 2" : "");

  const ToolRun caught =
      run(fmt::format("--kernel {} --max-failures 1 {} --out {}/mutant", mutant.name, common, dir.path().string()));
  ASSERT_EQ(caught.exit_code, 1) << mutant.name << " was not caught by --profile ci:\n" << caught.output;
  const nlohmann::json report = nlohmann::json::parse(dir.read("mutant/report.json"));
  ASSERT_EQ(report.at("failures").size(), 1u) << caught.output;
  const nlohmann::json& failure = report.at("failures")[0];
  const std::string kind = failure.at("first_failure").at("kind");
  EXPECT_NE(std::find(mutant.kinds.begin(), mutant.kinds.end(), kind), mutant.kinds.end())
      << mutant.name << " failed as '" << kind << "', expected one of " << fmt::format("{}", mutant.kinds) << ":\n"
      << caught.output;
  const std::string replay = failure.at("replay");
  const std::string replay_prefix = fmt::format("peconform run --plugin {} --kernel {} --replay '", MUTANT_PLUGINS, mutant.name);
  EXPECT_EQ(replay.rfind(replay_prefix, 0), 0u) << replay;
  const std::uint64_t cases = failure.at("case_index");  // random cases are numbered from 1
  ASSERT_GE(cases, 1u);

  // The twin runs cases 1..cases of the same campaign, the case the mutant failed and every
  // case before it, and at least kTwinCases: a whole cycle of a rope pattern's 12 cells
  // (4 dtypes x 3 classes) and the long calls of its first cycle.
  constexpr std::uint64_t kTwinCases = 12;
  const std::string twin = fmt::format("{}.correct", mutant.name);
  const std::uint64_t twin_cases = std::max(cases, kTwinCases);
  const ToolRun passed = run(fmt::format("--kernel {} --cases {} {} --out {}/twin", twin, twin_cases, common, dir.path().string()));
  EXPECT_EQ(passed.exit_code, 0) << twin << " failed the cases " << mutant.name << " ran:\n" << passed.output;
  const nlohmann::json twin_report = nlohmann::json::parse(dir.read("twin/report.json"));
  EXPECT_EQ(twin_report.at("failures").size(), 0u);
  EXPECT_EQ(twin_report.at("run").at("cases_run"), twin_cases);

  // And the shrunk case (a hang is neither shrunk nor replayed: each run costs the timeout).
  if (kind == "hang") return;
  const std::string shrunk = failure.at("case");
  const ToolRun replayed =
      run(fmt::format("--kernel {} --replay {} {} --out {}/replay", twin, shell_quote(shrunk), common, dir.path().string()));
  EXPECT_EQ(replayed.exit_code, 0) << twin << " failed the shrunk case " << shrunk << ":\n" << replayed.output;
}

INSTANTIATE_TEST_SUITE_P(Corpus, MutantPlugins, ::testing::ValuesIn(kMutants), [](const auto& info) {
  std::string name = info.param.name;
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
});

// A worker process's kernel writes into the worker's copy of the inputs: the worker itself must
// see the change and say so, or the campaign's own copy would show none.
TEST(MutantPluginsIsolated, AWriteIntoTheInputIsCaughtInTheWorkerToo) {
  const ScratchDir dir;
  const ToolRun caught = run(fmt::format("--kernel input-written --max-failures 1 --profile ci --no-save --no-properties --quiet "
                                         "--isolate --out {}/isolated",
                                         dir.path().string()));
  ASSERT_EQ(caught.exit_code, 1) << caught.output;
  const nlohmann::json report = nlohmann::json::parse(dir.read("isolated/report.json"));
  ASSERT_EQ(report.at("failures").size(), 1u);
  EXPECT_EQ(report.at("failures")[0].at("first_failure").at("kind"), "input-modified");
}

// Every kernel of the library is a mutant of the table or its twin: a mutant added to the
// library without a row here would never be run.
TEST(MutantPluginsLibrary, EveryMutantHasARowAndATwin) {
  const ToolRun info = run_tool(fmt::format("{} plugin-info --json {} 2>/dev/null", PECONFORM_BINARY, MUTANT_PLUGINS));
  ASSERT_EQ(info.exit_code, 0) << info.output;
  const nlohmann::json json = nlohmann::json::parse(info.output);
  EXPECT_EQ(json.at("library"), "mutants");
  std::vector<std::string> declared, expected;
  for (const nlohmann::json& kernel : json.at("kernels")) {
    EXPECT_EQ(kernel.at("served"), true) << kernel.dump();
    declared.push_back(kernel.at("name"));
  }
  for (const Mutant& mutant : kMutants) {
    expected.push_back(mutant.name);
    expected.push_back(fmt::format("{}.correct", mutant.name));
  }
  std::sort(declared.begin(), declared.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(declared, expected);
  EXPECT_GE(std::size(kMutants), 24u);
}

}  // namespace
}  // namespace peconform
