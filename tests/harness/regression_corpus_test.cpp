// The regression corpus: what save_regression writes, load_regressions reads back; a file that
// is not a peconform.regression/1 document is refused with a SpecError naming it.
#include <gtest/gtest.h>

#include "harness/regression_corpus.hpp"
#include "spec/spec_error.hpp"
#include "support/scratch_dir.hpp"

namespace peconform::harness {
namespace {

TEST(RegressionCorpus, LoadsWhatItSaved) {
  const ScratchDir scratch;
  FailureRecord failure;
  failure.case_text = "rope(d=8,base=10000,layout=half) | batch=1 seq=4 heads=1 kv_heads=0 seed=0x0000000000000001";
  failure.cell_family = "rope";
  failure.first.kind = "numeric";
  const std::filesystem::path file = save_regression(scratch.path(), "cpu", failure);
  const std::vector<SavedRegression> saved = load_regressions(scratch.path(), "cpu");
  ASSERT_EQ(saved.size(), 1u);
  EXPECT_EQ(saved[0].file, file);
  EXPECT_EQ(saved[0].case_text, failure.case_text);
  EXPECT_TRUE(load_regressions(scratch.path(), "exact").empty());
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
      EXPECT_NE(std::string(error.what()).find("bad.json' is not a peconform.regression/1 document"), std::string::npos)
          << error.what();
    }
  }
}

}  // namespace
}  // namespace peconform::harness
