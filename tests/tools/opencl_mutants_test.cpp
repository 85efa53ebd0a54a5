// GPU bugs planted in the OpenCL example plugin's kernel (tests/plugins/opencl/opencl_mutants.c,
// labels opencl and mutants), run on PoCL: `peconform run --plugin --profile ci --max-failures 1`
// must catch each with the verdict kind the bug gives, and its twin NAME.correct (the unchanged
// program) pass the same cases (support/mutant_corpus.hpp), as the CPU mutants do.
#include <algorithm>
#include <gtest/gtest.h>
#include <string>

#include "backends/opencl/opencl_runtime.hpp"
#include "support/mutant_corpus.hpp"

namespace peconform {
namespace {

const Mutant kMutants[] = {
    // cos and sin off, both (the value, its sign just past the bound) and as a vector (the norm,
    // where the angle itself is past fp32-angle's horizon).
    {"native-sin-cos-under-fp32-angle", {"numeric", "sign", "norm"}},
    {"float32-angle-claimed-exact", {"numeric", "sign"}},
    // Out of place the tail keeps its unwritten sentinels; in place it keeps its input, a wrong
    // value wherever the rotation is not the identity.
    {"partial-work-group-skipped", {"unwritten", "numeric", "sign"}},
    // Rows of batch b >= 1 read and written at b seq + s sequence strides: another token's
    // values, padding or a guard (out-of-bounds), and their own left unwritten; or, where the
    // sequence axis is the outermost (order sbhd), far past the buffer's end, which on PoCL, a
    // CPU device, is the host's own memory: a worker process holds that crash (seed 1 does it).
    {"batch-stride-ignored", {"unwritten", "out-of-bounds", "numeric", "sign", "nan", "crash"}, true},
    // Caught only because the device's copy of the input comes back.
    {"input-written", {"input-modified"}},
};

// A wild write on a CPU device lands in the worker's own memory: its crash is the verdict.
const MutantCorpus kCorpus{OPENCL_MUTANTS, "opencl-mutants", "--isolate --case-timeout 60", 8};

class OpenClMutants : public ::testing::TestWithParam<Mutant> {
 protected:
  void SetUp() override {
    ASSERT_FALSE(opencl::list_devices().empty()) << "no OpenCL device: install pocl-opencl-icd (scripts/install-deps.sh)";
  }
};

TEST_P(OpenClMutants, TheCiProfileCatchesTheBugAndTheTwinPassesTheSameCases) {
  expect_caught_shrunk_and_replayed(kCorpus, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Corpus, OpenClMutants, ::testing::ValuesIn(kMutants), [](const auto& info) {
  std::string name = info.param.name;
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
});

TEST(OpenClMutantsLibrary, EveryMutantHasARowAndATwin) {
  ASSERT_FALSE(opencl::list_devices().empty()) << "no OpenCL device: install pocl-opencl-icd (scripts/install-deps.sh)";
  expect_every_kernel_a_mutant_or_its_twin(kCorpus, kMutants, "kDLOpenCL");
}

}  // namespace
}  // namespace peconform
