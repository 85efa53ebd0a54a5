// The OpenCL backend against our CPU kernels on the same drawn calls: whole buffers (guards,
// padding and sentinels included) come back bit for bit the same, so every family, layout,
// dtype and precision class computes what the CPU computes, and nothing outside the logical
// elements is written. The refusals are the CPU's. Skips, saying why, where the ICD loader
// lists no OpenCL device.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fmt/format.h>
#include <limits>
#include <string>

#include "backends/backend_registry.hpp"
#include "backends/opencl/opencl_runtime.hpp"
#include "harness/case_call.hpp"
#include "harness/case_description.hpp"
#include "spec/spec_error.hpp"

namespace peconform {
namespace {

class OpenClBackend : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (opencl::list_devices().empty()) return;
    opencl_ = make_backend("opencl").release();
    cpu_ = make_backend("cpu").release();
  }
  static void TearDownTestSuite() {
    delete opencl_;
    delete cpu_;
  }
  void SetUp() override {
    if (opencl_ == nullptr) GTEST_SKIP() << "no OpenCL device: the ICD loader lists none (Debian: pocl-opencl-icd)";
  }

  static KernelCall drawn(const std::string& text) { return harness::materialize(harness::CaseDescription::parse(text)); }

  static std::string error_of(const TensorBackend& backend, KernelCall call) {
    try {
      backend.run(call);
    } catch (const SpecError& error) {
      return error.what();
    }
    return "no error";
  }

  static TensorBackend* opencl_;
  static TensorBackend* cpu_;
};

TensorBackend* OpenClBackend::opencl_ = nullptr;
TensorBackend* OpenClBackend::cpu_ = nullptr;

// Calls whose every output element the CPU and the device compute alike: the same plans, the
// same element math (backends/gpu mirrors backends/cpu), no contraction on either side. xPos
// is left out: its amplitude calls exp, which OpenCL's libm and glibc may round differently
// (the campaign holds it to the error model instead).
const char* const kAgreeingCalls[] = {
    "rope(d=64,base=10000,layout=half,dtype=fp32) | batch=2 seq=5 heads=4 kv_heads=2 place=out inputs=activations seed=5",
    "rope(d=9,base=10000,layout=half,rot=8,dtype=bf16) | batch=2 seq=3 heads=2 kv_heads=1 order=bhsd pad=2 place=out "
    "ids=int64 positions=run offset=5 inputs=bit-patterns seed=3",
    "rope(d=16,base=10000,layout=interleaved,rot=8,rot_at=last,dtype=fp64) | batch=1 seq=7 heads=3 order=bhsd pad=1 place=out "
    "ids=int32 seed=11",
    "rope(d=16,base=10000,layout=interleaved-to-half,dtype=fp16) | batch=2 seq=4 heads=2 place=in seed=2",
    "rope(d=32,base=500000,layout=half,dtype=fp16,precision=lowp-cache) | batch=1 seq=6 heads=2 place=in ids=int32 seed=8",
    "rope(d=64,base=10000,layout=interleaved,scaling=linear(factor=4),dtype=fp32,precision=fp32-angle,theta=ggml) | "
    "batch=1 seq=9 heads=2 offset=1000 seed=4",
    "rope(d=64,base=10000,layout=half,dtype=bf16,precision=fp32-angle,theta=hf) | batch=2 seq=3 heads=2 offset=70000 seed=6",
    "rope(d=64,base=10000,layout=half,dtype=bf16,precision=fp32-angle,theta=hf,cache=storage,math=storage) | batch=2 seq=5 "
    "heads=3 kv_heads=1 offset=70000 inputs=activations seed=12",
    "rope(d=24,base=500000,layout=interleaved-to-half,rot=16,dtype=fp16,math=storage) | batch=1 seq=7 heads=2 place=in "
    "inputs=bit-patterns seed=13",
    "mrope(d=32,base=10000,layout=half,sections=[4,6,6],dtype=bf16,precision=fp32-angle,theta=ggml,cache=storage) | batch=1 "
    "seq=6 heads=2 seed=14",
    "mrope(d=32,base=10000,layout=half,sections=[4,6,6],dtype=fp32) | batch=1 seq=6 heads=2 seed=9",
    "rope2d(d=16,base=100,dtype=fp32) | batch=1 seq=8 heads=2 seed=10",
    "sinusoidal(d=33,base=10000,layout=interleaved,dtype=fp64,precision=fp32-angle,theta=exp-log) | seq=64 offset=1000 seed=4",
    "sinusoidal(d=16,base=10000,layout=half,dtype=bf16) | seq=20 pad=2 seed=1",
    "xl(d=64,base=10000,dtype=fp32) | seq=40 offset=-10 seed=4",
    "alibi(heads=12,mode=causal,dtype=fp32) | seq=8 keys=20 offset=5 seed=1",
    "alibi(heads=8,mode=symmetric,dtype=fp16,precision=fp32-angle,slopes=bloom) | seq=4 keys=30 offset=100 seed=2",
    "t5(buckets=32,max_distance=128) | seq=16 keys=300 offset=100 seed=1",
    "shaw(k=4) | seq=9 keys=12 key_offset=3 seed=1",
    "shaw(k=5,right=1) | seq=9 keys=12 key_offset=3 seed=1",
    "learned(d=8,rows=64,dtype=bf16) | batch=2 seq=5 ids=int32 positions=scattered seed=3",
    "learned(d=8,rows=64,amp=0.3,dtype=bf16) | batch=2 seq=5 ids=int32 positions=scattered seed=3",
    "learned(d=8,rows=64,amp=0.04419417382415922) | batch=2 seq=5 ids=int64 positions=scattered seed=4",
    "sinusoidal(d=33,base=10000,layout=half,amp=0.3,dtype=fp16) | seq=20 pad=2 seed=1",
};

TEST_F(OpenClBackend, ComputesWhatTheCpuKernelsComputeAndWritesNothingElse) {
  for (const char* text : kAgreeingCalls) {
    SCOPED_TRACE(text);
    KernelCall on_device = drawn(text);
    KernelCall on_host = on_device;
    opencl_->run(on_device);
    cpu_->run(on_host);
    ASSERT_EQ(on_device.outputs.size(), on_host.outputs.size());
    for (std::size_t k = 0; k < on_host.outputs.size(); ++k) {
      const Buffer& device = on_device.outputs[k];
      const Buffer& host = on_host.outputs[k];
      std::int64_t differing = 0, first = -1;
      for (std::int64_t i = 0; i < host.size(); ++i)
        if (device.bits(i) != host.bits(i)) {
          ++differing;
          if (first < 0) first = i;
        }
      EXPECT_EQ(differing, 0) << "output " << k << ": first difference at storage index " << first;
    }
    for (std::size_t k = 0; k < on_host.inputs.size(); ++k) EXPECT_EQ(on_device.inputs[k].bytes, on_host.inputs[k].bytes);
  }
}

TEST_F(OpenClBackend, LeavesEveryGuardAndPaddingSentinelAsItFoundIt) {
  KernelCall call = drawn("rope(d=12,base=10000,layout=half,rot=8,dtype=fp32) | batch=2 seq=3 heads=2 order=bhsd pad=3 place=out seed=7");
  const KernelCall before = call;
  opencl_->run(call);
  const Buffer& out = call.outputs[0];
  std::int64_t guards = 0, written = 0;
  for (std::int64_t i = 0; i < out.size(); ++i) {
    const auto origin = sentinel_origin(out.type, out.bits(i));
    if (origin && origin->role != SentinelRole::unwritten) {
      EXPECT_EQ(out.bits(i), before.outputs[0].bits(i)) << "index " << i;
      ++guards;
    }
    if (origin && origin->role == SentinelRole::unwritten) ADD_FAILURE() << "element " << i << " left unwritten";
    if (!origin) ++written;
  }
  EXPECT_EQ(written, 2 * 3 * 2 * 12);
  EXPECT_EQ(guards, out.size() - written);
}

TEST_F(OpenClBackend, RefusesWhatTheCpuRefusesInTheSameWords) {
  KernelCall past = drawn("rope(d=8,base=10000,dtype=fp32) | seq=4 seed=1");
  past.ids64_data[2] = std::int64_t{1} << 60;
  const std::string message = error_of(*opencl_, past);
  EXPECT_NE(message.find("position id 1152921504606846976 at [axis 0, batch 0, seq 2] is outside"), std::string::npos) << message;
  EXPECT_EQ(message, error_of(*cpu_, past));

  KernelCall gather = drawn("learned(d=4,rows=8,dtype=fp32) | seq=4 seed=1");
  gather.ids64_data[1] = 8;
  EXPECT_NE(error_of(*opencl_, gather).find("position id 8 at [batch 0, seq 1] is past the learned table of 8 rows"),
            std::string::npos);
  EXPECT_EQ(error_of(*opencl_, gather), error_of(*cpu_, gather));

  KernelCall overflow = drawn("rope(d=8,base=10000,dtype=fp32) | seq=2 seed=1");
  overflow.ids64_data[0] = std::numeric_limits<std::int64_t>::max();
  overflow.id_offset = 1;
  EXPECT_NE(error_of(*opencl_, overflow).find("overflows int64"), std::string::npos);

  KernelCall mismatched = drawn("rope(d=8,base=10000,dtype=fp32) | seq=2 seed=1");
  mismatched.spec.d = 16;
  EXPECT_EQ(error_of(*opencl_, mismatched), error_of(*cpu_, mismatched));
}

TEST(OpenClDevices, ABadIndexNamesItselfAndTheValidRange) {
  const auto devices = opencl::list_devices();
  if (devices.empty()) GTEST_SKIP() << "no OpenCL device";
  try {
    opencl::select_device(static_cast<int>(devices.size()) + 6);
    FAIL() << "no error";
  } catch (const SpecError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find(std::to_string(devices.size() + 6)), std::string::npos) << message;
    EXPECT_NE(message.find(fmt::format("valid indices are 0 to {}", devices.size() - 1)), std::string::npos) << message;
  }
  ::setenv(opencl::kDeviceEnvironment, "first", 1);
  EXPECT_THROW(opencl::select_device(std::nullopt), SpecError);
  ::setenv(opencl::kDeviceEnvironment, "0", 1);
  EXPECT_EQ(opencl::select_device(std::nullopt).index, 0);
  ::unsetenv(opencl::kDeviceEnvironment);
  EXPECT_THROW(make_backend("cpu", 0), SpecError) << "--device is refused for a host backend";
}

TEST(OpenClRuntime, ABuildFailureCarriesTheCallTheErrorNameAndTheLog) {
  const auto devices = opencl::list_devices();
  if (devices.empty()) GTEST_SKIP() << "no OpenCL device";
  const opencl::Context context(devices.front());
  try {
    opencl::Program(context, "kernel void broken(global int* x) { x[0] = undeclared_name; }", "");
    FAIL() << "no error";
  } catch (const opencl::OpenClError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("clBuildProgram failed: CL_BUILD_PROGRAM_FAILURE (-11)"), std::string::npos) << message;
    EXPECT_NE(message.find("undeclared_name"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace peconform
