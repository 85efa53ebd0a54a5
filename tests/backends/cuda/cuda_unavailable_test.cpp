// What `--backend cuda` says where it cannot run (label cli): in a build with CUDA on a machine
// without a usable device (no driver, no GPU: this development machine), the runtime's own
// reason, and exit 2 from the command line. On a machine with a device there is nothing to
// show, and the tests skip.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "backends/backend_registry.hpp"
#include "backends/cuda/cuda_devices.hpp"
#include "spec/spec_error.hpp"
#include "support/scratch_dir.hpp"

namespace peconform {
namespace {

class NoCudaDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    found_ = cuda::cuda_devices();
    if (!found_.devices.empty()) GTEST_SKIP() << "a CUDA device is present (" << found_.devices.front().name << ")";
    ASSERT_FALSE(found_.unavailable.empty()) << "no device and no reason given";
  }
  cuda::CudaDevices found_;
};

TEST_F(NoCudaDevice, TheBackendNamesWhatIsMissing) {
  try {
    make_backend("cuda");
    FAIL() << "make_backend(\"cuda\") returned a backend without a device";
  } catch (const SpecError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("--backend cuda"), std::string::npos) << message;
    EXPECT_NE(message.find(found_.unavailable), std::string::npos) << message;
#ifdef PECONFORM_HAVE_CUDA
    EXPECT_NE(message.find("cudaGetDeviceCount"), std::string::npos) << message;
#else
    EXPECT_NE(message.find("has no CUDA backend"), std::string::npos) << message;
#endif
  }
}

TEST_F(NoCudaDevice, RunExitsTwoWithTheReason) {
  const ScratchDir scratch;
  const ToolRun result = run_tool(fmt::format("{} run --backend cuda --profile ci --no-save --out {}", PECONFORM_BINARY,
                                              scratch.path().string()));
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find(found_.unavailable), std::string::npos) << result.output;
}

}  // namespace
}  // namespace peconform
