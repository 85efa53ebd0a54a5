// A kernel on a CUDA device through the plugin ABI (tests/plugins/cuda/cuda_rope_plugin.cu,
// label gpu): on a machine with a CUDA device it must pass the ci profile; without one, `run
// --plugin` must exit 2 naming what is missing, never crash.
#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/scratch_dir.hpp"

namespace peconform {
namespace {

bool has_cuda_device() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

TEST(CudaPlugin, TheKernelPassesTheCiProfileOnTheDevice) {
  if (!has_cuda_device()) GTEST_SKIP() << "no CUDA device here: the CUDA plugin is compiled, not run";
  const ScratchDir dir;
  const ToolRun result = run_tool(fmt::format("timeout 600 {} run --plugin {} --profile ci --no-save --no-properties --quiet --out {}",
                                              PECONFORM_BINARY, CUDA_ROPE_PLUGIN, dir.path().string()));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const nlohmann::json report = nlohmann::json::parse(dir.read("report.json"));
  EXPECT_EQ(report.at("failures").size(), 0u);
}

TEST(CudaPlugin, WithoutADeviceRunExitsTwoNamingWhatIsMissing) {
  if (has_cuda_device()) GTEST_SKIP() << "a CUDA device is here";
  const ToolRun result = run_tool(fmt::format("{} run --plugin {} --profile smoke --no-save --quiet", PECONFORM_BINARY, CUDA_ROPE_PLUGIN));
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("kernel 'cuda_rope' of plugin '" CUDA_ROPE_PLUGIN "' runs on kDLCUDA: no CUDA device for a kDLCUDA kernel"),
            std::string::npos)
      << result.output;
}

}  // namespace
}  // namespace peconform
