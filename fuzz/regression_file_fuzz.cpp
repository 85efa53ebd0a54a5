// load_regressions on a corpus holding one file with any bytes, <root>/fuzz/x.json in a folder
// of this process's own, then every case it yields parsed as the campaign replays it. The
// folder is made in $TMPDIR, else in /dev/shm where there is one (a file written to disk costs
// milliseconds, a hundred times the parse), and removed after every input.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "fuzz/fuzz_support.hpp"
#include "harness/case_description.hpp"
#include "harness/regression_corpus.hpp"

namespace {

// A name of this process's own; the folder itself exists only while an input is in hand.
const std::filesystem::path& corpus_root() {
  static const std::filesystem::path root = [] {
    std::error_code error;
    const bool shm = std::getenv("TMPDIR") == nullptr && std::filesystem::is_directory("/dev/shm", error) &&
                     ::access("/dev/shm", W_OK) == 0;
    std::string name =
        ((shm ? std::filesystem::path("/dev/shm") : std::filesystem::temp_directory_path()) / "peconform-fuzz-XXXXXX")
            .string();
    if (::mkdtemp(name.data()) == nullptr) {
      std::perror("mkdtemp");
      std::abort();
    }
    return std::filesystem::path(name);
  }();
  return root;
}

struct RemovedAfterwards {
  ~RemovedAfterwards() {
    std::error_code ignored;
    std::filesystem::remove_all(corpus_root(), ignored);
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace peconform;
  const RemovedAfterwards cleanup;
  const std::filesystem::path file = corpus_root() / "fuzz" / "x.json";
  std::filesystem::create_directories(file.parent_path());
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!out) {
      std::perror("writing the regression file");
      std::abort();
    }
  }
  std::vector<harness::SavedRegression> saved;
  try {
    saved = harness::load_regressions(corpus_root(), "fuzz");
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
