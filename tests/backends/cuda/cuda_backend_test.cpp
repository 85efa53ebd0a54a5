// The CUDA backend on a device (label gpu): each call below run on the CUDA kernels and on our CPU
// kernels, whose results must be the same bits (both round alike: the element math is shared,
// nvcc builds without fma contraction), then the ci campaign on `--backend cuda`. Without a
// CUDA device every test here skips, saying why.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "backends/backend_registry.hpp"
#include "backends/cuda/cuda_devices.hpp"
#include "harness/case_call.hpp"
#include "harness/case_run.hpp"
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

// Every family, dtype and precision class; both layouts and interleaved-to-half, partial rotary
// first and last, in place and out of place, int32 and int64 ids, padded and transposed views,
// queries and keys (GQA) in one call, positions near the exact-angle limit.
constexpr const char* kCases[] = {
    "rope(d=128,base=10000,layout=half,dtype=bf16) | batch=2 seq=37 heads=4 kv_heads=2 place=out ids=int64 positions=run inputs=activations seed=1",
    "rope(d=64,base=500000,layout=interleaved,dtype=fp16) | batch=1 seq=19 heads=3 order=bhsd pad=3 place=in ids=int32 positions=scattered inputs=activations seed=2",
    "rope(d=20,base=10000,layout=interleaved-to-half,rot=12,rot_at=last,dtype=fp32) | batch=2 seq=5 heads=2 place=in ids=int64 positions=run inputs=bit-patterns seed=3",
    "rope(d=20,base=10000,layout=interleaved-to-half,rot=8,dtype=fp64) | batch=1 seq=7 heads=2 kv_heads=1 place=out ids=int32 positions=run inputs=activations seed=4",
    "rope(d=128,base=10000,layout=half,scaling=yarn(factor=4,orig=4096),dtype=bf16,precision=lowp-cache) | batch=1 seq=33 heads=2 place=out ids=int64 positions=run offset=100000 inputs=activations seed=5",
    "rope(d=64,base=10000,layout=half,dtype=fp32,precision=fp32-angle,theta=hf) | batch=1 seq=9 heads=2 place=out ids=int64 positions=run offset=70000 inputs=activations seed=6",
    "rope(d=64,base=10000,layout=interleaved,dtype=fp32,precision=fp32-angle,theta=ggml) | batch=1 seq=9 heads=2 place=in ids=int32 positions=run inputs=activations seed=7",
    "mrope(d=128,base=1e6,sections=[16,24,24],dtype=bf16) | batch=1 seq=17 heads=2 place=out ids=int64 positions=scattered inputs=activations seed=8",
    "rope2d(d=16,base=1e4,dtype=fp32) | batch=1 seq=11 heads=2 place=out ids=int64 positions=scattered inputs=activations seed=9",
    "sinusoidal(d=9,layout=half,order=cos-sin,offset=2,dtype=fp16) | seq=40 pad=2 seed=10",
    "sinusoidal(d=16,layout=interleaved,dtype=fp64) | seq=40 offset=1000000 seed=11",
    "xl(d=12,clamp_len=300,precision=fp32-angle,dtype=bf16) | seq=40 seed=12",
    "alibi(heads=12,mode=causal,dtype=fp32) | seq=20 keys=30 seed=13",
    "alibi(heads=6,slopes=bloom,precision=fp32-angle,dtype=bf16) | seq=20 keys=30 key_offset=5 seed=14",
    "t5(buckets=32,max_distance=128) | seq=40 keys=300 seed=15",
    "shaw(k=4) | seq=20 keys=30 seed=16",
    "learned(d=16,rows=50,dtype=bf16) | batch=2 seq=9 ids=int32 positions=scattered seed=17",
};

TEST_F(CudaDevice, EveryCallIsTheCpuBackendsBitForBit) {
  const std::unique_ptr<TensorBackend> cuda = make_backend("cuda"), cpu = make_backend("cpu");
  for (const char* text : kCases) {
    const harness::CaseDescription description = harness::CaseDescription::parse(text);
    KernelCall on_cuda = harness::materialize(description), on_cpu = harness::materialize(description);
    cuda->run(on_cuda);
    cpu->run(on_cpu);
    ASSERT_EQ(on_cuda.outputs.size(), on_cpu.outputs.size()) << text;
    for (std::size_t k = 0; k < on_cpu.outputs.size(); ++k) {
      const Buffer &got = on_cuda.outputs[k], &want = on_cpu.outputs[k];
      for (std::int64_t i = 0; i < want.size(); ++i)
        ASSERT_EQ(got.bits(i), want.bits(i)) << text << "\noutput " << k << " storage index " << i;
    }
    for (std::size_t k = 0; k < on_cpu.inputs.size(); ++k) EXPECT_EQ(on_cuda.inputs[k].bytes, on_cpu.inputs[k].bytes) << text;
  }
}

// xPos's amplitude takes the device's exp, which may differ from glibc's in the last bit: its
// calls are held to the reference by the campaign's verifier instead.
TEST_F(CudaDevice, XposConformsToItsPrecisionClass) {
  const std::unique_ptr<TensorBackend> cuda = make_backend("cuda");
  for (const char* text :
       {"xpos(d=16,base=1e4,rot=8,role=key,dtype=fp32) | batch=1 seq=30 heads=2 place=out ids=int64 positions=run inputs=activations seed=18",
        "xpos(d=64,base=1e4,dtype=bf16) | batch=2 seq=12 heads=2 place=in ids=int32 positions=run inputs=activations seed=19"}) {
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
