#pragma once
// The calls the CUDA backend is held to the CPU backend on, bit for bit: on a device
// (cuda_backend_test.cpp) and with its kernels run on the host (cuda_threads_test.cpp).
#include <gtest/gtest.h>

#include "backends/backend_registry.hpp"
#include "harness/case_call.hpp"

namespace peconform {

// Every family, dtype and precision class; both layouts and interleaved-to-half, partial rotary
// first and last, in place and out of place, int32 and int64 ids, padded and transposed views,
// queries and keys (GQA) in one call, positions near the exact-angle limit.
inline constexpr const char* kCudaCases[] = {
    "rope(d=128,base=10000,layout=half,dtype=bf16) | batch=2 seq=37 heads=4 kv_heads=2 place=out ids=int64 positions=run inputs=activations seed=1",
    "rope(d=64,base=500000,layout=interleaved,dtype=fp16) | batch=1 seq=19 heads=3 order=bhsd pad=3 place=in ids=int32 positions=scattered inputs=activations seed=2",
    "rope(d=20,base=10000,layout=interleaved-to-half,rot=12,rot_at=last,dtype=fp32) | batch=2 seq=5 heads=2 place=in ids=int64 positions=run inputs=bit-patterns seed=3",
    "rope(d=20,base=10000,layout=interleaved-to-half,rot=8,dtype=fp64) | batch=1 seq=7 heads=2 kv_heads=1 place=out ids=int32 positions=run inputs=activations seed=4",
    "rope(d=128,base=10000,layout=half,scaling=yarn(factor=4,orig=4096),dtype=bf16,precision=lowp-cache) | batch=1 seq=33 heads=2 place=out ids=int64 positions=run offset=100000 inputs=activations seed=5",
    "rope(d=64,base=10000,layout=half,dtype=fp32,precision=fp32-angle,theta=hf) | batch=1 seq=9 heads=2 place=out ids=int64 positions=run offset=70000 inputs=activations seed=6",
    "rope(d=64,base=10000,layout=interleaved,dtype=fp32,precision=fp32-angle,theta=ggml) | batch=1 seq=9 heads=2 place=in ids=int32 positions=run inputs=activations seed=7",
    "rope(d=128,base=500000,layout=half,dtype=bf16,precision=fp32-angle,theta=hf,cache=storage,math=storage) | batch=2 seq=21 heads=4 kv_heads=1 place=out ids=int64 positions=run offset=70000 inputs=activations seed=20",
    "rope(d=24,base=10000,layout=interleaved-to-half,rot=16,dtype=fp16,math=storage) | batch=1 seq=7 heads=2 place=in ids=int32 positions=run inputs=bit-patterns seed=21",
    "mrope(d=32,base=10000,sections=[4,6,6],dtype=bf16,cache=storage) | batch=1 seq=9 heads=2 place=out ids=int64 positions=scattered inputs=activations seed=22",
    "mrope(d=128,base=1e6,sections=[16,24,24],dtype=bf16) | batch=1 seq=17 heads=2 place=out ids=int64 positions=scattered inputs=activations seed=8",
    "rope2d(d=16,base=1e4,dtype=fp32) | batch=1 seq=11 heads=2 place=out ids=int64 positions=scattered inputs=activations seed=9",
    "sinusoidal(d=9,layout=half,order=cos-sin,offset=2,dtype=fp16) | seq=40 pad=2 seed=10",
    "sinusoidal(d=16,layout=interleaved,dtype=fp64) | seq=40 offset=1000000 seed=11",
    "xl(d=12,clamp_len=300,precision=fp32-angle,dtype=bf16) | seq=40 seed=12",
    "alibi(heads=12,mode=causal,dtype=fp32) | seq=20 keys=30 seed=13",
    "alibi(heads=6,slopes=bloom,precision=fp32-angle,dtype=bf16) | seq=20 keys=30 key_offset=5 seed=14",
    "t5(buckets=32,max_distance=128) | seq=40 keys=300 seed=15",
    "shaw(k=4) | seq=20 keys=30 seed=16",
    "shaw(k=5,right=1) | seq=20 keys=30 seed=16",
    "learned(d=16,rows=50,dtype=bf16) | batch=2 seq=9 ids=int32 positions=scattered seed=17",
    "learned(d=16,rows=50,amp=0.3,dtype=fp16) | batch=2 seq=9 ids=int32 positions=scattered seed=17",
    "learned(d=16,rows=50,amp=0.04419417382415922,dtype=fp64) | batch=2 seq=9 ids=int64 positions=scattered seed=18",
    "sinusoidal(d=9,layout=half,order=cos-sin,offset=2,amp=0.3,dtype=bf16) | seq=40 pad=2 seed=10",
};

// xPos's amplitude takes exp, which on a device may differ from glibc's in the last bit.
inline constexpr const char* kCudaXposCases[] = {
    "xpos(d=16,base=1e4,rot=8,role=key,dtype=fp32) | batch=1 seq=30 heads=2 place=out ids=int64 positions=run inputs=activations seed=18",
    "xpos(d=64,base=1e4,dtype=bf16) | batch=2 seq=12 heads=2 place=in ids=int32 positions=run inputs=activations seed=19",
};

// Runs the call `text` names on `backend` and on our CPU kernels: every storage element of every
// output (guards and padding included) and of every input must be the same bits.
inline void expect_the_cpu_backends_bits(const TensorBackend& backend, const char* text) {
  const harness::CaseDescription description = harness::CaseDescription::parse(text);
  KernelCall got = harness::materialize(description), want = harness::materialize(description);
  backend.run(got);
  make_backend("cpu")->run(want);
  ASSERT_EQ(got.outputs.size(), want.outputs.size()) << text;
  for (std::size_t k = 0; k < want.outputs.size(); ++k)
    for (std::int64_t i = 0; i < want.outputs[k].size(); ++i)
      ASSERT_EQ(got.outputs[k].bits(i), want.outputs[k].bits(i)) << text << "\noutput " << k << ", storage index " << i;
  for (std::size_t k = 0; k < want.inputs.size(); ++k) EXPECT_EQ(got.inputs[k].bytes, want.inputs[k].bytes) << text << "\ninput " << k;
}

}  // namespace peconform
