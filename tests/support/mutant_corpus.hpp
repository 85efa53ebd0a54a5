#pragma once
// What every corpus of buggy plugins is held to (tests/tools/mutant_plugins_test.cpp: CPU
// kernels; tests/tools/opencl_mutants_test.cpp: OpenCL kernels on PoCL): `peconform run
// --plugin --profile ci --max-failures 1` catches each mutant with a verdict kind its bug gives
// and a replay line naming it; the mutant fails the case it was shrunk to; its twin NAME.correct
// (the same spec patterns and calls, the bug switched off) passes that case and the very cases
// the mutant ran, so that the bug, not the pattern or the wrapping, is what fails.
#include <cstdint>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "support/scratch_dir.hpp"

namespace peconform {

struct Mutant {
  const char* name;
  std::vector<std::string> kinds;  // the verdict kinds the bug can give; the first is the usual one
  bool isolate = false;            // crashes, hangs and wild writes need a worker process
};

inline void PrintTo(const Mutant& mutant, std::ostream* out) { *out << mutant.name; }

struct MutantCorpus {
  std::string plugin;            // the library's path
  std::string library;           // the name it declares
  std::string isolate_options;   // for an isolated mutant: --isolate and its case timeout
  std::uint64_t twin_cases = 0;  // the twin runs at least this many cases: a whole cycle of the cells
};

// `peconform run --plugin <corpus.plugin> <arguments>`, with a time limit: a kernel that hangs
// without --isolate would hold the test for ever.
ToolRun run_mutant_corpus(const MutantCorpus& corpus, const std::string& arguments);

// The checks above, as GoogleTest failures. A hang is neither shrunk nor replayed: each run
// would cost the timeout.
void expect_caught_shrunk_and_replayed(const MutantCorpus& corpus, const Mutant& mutant);

// Every kernel of the library is served and is a mutant of `mutants` or its twin (a mutant added
// to the library without a row would never be run), each on `device` (plugin-info's name).
void expect_every_kernel_a_mutant_or_its_twin(const MutantCorpus& corpus, std::span<const Mutant> mutants,
                                              const std::string& device);

}  // namespace peconform
