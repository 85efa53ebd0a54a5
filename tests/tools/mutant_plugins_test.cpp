// The corpus of buggy plugins (issue 19, label mutants): each kernel of
// tests/plugins/mutant_plugins.cpp plants one bug real kernels shipped, and `peconform run
// --plugin --profile ci --max-failures 1` must catch it with the verdict kind that bug gives,
// and its twin pass the same cases (support/mutant_corpus.hpp). tools/BENCHMARKS.md, "Buggy plugins (issue 19)", has the table this run gives.
#include <algorithm>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/mutant_corpus.hpp"
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
    {"model-inv-freq-in-its-dtype", kWrongAngle},
    {"model-angles-under-autocast", kWrongAngle},
    {"yarn-attention-factor-dropped", kWrongMagnitude},
    {"llama3-smoothing-dropped", kWrongAngle},
    {"llama3-blend-reversed", kWrongAngle},
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

// The twin runs at least a whole cycle of a rope pattern's 12 cells (4 dtypes x 3 classes) and
// the long calls of its first cycle.
const MutantCorpus kCorpus{MUTANT_PLUGINS, "mutants", "--isolate --case-timeout 2", 12};

ToolRun run(const std::string& arguments) { return run_mutant_corpus(kCorpus, arguments); }

class MutantPlugins : public ::testing::TestWithParam<Mutant> {};

TEST_P(MutantPlugins, TheCiProfileCatchesTheBugAndTheTwinPassesTheSameCases) {
  expect_caught_shrunk_and_replayed(kCorpus, GetParam());
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

TEST(MutantPluginsLibrary, EveryMutantHasARowAndATwin) {
  expect_every_kernel_a_mutant_or_its_twin(kCorpus, kMutants, "kDLCPU");
  EXPECT_GE(std::size(kMutants), 24u);
}

}  // namespace
}  // namespace peconform
