// libcuda_rope_plugin.so: the OpenCL example plugin's kernel (examples/opencl-plugin) for CUDA,
// a kernel declaring kDLCUDA: peconform hands it device pointers (DLTensor.data, plus
// byte_offset to element [0,0,0,0]) to copies of whole host buffers and its stream in
// pec_call.stream, and synchronizes the stream after the call. RoPE in either pairing on fp32
// and bf16, exact-angle and fp32-angle with Hugging Face's theta, every call the campaign draws.
// The element math is backends/gpu/'s, which nvcc compiles __host__ __device__; the frequencies
// are the OpenCL example's (examples/opencl-plugin/rope_frequencies.c).
//
// Compiled wherever nvcc is; run only where a CUDA device is (tests/tools/cuda_plugin_test.cpp,
// label gpu, skips without one).
#include <cstdint>
#include <cstdio>
#include <cuda_runtime.h>

#include "backends/gpu/element_index.h"
#include "backends/gpu/storage_math.h"
#include "peconform/kernel_abi.h"
#include "rope_frequencies.h"

namespace {

constexpr int kTokensPerBlock = 128;

struct Tensor {
  char* data;  // element [0,0,0,0]
  long long strides[4];
};

struct Rotation {
  Tensor in, out;
  const void* ids;
  int ids64;
  long long id_offset, tokens, seq;
  int heads, pairs, layout, bf16, exact;
  const double* frequencies;  // theta_i as hi, lo (exact-angle), or the float32 theta_i and 0
};

__device__ float load(const Tensor& t, long long at, int bf16) {
  return bf16 ? pec_float_of_bf16(reinterpret_cast<const pec_u16*>(t.data)[at]) : reinterpret_cast<const float*>(t.data)[at];
}

__device__ void store(const Tensor& t, long long at, float value, int bf16) {
  if (bf16)
    reinterpret_cast<pec_u16*>(t.data)[at] = pec_bf16_of_float(value);
  else
    reinterpret_cast<float*>(t.data)[at] = value;
}

__global__ void rope(Rotation r) {
  const long long token = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (token >= r.tokens) return;
  const long long b = token / r.seq, s = token % r.seq;
  const long long position =
      (r.ids64 ? static_cast<const long long*>(r.ids)[token] : static_cast<const int*>(r.ids)[token]) + r.id_offset;
  const long long in_row = b * r.in.strides[0] + s * r.in.strides[1], out_row = b * r.out.strides[0] + s * r.out.strides[1];
  for (int i = 0; i < r.pairs; ++i) {
    const pec_frequency frequency = {r.frequencies[2 * i], r.frequencies[2 * i + 1]};
    // fp32-angle: fl(fl(p) theta_f), float32's own product; its sine and cosine as accurately as
    // exact-angle's, then rounded once to float32 (the class rounds the angle, not sin and cos).
    const pec_angle angle = r.exact ? pec_exact_angle(static_cast<double>(position), frequency)
                                    : pec_float32_angle(static_cast<float>(position), static_cast<float>(frequency.hi));
    const pec_sin_cos_pair value = pec_sin_cos(angle);
    const float c = static_cast<float>(value.cos), sn = static_cast<float>(value.sin);
    const pec_pair_elements e = pec_rotary_pair(r.layout, 0, r.pairs, i);
    for (int h = 0; h < r.heads; ++h) {
      const long long in_head = in_row + h * r.in.strides[2], out_head = out_row + h * r.out.strides[2];
      const pec_rotated_f32 y = pec_rotate_f32(load(r.in, in_head + e.read_a * r.in.strides[3], r.bf16),
                                               load(r.in, in_head + e.read_b * r.in.strides[3], r.bf16), c, sn);
      store(r.out, out_head + e.write_a * r.out.strides[3], y.a, r.bf16);
      store(r.out, out_head + e.write_b * r.out.strides[3], y.b, r.bf16);
    }
  }
}

#define EXACT_ANGLE_PATTERN "rope(d=*,base=*,layout=half|interleaved,dtype=fp32|bf16,precision=exact-angle)"
#define FP32_ANGLE_PATTERN "rope(d=*,base=*,layout=half|interleaved,dtype=fp32|bf16,precision=fp32-angle,theta=hf)"

bool serves(const pec_spec& spec) {
  const bool exact = spec.precision == PEC_EXACT_ANGLE;
  const bool hf_fp32_angle = spec.precision == PEC_FP32_ANGLE && spec.theta == PEC_THETA_HF;
  const bool fp32 = spec.dtype.code == kDLFloat && spec.dtype.bits == 32;
  const bool bf16 = spec.dtype.code == kDLBfloat && spec.dtype.bits == 16;
  return spec.family == PEC_ROPE && (spec.layout == PEC_LAYOUT_HALF || spec.layout == PEC_LAYOUT_INTERLEAVED) &&
         spec.rot == spec.d && spec.sign == 1 && spec.amp == 1.0 && spec.scaling.kind == PEC_PLAN_NONE &&
         (exact || hf_fp32_angle) && (fp32 || bf16);
}

Tensor tensor_of(const DLTensor& t) {
  Tensor out{static_cast<char*>(t.data) + t.byte_offset, {}};
  long long compact = 1;
  for (int a = 3; a >= 0; --a) {  // DLPack's NULL strides: compact row-major
    out.strides[a] = t.strides != nullptr ? t.strides[a] : compact;
    compact *= t.shape[a];
  }
  return out;
}

pec_status failed(cudaError_t status, const char* what, char* error, std::size_t error_size) {
  std::snprintf(error, error_size, "%s: %s (%s)", what, cudaGetErrorName(status), cudaGetErrorString(status));
  return PEC_FAILED;
}

pec_status cuda_rope(const pec_call* call, char* error, std::size_t error_size) {
  const pec_spec& spec = *call->spec;
  if (!serves(spec)) {
    std::snprintf(error, error_size, "serves %s; %s; not %s", EXACT_ANGLE_PATTERN, FP32_ANGLE_PATTERN, call->spec_text);
    return PEC_REFUSED;
  }
  if (call->ids == nullptr || call->ids->device.device_type != kDLCUDA || call->outputs[0].device.device_type != kDLCUDA) {
    std::snprintf(error, error_size, "takes CUDA device memory (kDLCUDA)");
    return PEC_REFUSED;
  }
  // The device peconform chose (--device): this library's CUDA runtime is its own, whose current
  // device is 0 until it is told.
  if (const cudaError_t status = cudaSetDevice(call->outputs[0].device.device_id); status != cudaSuccess)
    return failed(status, "cudaSetDevice", error, error_size);
  const auto stream = static_cast<cudaStream_t>(call->stream);
  const int pairs = spec.rot / 2;
  const std::size_t frequency_bytes = sizeof(double) * 2 * static_cast<std::size_t>(pairs > 0 ? pairs : 1);
  double host_frequencies[2 * 1024];
  if (pairs > 1024) {
    std::snprintf(error, error_size, "rot %d is more than 2048", spec.rot);
    return PEC_REFUSED;
  }
  rope_frequencies(call, host_frequencies);
  void* frequencies = nullptr;
  if (const cudaError_t status = cudaMallocAsync(&frequencies, frequency_bytes, stream); status != cudaSuccess)
    return failed(status, "cudaMallocAsync", error, error_size);
  cudaError_t status = cudaMemcpyAsync(frequencies, host_frequencies, frequency_bytes, cudaMemcpyHostToDevice, stream);
  const char* what = "cudaMemcpyAsync";
  for (int o = 0; o < call->operand_count && status == cudaSuccess; ++o) {
    Rotation r{};
    r.in = tensor_of(call->inputs[o]);
    r.out = tensor_of(call->outputs[o]);
    r.ids = static_cast<const char*>(call->ids->data) + call->ids->byte_offset;
    r.ids64 = call->ids->dtype.bits == 64;
    r.id_offset = call->id_offset;
    r.seq = call->outputs[o].shape[1];
    r.tokens = call->outputs[o].shape[0] * r.seq;
    r.heads = static_cast<int>(call->outputs[o].shape[2]);
    r.pairs = pairs;
    r.layout = spec.layout;
    r.bf16 = spec.dtype.code == kDLBfloat;
    r.exact = spec.precision == PEC_EXACT_ANGLE;
    r.frequencies = static_cast<const double*>(frequencies);
    if (r.tokens == 0) continue;
    const long long blocks = (r.tokens + kTokensPerBlock - 1) / kTokensPerBlock;
    rope<<<static_cast<unsigned>(blocks), kTokensPerBlock, 0, stream>>>(r);
    status = cudaGetLastError();
    what = "rope<<<>>>";
  }
  // The host copy of the frequencies must outlive their copy to the device.
  const cudaError_t synchronized = cudaStreamSynchronize(stream);
  cudaFreeAsync(frequencies, stream);
  if (status != cudaSuccess) return failed(status, what, error, error_size);
  if (synchronized != cudaSuccess) return failed(synchronized, "cudaStreamSynchronize", error, error_size);
  return PEC_OK;
}

const pec_kernel kernels[] = {
    {"cuda_rope", EXACT_ANGLE_PATTERN ";" FP32_ANGLE_PATTERN, kDLCUDA, PEC_TAKES_EVERY_CALL, std::int64_t{1} << 25, cuda_rope},
};

const pec_plugin plugin = {PECONFORM_ABI_VERSION, "cuda-plugin-test", 1, kernels};

}  // namespace

extern "C" __attribute__((visibility("default"))) const pec_plugin* peconform_plugin_v1(void) { return &plugin; }
