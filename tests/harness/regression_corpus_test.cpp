// The regression corpus: what save_regression writes, load_regressions reads back; a file that
// is not a peconform.regression/1 document is refused with a SpecError naming it.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "harness/regression_corpus.hpp"
#include "spec/spec_error.hpp"
#include "support/scratch_dir.hpp"

namespace peconform::harness {
namespace {

const char* const kRopeCase = "rope(d=8,base=10000,layout=half) | batch=1 seq=4 heads=1 kv_heads=0 seed=0x0000000000000001";

TEST(RegressionCorpus, LoadsWhatItSaved) {
  const ScratchDir scratch;
  FailureRecord failure;
  failure.case_text = kRopeCase;
  failure.cell_family = "rope";
  failure.first.kind = "numeric";
  const std::filesystem::path file = save_regression(scratch.path(), "cpu", failure);
  const std::vector<SavedRegression> saved = load_regressions(scratch.path(), "cpu");
  ASSERT_EQ(saved.size(), 1u);
  EXPECT_EQ(saved[0].file, file);
  EXPECT_EQ(saved[0].case_text, failure.case_text);
  EXPECT_TRUE(load_regressions(scratch.path(), "exact").empty());
}

// A corpus folder is also where people keep notes: only its *.json files are regressions, read in
// the order of their names, so that a replay's order never depends on the file system.
TEST(RegressionCorpus, ReadsOnlyItsJsonFilesInNameOrder) {
  const ScratchDir scratch;
  std::vector<std::filesystem::path> files;
  for (const char* seed : {"0x0000000000000001", "0x0000000000000002", "0x0000000000000003"}) {
    FailureRecord failure;
    failure.case_text = std::string("rope(d=8,base=10000,layout=half) | batch=1 seq=4 heads=1 kv_heads=0 seed=") + seed;
    failure.cell_family = "rope";
    failure.first.kind = "numeric";
    files.push_back(save_regression(scratch.path(), "cpu", failure));
  }
  std::sort(files.begin(), files.end());
  for (const char* note : {"cpu/README.txt", "cpu/zz-notes.md", "cpu/old.json.bak"})
    std::ofstream(scratch.path() / note) << "not a regression";
  const std::vector<SavedRegression> saved = load_regressions(scratch.path(), "cpu");
  ASSERT_EQ(saved.size(), 3u);
  for (std::size_t i = 0; i < saved.size(); ++i) EXPECT_EQ(saved[i].file, files[i]) << i;
}

// What a reader of the file sees, written out by hand: each value under its own key (issue 38:
// a mutant that wrote the backend's name as a key survived, since loading reads only "case").
TEST(RegressionCorpus, WritesEachFactUnderItsOwnKey) {
  const ScratchDir scratch;
  FailureRecord failure;
  failure.case_text = kRopeCase;
  failure.original_case = "rope(d=8,base=10000,layout=half) | batch=2 seq=4 heads=1 kv_heads=0 seed=0x0000000000000001";
  failure.cell_family = "rope";
  failure.seed = 7;
  failure.case_index = 12;
  failure.first.kind = "numeric";
  failure.first.element = 5;
  failure.first.position = "3";
  failure.first.reference = "0x1p-1 (0.5)";
  failure.first.actual = "0x1.2p-1 (0.5625)";
  failure.first.ratio = 2.5;
  failure.message = "said nothing";
  failure.flaky = true;
  const std::filesystem::path file = save_regression(scratch.path(), "cpu", failure);
  std::ifstream in(file);
  EXPECT_EQ(nlohmann::json::parse(in), nlohmann::json::parse(R"json({
    "format": "peconform.regression/1", "backend": "cpu",
    "case": "rope(d=8,base=10000,layout=half) | batch=1 seq=4 heads=1 kv_heads=0 seed=0x0000000000000001",
    "found": {"seed": 7, "case_index": 12,
              "original_case": "rope(d=8,base=10000,layout=half) | batch=2 seq=4 heads=1 kv_heads=0 seed=0x0000000000000001",
              "kind": "numeric", "element": 5, "position": "3", "reference": "0x1p-1 (0.5)", "actual": "0x1.2p-1 (0.5625)",
              "ratio": 2.5, "message": "said nothing", "flaky": true}})json"));
  // A corpus lives in a repository and is read in review: one key to a line, indented.
  std::ifstream again(file);
  const std::string text((std::istreambuf_iterator<char>(again)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\n  \"format\": \"peconform.regression/1\",\n  \"found\": {\n    \"actual\""), std::string::npos) << text;
  // A ratio JSON cannot hold (a NaN or an infinity where the bound is 0) is saved as "inf".
  failure.first.ratio = INFINITY;
  std::ifstream infinite(save_regression(scratch.path(), "cpu", failure));
  EXPECT_EQ(nlohmann::json::parse(infinite).at("found").at("ratio"), "inf");
}

TEST(RegressionCorpus, RefusesWhatIsNotARegressionDocument) {
  // {"format": 5} once threw nlohmann's type_error from value("format", "") instead of a
  // SpecError (fuzz/regression_file_fuzz.cpp).
  for (const char* text : {R"({"format": 5, "case": "rope(d=8) | seq=4"})", R"({"format": null, "case": "x"})",
                           R"({"format": "peconform.regression/0", "case": "x"})", R"({"case": "x"})",
                           R"({"format": "peconform.regression/1"})", R"({"format": "peconform.regression/1", "case": 7})",
                           R"(["format"])", "{not json"}) {
    const ScratchDir scratch;
    std::filesystem::create_directories(scratch.path() / "cpu");
    scratch.write("cpu/bad.json", text);
    try {
      load_regressions(scratch.path(), "cpu");
      ADD_FAILURE() << "accepted " << text;
    } catch (const SpecError& error) {
      // The whole message, so that it says what a regression document must hold.
      EXPECT_EQ(std::string(error.what()), "regression file '" + (scratch.path() / "cpu" / "bad.json").string() +
                                               "' is not a peconform.regression/1 document with a \"case\" string");
    }
  }
}

// A regression's file is named for its cell's family and a hash of its whole case text: saving a
// case again overwrites its file, cases that differ in any byte (here only the last digit of the
// seed) get files of their own, and a failure without a family is saved as "case-<hash>.json".
TEST(RegressionCorpus, NamesEachFileForItsFamilyAndCaseText) {
  const ScratchDir scratch;
  FailureRecord failure;
  failure.case_text = kRopeCase;
  failure.cell_family = "rope";
  const std::filesystem::path first = save_regression(scratch.path(), "cpu", failure);
  EXPECT_EQ(save_regression(scratch.path(), "cpu", failure), first);
  failure.case_text.back() = '2';
  const std::filesystem::path second = save_regression(scratch.path(), "cpu", failure);
  EXPECT_NE(second, first);
  // The name's hash is 16 hex digits, after the family and a dash.
  for (const std::filesystem::path& file : {first, second}) {
    EXPECT_EQ(file.parent_path(), scratch.path() / "cpu");
    const std::string name = file.filename().string();
    ASSERT_EQ(name.size(), std::string("rope-").size() + 16 + std::string(".json").size()) << name;
    EXPECT_EQ(name.substr(0, 5), "rope-") << name;
    EXPECT_EQ(name.find_first_not_of("0123456789abcdef", 5), name.size() - 5) << name;
  }
  EXPECT_EQ(load_regressions(scratch.path(), "cpu").size(), 2u);
  // Without a family: "case-", with the same hash as the same text under a family.
  failure.cell_family = "";
  const std::filesystem::path unnamed = save_regression(scratch.path(), "cpu", failure);
  EXPECT_EQ(unnamed.filename().string(), "case-" + second.filename().string().substr(5));
}

// A corpus outlives the version that saved it: a later version must give a case the name it was
// saved under, or it saves the case again beside itself. The name is the family and, in 16 hex
// digits, SplitMix64's finaliser chained over the case text's bytes from 0 (h = mix64(h ^ byte)),
// as saved since the corpus began.
TEST(RegressionCorpus, ACaseKeepsTheNameEarlierVersionsSavedItUnder) {
  const ScratchDir scratch;
  FailureRecord failure;
  failure.case_text = kRopeCase;
  failure.cell_family = "rope";
  EXPECT_EQ(save_regression(scratch.path(), "cpu", failure).filename(), "rope-e570e49b5fde4077.json");
}

// A saved regression is a text file, ending in a newline like every file a repository keeps.
TEST(RegressionCorpus, AFileEndsWithANewline) {
  const ScratchDir scratch;
  FailureRecord failure;
  failure.case_text = kRopeCase;
  std::ifstream in(save_regression(scratch.path(), "cpu", failure), std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
}

}  // namespace
}  // namespace peconform::harness
