#pragma once
// The parameters of the CUDA kernels as plain structs, and their launches (cuda_kernels.cu) as
// plain functions, so that nvcc compiles only the kernels and the element math
// (backends/gpu/*.h), and everything that plans, checks and copies (cuda_tensor_backend.cpp) is
// ordinary host C++ that never meets nvcc. Pointers point where the kernel runs (the device, or
// the host for tests/backends/cuda/host_place.cpp); every index is 64-bit. Each launch returns
// the CUDA error of the launch itself, as an int so that this header needs no CUDA header.
#include <cstdint>

#include "backends/gpu/angle_math.h"

namespace peconform::cuda {

// The storage type of a buffer's elements, which picks the kernel's instantiation.
enum class Storage { fp64, fp32, fp16, bf16 };

// How a rotary pair forms its angle: from the split frequency (exact-angle, lowp-cache), from
// float32 position and theta (fp32-angle's exact/hf/meta recipes), or ggml's running product.
enum class AngleForm { exact, float32, ggml_running };

// One rotary plan on the device (backends/cpu/rotary_plan.hpp's RotaryPlan, flattened).
struct DeviceRotaryPlan {
  int d = 0, start = 0, dims = 0, pairs = 0;
  int layout = 0;  // PEC_GPU_LAYOUT_*
  AngleForm angle = AngleForm::exact;
  bool cache_in_storage = false;  // cache=storage, lowp-cache: cos and sin rounded to the storage type
  bool storage_math = false;      // math=storage: each product rounded to the storage type
  double attention = 1, sign = 1;
  float ggml_scale = 1, ggml_freq_scale = 1;
  const int* pair_axis = nullptr;                 // [pairs]
  const int* pair_frequency = nullptr;            // [pairs], ggml's index k
  const float* ggml_divisor = nullptr;            // [pairs], ggml's freq_factors, or null
  const float* ggml_ramp = nullptr;               // [pairs], ggml's YaRN ramp_mix, or null
  const pec_frequency* frequency = nullptr;       // [pairs]
  const float* frequency_f32 = nullptr;           // [pairs]
  const double* xpos_log_zeta = nullptr;          // [pairs], or null
};

// A strided [batch, seq, heads, dim] view; `in` and `out` are the same memory in place.
struct DeviceOperand {
  const void* in = nullptr;
  void* out = nullptr;
  std::int64_t heads = 0;
  std::int64_t in_stride[4] = {0, 0, 0, 0}, out_stride[4] = {0, 0, 0, 0};
};

inline constexpr int kMaxDeviceOperands = 2;

struct RotaryOperands {
  DeviceOperand operand[kMaxDeviceOperands];
  int count = 0;
};

// [axes, batch, seq] contiguous ids, int32 or int64, to which `offset` is added.
struct DeviceIds {
  const void* data = nullptr;
  bool is_int64 = true;
  std::int64_t batch = 1, seq = 1, offset = 0;
};

int launch_rotary(Storage storage, const DeviceRotaryPlan& plan, const RotaryOperands& operands, const DeviceIds& ids);

// Sinusoidal and Transformer-XL rows: row r of d values at out + r*row_stride + e*element_stride.
struct DeviceSinusoidPlan {
  int d = 0;
  bool absolute = true, interleaved = true, cos_first = false, float_angle = false;
  std::int64_t first = 0, rows = 0, offset = 0, clamp_len = 0;
  const pec_frequency* frequency = nullptr;  // [d/2 + 1]
  const float* frequency_f32 = nullptr;      // [d/2 + 1]
  double amplitude = 1;                      // amp: each entry, in the compute type, times it
};

int launch_sinusoid(Storage storage, const DeviceSinusoidPlan& plan, void* out, std::int64_t row_stride,
                    std::int64_t element_stride);

// The strides of a [heads, q, k] bias block (T5 and Shaw: one head).
struct BiasStrides {
  std::int64_t head = 0, query = 0, key = 0;
};

// ALiBi biases [heads, q, k] with strides.
struct DeviceAlibiPlan {
  std::int64_t heads = 0, q_first = 0, q_len = 0, k_first = 0, k_len = 0;
  int mode = 0;  // pec_alibi_mode
  bool float_angle = false;
  const double* slope = nullptr;     // [heads]
  const float* slope_f32 = nullptr;  // [heads]
};

int launch_alibi(Storage storage, const DeviceAlibiPlan& plan, void* out, const BiasStrides& stride);

// T5 buckets or Shaw indices [q, k] (int32) with strides.
struct DeviceRelativeIndexPlan {
  bool t5 = true;
  std::int64_t q_first = 0, q_len = 0, k_first = 0, k_len = 0;
  bool bidirectional = false;
  std::int32_t upper_half = 0;
  std::int64_t exact = 0;
  std::int64_t left = 0, right = 0;  // Shaw's window
  const std::int64_t* bucket_start = nullptr;
  int starts = 0;
};

int launch_relative_index(const DeviceRelativeIndexPlan& plan, std::int32_t* out, const BiasStrides& stride);

// Learned: out[b, s, e] = table[id(b, s), e], elements of `element_size` bytes moved as bits, or
// under amp, amp times table[id(b, s), e].
struct DeviceGather {
  const void* table = nullptr;
  std::int64_t table_row_stride = 0, table_element_stride = 1;
  void* out = nullptr;
  std::int64_t out_stride[4] = {0, 0, 0, 0};
  std::int64_t d = 0;
  int element_size = 4;
  // amp: 1 moves the bits; any other value multiplies each entry in the storage's compute type.
  double amplitude = 1;
  Storage storage = Storage::fp32;
};

int launch_gather(const DeviceGather& gather, const DeviceIds& ids);

}  // namespace peconform::cuda
