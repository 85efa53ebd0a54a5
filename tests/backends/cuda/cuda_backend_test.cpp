// The CUDA backend on a device (label gpu): each call of cuda_cases.hpp run on the CUDA kernels
// and on our CPU kernels, whose results must be the same bits (both round alike: the element
// math is shared, nvcc builds without fma contraction), then the ci campaign on
// `--backend cuda`. Without a CUDA device every test here skips, saying why.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "backends/cuda/cuda_devices.hpp"
#include "harness/case_run.hpp"
#include "cuda_cases.hpp"
#include "support/scratch_dir.hpp"

namespace peconform {
namespace {

class CudaDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    const cuda::CudaDevices found = cuda::cuda_devices();
    if (found.devices.empty()) GTEST_SKIP() << "no CUDA device: " << found.unavailable;
  }
};

TEST_F(CudaDevice, EveryCallIsTheCpuBackendsBitForBit) {
  const std::unique_ptr<TensorBackend> cuda = make_backend("cuda");
  for (const char* text : kCudaCases) expect_the_cpu_backends_bits(*cuda, text);
}

// xPos's amplitude takes the device's exp, which may differ from glibc's in the last bit: its
// calls are held to the reference by the campaign's verifier instead.
TEST_F(CudaDevice, XposConformsToItsPrecisionClass) {
  const std::unique_ptr<TensorBackend> cuda = make_backend("cuda");
  for (const char* text : kCudaXposCases) {
    const harness::CaseOutcome outcome = harness::run_case(harness::CaseDescription::parse(text), *cuda);
    EXPECT_FALSE(outcome.failed()) << text << ": " << outcome.error_kind;
  }
}

TEST_F(CudaDevice, CiCampaignConforms) {
  const ScratchDir scratch;
  const ToolRun result = run_tool(fmt::format("{} run --backend cuda --profile ci --no-save --quiet --out {}", PECONFORM_BINARY,
                                              scratch.path().string()));
  EXPECT_EQ(result.exit_code, 0) << result.output;
}

}  // namespace
}  // namespace peconform
