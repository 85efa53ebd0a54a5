// A kernel on an OpenCL device through the plugin ABI (examples/opencl-plugin), run on PoCL
// (labels opencl and plugin): the harness hands it cl_mem buffers holding the whole of each host
// buffer and its queue, and judges what comes back as it judges a host kernel.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "backends/opencl/opencl_runtime.hpp"
#include "support/scratch_dir.hpp"

namespace peconform {
namespace {

void expect_contains(const std::string& text, const std::string& needle) {
  EXPECT_NE(text.find(needle), std::string::npos) << "in: " << text << "\nmissing: " << needle;
}

class OpenClPlugin : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(opencl::list_devices().empty()) << "no OpenCL device: install pocl-opencl-icd (scripts/install-deps.sh)";
  }
};

TEST_F(OpenClPlugin, PluginInfoNamesTheDeviceType) {
  const ToolRun text = run_tool(fmt::format("{} plugin-info {}", PECONFORM_BINARY, OPENCL_ROPE_PLUGIN));
  EXPECT_EQ(text.exit_code, 0) << text.output;
  expect_contains(text.output, "opencl_rope: served");
  expect_contains(text.output, "device kDLOpenCL (4); takes out-of-place, in-place, int32-ids, int64-ids, strided, key-operand");
  const ToolRun json = run_tool(fmt::format("{} plugin-info --json {} 2>/dev/null", PECONFORM_BINARY, OPENCL_ROPE_PLUGIN));
  ASSERT_EQ(json.exit_code, 0) << json.output;
  const nlohmann::json kernel = nlohmann::json::parse(json.output).at("kernels").at(0);
  EXPECT_EQ(kernel.at("device"), "kDLOpenCL");
  EXPECT_EQ(kernel.at("device_type"), 4);
}

// The first 48 cases of the ci profile: every cell of its patterns (2 dtypes x 2 classes) twelve
// times, long calls included. (The whole profile, 1000 cases, takes 56 to 105 s here; tools/BENCHMARKS.md.)
TEST_F(OpenClPlugin, TheExampleKernelPassesTheCiProfile) {
  const ScratchDir dir;
  const ToolRun result = run_tool(fmt::format("timeout 600 {} run --plugin {} --profile ci --cases 48 --no-save --no-properties --quiet --out {}",
                                              PECONFORM_BINARY, OPENCL_ROPE_PLUGIN, dir.path().string()));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const nlohmann::json report = nlohmann::json::parse(dir.read("report.json"));
  EXPECT_EQ(report.at("failures").size(), 0u);
  EXPECT_EQ(report.at("run").at("cases_run").get<std::uint64_t>(), 48u);
}

// A device index that names no device is bad input, from --device as from
// PECONFORM_OPENCL_DEVICE: `run` exits 2 naming it, `plugin-info` lists the kernel as refused
// with the reason. --device for a kernel that runs on the host is bad input too.
TEST_F(OpenClPlugin, ADeviceThatDoesNotExistIsBadInput) {
  const std::size_t none = opencl::list_devices().size();
  const std::string kernel = "kernel 'opencl_rope' of plugin '" OPENCL_ROPE_PLUGIN "' runs on kDLOpenCL: ";
  const ToolRun option = run_tool(fmt::format("{} run --plugin {} --device {} --no-save --quiet", PECONFORM_BINARY, OPENCL_ROPE_PLUGIN, none));
  EXPECT_EQ(option.exit_code, 2) << option.output;
  expect_contains(option.output, kernel + fmt::format("OpenCL device {} (from --device) does not exist", none));
  const std::string missing = fmt::format("OpenCL device {} (from PECONFORM_OPENCL_DEVICE) does not exist", none);
  const ToolRun variable =
      run_tool(fmt::format("PECONFORM_OPENCL_DEVICE={} {} run --plugin {} --no-save --quiet", none, PECONFORM_BINARY, OPENCL_ROPE_PLUGIN));
  EXPECT_EQ(variable.exit_code, 2) << variable.output;
  expect_contains(variable.output, kernel + missing);
  const ToolRun info = run_tool(fmt::format("PECONFORM_OPENCL_DEVICE={} {} plugin-info {}", none, PECONFORM_BINARY, OPENCL_ROPE_PLUGIN));
  EXPECT_EQ(info.exit_code, 2) << info.output;
  expect_contains(info.output, "opencl_rope: REFUSED: " + kernel + missing);
  const ToolRun host = run_tool(fmt::format("{} run --plugin {} --device 0 --no-save --quiet", PECONFORM_BINARY, CPU_PLUGIN));
  EXPECT_EQ(host.exit_code, 2) << host.output;
  expect_contains(host.output, "--device 0 picks a device, but kernel 'cpu' of plugin '" CPU_PLUGIN "' runs on the host (kDLCPU)");
}

// --device reaches the worker of --isolate: the kernel runs there on the device it names.
TEST_F(OpenClPlugin, TheDeviceGoesToTheIsolatedWorker) {
  const ScratchDir dir;
  const ToolRun result =
      run_tool(fmt::format("timeout 600 {} run --plugin {} --device 0 --isolate --profile ci --cases 4 --no-save --no-properties --quiet --out {}",
                           PECONFORM_BINARY, OPENCL_ROPE_PLUGIN, dir.path().string()));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const nlohmann::json report = nlohmann::json::parse(dir.read("report.json"));
  EXPECT_EQ(report.at("failures").size(), 0u);
  EXPECT_EQ(report.at("run").at("cases_run").get<std::uint64_t>(), 4u);
}

}  // namespace
}  // namespace peconform
