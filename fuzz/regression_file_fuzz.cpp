// load_regressions on a corpus holding one file with any bytes, <root>/fuzz/x.json in a folder
// of this process's own (fuzz::scratch_folder(), removed after every input), then every case it
// yields parsed as the campaign replays it.
#include <filesystem>
#include <vector>

#include "fuzz/fuzz_support.hpp"
#include "harness/case_description.hpp"
#include "harness/regression_corpus.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace peconform;
  const fuzz::InputFile input(std::filesystem::path("fuzz") / "x.json", data, size);
  const std::filesystem::path& file = input.path();
  std::vector<harness::SavedRegression> saved;
  try {
    saved = harness::load_regressions(fuzz::scratch_folder(), "fuzz");
  } catch (const SpecError&) {
    return 0;
  }
  fuzz::require(saved.size() == 1 && saved.front().file == file, "load_regressions returns the one file it was given",
                file.string());
  for (const harness::SavedRegression& regression : saved) {
    try {
      harness::CaseDescription::parse(regression.case_text);
    } catch (const SpecError&) {
    }
  }
  return 0;
}
