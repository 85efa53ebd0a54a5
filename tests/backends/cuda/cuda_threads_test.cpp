// The CUDA backend with its kernels run on the host (host_place.hpp: each kernel's thread
// function for every thread index, cuda_threads.hpp), in every build: what runs on a device
// except the launch and CUDA's memory calls. Every call of cuda_cases.hpp is the CPU backend's,
// bit for bit (xPos included: on the host both take glibc's exp), and a campaign over every
// family conforms.
#include <gtest/gtest.h>

#include <atomic>

#include "backends/backend_registry.hpp"
#include "backends/cuda/cuda_tensor_backend.hpp"
#include "cuda_cases.hpp"
#include "harness/campaign.hpp"
#include "host_place.hpp"
#include "spec/spec_error.hpp"
#include "support/scratch_dir.hpp"

namespace peconform::cuda {
namespace {

std::unique_ptr<TensorBackend> host_backend() {
  return make_placed_tensor_backend("cuda-threads-on-host", make_host_place(), std::int64_t{1} << 34);
}

TEST(CudaThreadsOnHost, EveryCallIsTheCpuBackendsBitForBit) {
  const std::unique_ptr<TensorBackend> backend = host_backend();
  for (const char* text : kCudaCases) expect_the_cpu_backends_bits(*backend, text);
  for (const char* text : kCudaXposCases) expect_the_cpu_backends_bits(*backend, text);
}

TEST(CudaThreadsOnHost, RefusesWhatTheCpuKernelsRefuse) {
  const std::unique_ptr<TensorBackend> backend = host_backend(), cpu = make_backend("cpu");
  const auto refusal_on = [](const TensorBackend& on, const char* text, auto change) {
    KernelCall call = harness::materialize(harness::CaseDescription::parse(text));
    change(call);
    try {
      on.run(call);
    } catch (const SpecError& error) {
      return std::string(error.what());
    }
    return std::string("no refusal");
  };
  const auto refusal = [&](const char* text, auto change) { return refusal_on(*backend, text, change); };
  const char* rope = "rope(d=16,base=10000,layout=half,dtype=fp32) | batch=1 seq=4 heads=2 place=out ids=int64 positions=run seed=1";
  // The refusal names the id, its axis, batch row and token (token 2 of batch row 0, on axis 0).
  const std::string outside = refusal(rope, [](KernelCall& call) { call.ids64_data[2] = std::int64_t{1} << 45; });
  EXPECT_NE(outside.find("position id 35184372088832 at [axis 0, batch 0, seq 2] is outside +-"), std::string::npos) << outside;
  const std::string below = refusal(rope, [](KernelCall& call) { call.ids64_data[1] = -(std::int64_t{1} << 45); });
  EXPECT_NE(below.find("position id -35184372088832 at [axis 0, batch 0, seq 1] is outside +-"), std::string::npos) << below;
  EXPECT_NE(refusal(rope, [](KernelCall& call) { call.id_offset = INT64_MAX; call.ids64_data[0] = 1; }).find("overflows int64"),
            std::string::npos);
  EXPECT_NE(refusal(rope, [](KernelCall& call) { call.outputs[0].stride[1] = 1 << 20; }).find("operand 0's output: elements"),
            std::string::npos);
  // An output view unequal to its input (one head of two): the CPU's check_view_pair, in its words.
  const auto one_head_out = [](KernelCall& call) { call.outputs[0].shape[2] = 1; };
  const std::string unequal = refusal(rope, one_head_out);
  EXPECT_NE(unequal.find("operand 0: input extent 2 and output extent 1 differ in dimension 2"), std::string::npos) << unequal;
  EXPECT_EQ(unequal, refusal_on(*cpu, rope, one_head_out));
  // Out of place, every output needs its input (a mutant that dropped the refusal survived
  // session 39's draw, and read past the inputs).
  EXPECT_NE(refusal(rope, [](KernelCall& call) { call.inputs.clear(); }).find("0 inputs for 1 outputs"), std::string::npos);
  const char* learned = "learned(d=4,rows=5,dtype=fp32) | batch=1 seq=3 ids=int64 positions=scattered seed=2";
  EXPECT_NE(refusal(learned, [](KernelCall& call) { call.ids64_data[1] = 5; }).find("past the learned table of 5 rows"), std::string::npos);
  const std::string two_tables = refusal(learned, [](KernelCall& call) { call.inputs.push_back(call.inputs[0]); });
  EXPECT_NE(two_tables.find("a learned gather takes one table and one output, found 2 and 1"), std::string::npos) << two_tables;
  // Falcon's 16-bit ALiBi (math=storage in bf16, or math=bf16) is the CPU backend's alone: the
  // device kernel computes in float32 and refuses it by name; float32 storage math is float32.
  const char* falcon = "alibi(heads=4,dtype=bf16,math=storage) | seq=3 keys=5 seed=3";
  const std::string sixteen_bit = refusal(falcon, [](KernelCall&) {});
  EXPECT_NE(sixteen_bit.find("CUDA's ALiBi kernel computes in float32; "), std::string::npos) << sixteen_bit;
  EXPECT_NE(sixteen_bit.find("(slopes and products rounded to bf16) is the CPU backend's alone"), std::string::npos) << sixteen_bit;
  const std::string in_bf16 =
      refusal("alibi(heads=4,mode=key,precision=fp32-angle,slopes=bloom,math=bf16) | seq=3 keys=5 seed=3", [](KernelCall&) {});
  EXPECT_NE(in_bf16.find("CUDA's ALiBi kernel computes in float32; "), std::string::npos) << in_bf16;
  EXPECT_EQ(refusal("alibi(heads=4,math=storage) | seq=3 keys=5 seed=3", [](KernelCall&) {}), "no refusal");
  EXPECT_EQ(refusal("alibi(heads=4,dtype=bf16) | seq=3 keys=5 seed=3", [](KernelCall&) {}), "no refusal");
}

TEST(CudaThreadsOnHost, SmokeCampaignConformsOnEveryFamily) {
  const ScratchDir scratch;
  harness::CampaignOptions options;
  options.profile = harness::profile_named("smoke");
  options.seed = 20;
  options.regressions = scratch.path();
  options.save_regressions = false;
  options.run_properties = false;
  const std::atomic<bool> stop{false};
  const harness::CampaignResult result = harness::run_campaign(options, *host_backend(), {}, stop);
  EXPECT_TRUE(result.conformant());
  for (const harness::FailureRecord& failure : result.failures) ADD_FAILURE() << failure.case_text;
  EXPECT_GT(result.info.cases_run, 0u);
}

}  // namespace
}  // namespace peconform::cuda
