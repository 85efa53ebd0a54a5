// The CUDA kernels: one thread per rotary pair of a token (all heads of every operand), per table
// element, per bias, per index. Every value they compute comes from the element math shared
// with OpenCL and the host tests (backends/gpu/*.h); what is here is only which thread does what
// and how a storage type is loaded and stored. nvcc builds this file with --fmad=false (CMake),
// so that no a*b - c*d is contracted into an fma: the CPU kernels are built without contraction
// too, and the two then agree bit for bit wherever the math is the same.
#include <cuda_runtime.h>

#include "backends/cuda/cuda_kernels.hpp"
#include "backends/gpu/element_index.h"
#include "backends/gpu/storage_math.h"

namespace peconform::cuda {
namespace {

constexpr int kThreads = 256;

// The four storage types: their bits in memory, the type they compute in (float for fp32,
// fp16, bf16; double for fp64), and the conversions (storage_math.h rounds to nearest even).
struct Fp64 {
  using Bits = double;
  using Compute = double;
  __device__ static Compute load(Bits value) { return value; }
  __device__ static Bits store(Compute value) { return value; }
};
struct Fp32 {
  using Bits = float;
  using Compute = float;
  __device__ static Compute load(Bits value) { return value; }
  __device__ static Bits store(Compute value) { return value; }
};
struct Fp16 {
  using Bits = pec_u16;
  using Compute = float;
  __device__ static Compute load(Bits value) { return pec_float_of_half(value); }
  __device__ static Bits store(Compute value) { return pec_half_of_float(value); }
};
struct Bf16 {
  using Bits = pec_u16;
  using Compute = float;
  __device__ static Compute load(Bits value) { return pec_float_of_bf16(value); }
  __device__ static Bits store(Compute value) { return pec_bf16_of_float(value); }
};

__device__ inline float rotated_a(float a, float b, float c, float s) { return pec_rotate_f32(a, b, c, s).a; }
__device__ inline float rotated_b(float a, float b, float c, float s) { return pec_rotate_f32(a, b, c, s).b; }
__device__ inline double rotated_a(double a, double b, double c, double s) { return pec_rotate_f64(a, b, c, s).a; }
__device__ inline double rotated_b(double a, double b, double c, double s) { return pec_rotate_f64(a, b, c, s).b; }

__device__ inline pec_i64 id_at(const DeviceIds& ids, int axis, pec_i64 token) {
  const pec_i64 index = axis * ids.batch * ids.seq + token;
  const pec_i64 id = ids.is_int64 ? static_cast<const pec_i64*>(ids.data)[index] : static_cast<const pec_i32*>(ids.data)[index];
  return id + ids.offset;  // the host refused every call where this overflows
}

struct RotaryOperands {
  DeviceOperand operand[kMaxDeviceOperands];
  int count;
};

// Thread (token, pair): the pair's cos and sin once, then the pair of every head of every
// operand, and (out of place) the pass-through elements numbered pair, pair + pairs, ...
template <class S>
__global__ void rotary_kernel(DeviceRotaryPlan plan, RotaryOperands operands, DeviceIds ids) {
  using Compute = typename S::Compute;
  using Bits = typename S::Bits;
  const pec_i64 items = plan.pairs > 0 ? plan.pairs : 1;
  const pec_i64 thread = static_cast<pec_i64>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (thread >= ids.batch * ids.seq * items) return;
  const pec_i64 token = thread / items;
  const int pair = static_cast<int>(thread % items);
  const pec_i64 b = token / ids.seq, s = token % ids.seq;

  Compute c = 0, sn = 0;
  if (pair < plan.pairs) {
    const int axis = plan.pair_axis[pair];
    const pec_i64 position = id_at(ids, axis, token);
    pec_angle angle;
    if (plan.angle == AngleForm::exact)
      angle = pec_exact_angle(static_cast<double>(position), plan.frequency[pair]);
    else if (plan.angle == AngleForm::float32)
      angle = pec_float32_angle(static_cast<float>(position), plan.frequency_f32[pair]);
    else
      angle = pec_ggml_angle(static_cast<float>(position), plan.ggml_scale, plan.pair_frequency[pair], plan.ggml_scaled,
                             plan.ggml_freq_scale);
    const double log_zeta = plan.xpos_log_zeta != nullptr ? plan.xpos_log_zeta[pair] : 0.0;
    const double xpos_position = static_cast<double>(id_at(ids, 0, token));
    const pec_sin_cos_pair value = pec_rotary_cos_sin(angle, plan.attention, xpos_position, log_zeta, plan.sign);
    c = static_cast<Compute>(value.cos);
    sn = static_cast<Compute>(value.sin);
    if (plan.lowp_cache) {
      c = S::load(S::store(c));
      sn = S::load(S::store(sn));
    }
  }
  const pec_pair_elements elements = pec_rotary_pair(plan.layout, plan.start, plan.pairs, pair);
  const int passthrough = plan.d - plan.dims;
  for (int k = 0; k < operands.count; ++k) {
    const DeviceOperand& operand = operands.operand[k];
    const Bits* in = static_cast<const Bits*>(operand.in);
    Bits* out = static_cast<Bits*>(operand.out);
    const pec_i64* is = operand.in_stride;
    const pec_i64* os = operand.out_stride;
    for (pec_i64 h = 0; h < operand.heads; ++h) {
      const Bits* x = in + b * is[0] + s * is[1] + h * is[2];
      Bits* y = out + b * os[0] + s * os[1] + h * os[2];
      if (pair < plan.pairs) {
        const Compute a = S::load(x[elements.read_a * is[3]]), bb = S::load(x[elements.read_b * is[3]]);
        y[elements.write_a * os[3]] = S::store(rotated_a(a, bb, c, sn));
        y[elements.write_b * os[3]] = S::store(rotated_b(a, bb, c, sn));
      }
      if (operand.in != operand.out)
        for (pec_i64 j = pair; j < passthrough; j += items) {
          const pec_i64 e = j < plan.start ? j : j + plan.dims;
          y[e * os[3]] = x[e * is[3]];
        }
    }
  }
}

// Thread (row, element) of a sinusoid table.
template <class S>
__global__ void sinusoid_kernel(DeviceSinusoidPlan plan, typename S::Bits* out, pec_i64 row_stride, pec_i64 element_stride) {
  using Compute = typename S::Compute;
  const pec_i64 thread = static_cast<pec_i64>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (thread >= plan.rows * plan.d) return;
  const pec_i64 r = thread / plan.d;
  const int e = static_cast<int>(thread % plan.d);
  const pec_sinusoid_term term = pec_sinusoid_element(plan.d, plan.interleaved, plan.cos_first, e);
  Compute value = 0;
  if (!term.is_zero) {
    const pec_i64 position = pec_sinusoid_row_position(plan.absolute, plan.first, r, plan.offset, plan.clamp_len);
    const pec_angle angle = plan.float_angle ? pec_float32_angle(static_cast<float>(position), plan.frequency_f32[term.pair])
                                             : pec_exact_angle(static_cast<double>(position), plan.frequency[term.pair]);
    const pec_sin_cos_pair sin_cos = pec_sin_cos(angle);
    value = static_cast<Compute>(term.is_cos ? sin_cos.cos : sin_cos.sin);
  }
  out[r * row_stride + e * element_stride] = S::store(value);
}

// Thread (head, query, key) of an ALiBi bias.
template <class S>
__global__ void alibi_kernel(DeviceAlibiPlan plan, typename S::Bits* out, pec_i64 stride_h, pec_i64 stride_q, pec_i64 stride_k) {
  using Compute = typename S::Compute;
  const pec_i64 thread = static_cast<pec_i64>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (thread >= plan.heads * plan.q_len * plan.k_len) return;
  const pec_i64 k = thread % plan.k_len, q = (thread / plan.k_len) % plan.q_len, h = thread / (plan.k_len * plan.q_len);
  const double bias = pec_alibi_bias(plan.q_first + q, plan.k_first + k, plan.slope[h], plan.slope_f32[h], plan.float_angle,
                                     plan.causal);
  out[h * stride_h + q * stride_q + k * stride_k] = S::store(static_cast<Compute>(bias));
}

__global__ void relative_index_kernel(DeviceRelativeIndexPlan plan, pec_i32* out, pec_i64 stride_q, pec_i64 stride_k) {
  const pec_i64 thread = static_cast<pec_i64>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (thread >= plan.q_len * plan.k_len) return;
  const pec_i64 k = thread % plan.k_len, q = thread / plan.k_len;
  const pec_i64 relative = (plan.k_first + k) - (plan.q_first + q);
  out[q * stride_q + k * stride_k] =
      plan.t5 ? pec_t5_bucket(relative, plan.bidirectional, plan.upper_half, plan.exact, plan.bucket_start, plan.starts)
              : pec_shaw_index(relative, plan.window);
}

template <class Bits>
__global__ void gather_kernel(DeviceGather gather, DeviceIds ids) {
  const pec_i64 thread = static_cast<pec_i64>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (thread >= ids.batch * ids.seq * gather.d) return;
  const pec_i64 e = thread % gather.d, token = thread / gather.d;
  const pec_i64 b = token / ids.seq, s = token % ids.seq;
  const Bits* table = static_cast<const Bits*>(gather.table);
  Bits* out = static_cast<Bits*>(gather.out);
  out[b * gather.out_stride[0] + s * gather.out_stride[1] + e * gather.out_stride[3]] =
      table[id_at(ids, 0, token) * gather.table_row_stride + e * gather.table_element_stride];
}

unsigned blocks_for(pec_i64 threads) { return static_cast<unsigned>((threads + kThreads - 1) / kThreads); }

int last_launch_error() { return static_cast<int>(cudaGetLastError()); }

template <class S>
int launch_rotary_as(const DeviceRotaryPlan& plan, const RotaryOperands& operands, const DeviceIds& ids) {
  const pec_i64 threads = ids.batch * ids.seq * (plan.pairs > 0 ? plan.pairs : 1);
  if (threads > 0) rotary_kernel<S><<<blocks_for(threads), kThreads>>>(plan, operands, ids);
  return last_launch_error();
}

template <class S> int launch_sinusoid_as(const DeviceSinusoidPlan& plan, void* out, pec_i64 row_stride, pec_i64 element_stride) {
  const pec_i64 threads = plan.rows * plan.d;
  if (threads > 0)
    sinusoid_kernel<S><<<blocks_for(threads), kThreads>>>(plan, static_cast<typename S::Bits*>(out), row_stride, element_stride);
  return last_launch_error();
}

template <class S> int launch_alibi_as(const DeviceAlibiPlan& plan, void* out, const pec_i64 stride[3]) {
  const pec_i64 threads = plan.heads * plan.q_len * plan.k_len;
  if (threads > 0)
    alibi_kernel<S><<<blocks_for(threads), kThreads>>>(plan, static_cast<typename S::Bits*>(out), stride[0], stride[1], stride[2]);
  return last_launch_error();
}

}  // namespace

int launch_rotary(Storage storage, const DeviceRotaryPlan& plan, const DeviceOperand* operands, int operand_count,
                  const DeviceIds& ids) {
  RotaryOperands all{};
  all.count = operand_count;
  for (int k = 0; k < operand_count; ++k) all.operand[k] = operands[k];
  switch (storage) {
    case Storage::fp64: return launch_rotary_as<Fp64>(plan, all, ids);
    case Storage::fp32: return launch_rotary_as<Fp32>(plan, all, ids);
    case Storage::fp16: return launch_rotary_as<Fp16>(plan, all, ids);
    case Storage::bf16: return launch_rotary_as<Bf16>(plan, all, ids);
  }
  return static_cast<int>(cudaErrorInvalidValue);
}

int launch_sinusoid(Storage storage, const DeviceSinusoidPlan& plan, void* out, std::int64_t row_stride,
                    std::int64_t element_stride) {
  switch (storage) {
    case Storage::fp64: return launch_sinusoid_as<Fp64>(plan, out, row_stride, element_stride);
    case Storage::fp32: return launch_sinusoid_as<Fp32>(plan, out, row_stride, element_stride);
    case Storage::fp16: return launch_sinusoid_as<Fp16>(plan, out, row_stride, element_stride);
    case Storage::bf16: return launch_sinusoid_as<Bf16>(plan, out, row_stride, element_stride);
  }
  return static_cast<int>(cudaErrorInvalidValue);
}

int launch_alibi(Storage storage, const DeviceAlibiPlan& plan, void* out, const std::int64_t stride[3]) {
  switch (storage) {
    case Storage::fp64: return launch_alibi_as<Fp64>(plan, out, stride);
    case Storage::fp32: return launch_alibi_as<Fp32>(plan, out, stride);
    case Storage::fp16: return launch_alibi_as<Fp16>(plan, out, stride);
    case Storage::bf16: return launch_alibi_as<Bf16>(plan, out, stride);
  }
  return static_cast<int>(cudaErrorInvalidValue);
}

int launch_relative_index(const DeviceRelativeIndexPlan& plan, std::int32_t* out, const std::int64_t stride[2]) {
  const pec_i64 threads = plan.q_len * plan.k_len;
  if (threads > 0) relative_index_kernel<<<blocks_for(threads), kThreads>>>(plan, out, stride[0], stride[1]);
  return last_launch_error();
}

int launch_gather(const DeviceGather& gather, const DeviceIds& ids) {
  const pec_i64 threads = ids.batch * ids.seq * gather.d;
  if (threads > 0) {
    if (gather.element_size == 8) gather_kernel<pec_u64><<<blocks_for(threads), kThreads>>>(gather, ids);
    else if (gather.element_size == 4) gather_kernel<pec_u32><<<blocks_for(threads), kThreads>>>(gather, ids);
    else gather_kernel<pec_u16><<<blocks_for(threads), kThreads>>>(gather, ids);
  }
  return last_launch_error();
}

}  // namespace peconform::cuda
