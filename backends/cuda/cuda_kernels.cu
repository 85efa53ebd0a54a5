// The CUDA kernels: each turns its block and thread into the index of the work item that
// cuda_threads.hpp defines, and nothing else. nvcc builds this file with --fmad=false (CMake),
// so that no a*b - c*d is contracted into an fma: the CPU kernels are built without contraction
// too, and the two then agree bit for bit wherever the math is the same.
#include <cuda_runtime.h>

#include "backends/cuda/cuda_threads.hpp"

namespace peconform::cuda {
namespace {

constexpr int kThreads = 256;

__device__ inline pec_i64 thread_index() { return static_cast<pec_i64>(blockIdx.x) * blockDim.x + threadIdx.x; }

template <class S> __global__ void rotary_kernel(DeviceRotaryPlan plan, RotaryOperands operands, DeviceIds ids) {
  const pec_i64 thread = thread_index();
  if (thread < rotary_threads(plan, ids)) rotary_thread<S>(thread, plan, operands, ids);
}

template <class S>
__global__ void sinusoid_kernel(DeviceSinusoidPlan plan, void* out, pec_i64 row_stride, pec_i64 element_stride) {
  const pec_i64 thread = thread_index();
  if (thread < sinusoid_threads(plan)) sinusoid_thread<S>(thread, plan, out, row_stride, element_stride);
}

template <class S> __global__ void alibi_kernel(DeviceAlibiPlan plan, void* out, BiasStrides stride) {
  const pec_i64 thread = thread_index();
  if (thread < alibi_threads(plan)) alibi_thread<S>(thread, plan, out, stride);
}

__global__ void relative_index_kernel(DeviceRelativeIndexPlan plan, pec_i32* out, BiasStrides stride) {
  const pec_i64 thread = thread_index();
  if (thread < relative_index_threads(plan)) relative_index_thread(thread, plan, out, stride);
}

template <class Bits> __global__ void gather_kernel(DeviceGather gather, DeviceIds ids) {
  const pec_i64 thread = thread_index();
  if (thread < gather_threads(gather, ids)) gather_thread<Bits>(thread, gather, ids);
}

template <class S> __global__ void scaled_gather_kernel(DeviceGather gather, DeviceIds ids) {
  const pec_i64 thread = thread_index();
  if (thread < gather_threads(gather, ids)) scaled_gather_thread<S>(thread, gather, ids);
}

unsigned blocks_for(pec_i64 threads) { return static_cast<unsigned>((threads + kThreads - 1) / kThreads); }

// cudaGetLastError reports the last error of any runtime call on this thread, and clears it: a
// failed call before the launch (already thrown as a harness error) would read as the launch's
// own. So each launch clears it first, and then reads what the launch left: a grid the device
// cannot take. A fault while the kernel runs shows at the caller's synchronisation.
void clear_earlier_error() { static_cast<void>(cudaGetLastError()); }
int launched() { return static_cast<int>(cudaGetLastError()); }

template <class S> int rotary_as(const DeviceRotaryPlan& plan, const RotaryOperands& operands, const DeviceIds& ids) {
  clear_earlier_error();
  if (const pec_i64 threads = rotary_threads(plan, ids); threads > 0)
    rotary_kernel<S><<<blocks_for(threads), kThreads>>>(plan, operands, ids);
  return launched();
}

template <class S> int sinusoid_as(const DeviceSinusoidPlan& plan, void* out, pec_i64 row_stride, pec_i64 element_stride) {
  clear_earlier_error();
  if (const pec_i64 threads = sinusoid_threads(plan); threads > 0)
    sinusoid_kernel<S><<<blocks_for(threads), kThreads>>>(plan, out, row_stride, element_stride);
  return launched();
}

template <class S> int alibi_as(const DeviceAlibiPlan& plan, void* out, const BiasStrides& stride) {
  clear_earlier_error();
  if (const pec_i64 threads = alibi_threads(plan); threads > 0) alibi_kernel<S><<<blocks_for(threads), kThreads>>>(plan, out, stride);
  return launched();
}

template <class Bits> int gather_as(const DeviceGather& gather, const DeviceIds& ids) {
  clear_earlier_error();
  if (const pec_i64 threads = gather_threads(gather, ids); threads > 0)
    gather_kernel<Bits><<<blocks_for(threads), kThreads>>>(gather, ids);
  return launched();
}

template <class S> int scaled_gather_as(const DeviceGather& gather, const DeviceIds& ids) {
  clear_earlier_error();
  if (const pec_i64 threads = gather_threads(gather, ids); threads > 0)
    scaled_gather_kernel<S><<<blocks_for(threads), kThreads>>>(gather, ids);
  return launched();
}

}  // namespace

int launch_rotary(Storage storage, const DeviceRotaryPlan& plan, const RotaryOperands& operands, const DeviceIds& ids) {
  switch (storage) {
    case Storage::fp64: return rotary_as<Fp64>(plan, operands, ids);
    case Storage::fp32: return rotary_as<Fp32>(plan, operands, ids);
    case Storage::fp16: return rotary_as<Fp16>(plan, operands, ids);
    case Storage::bf16: return rotary_as<Bf16>(plan, operands, ids);
  }
  return static_cast<int>(cudaErrorInvalidValue);
}

int launch_sinusoid(Storage storage, const DeviceSinusoidPlan& plan, void* out, std::int64_t row_stride,
                    std::int64_t element_stride) {
  switch (storage) {
    case Storage::fp64: return sinusoid_as<Fp64>(plan, out, row_stride, element_stride);
    case Storage::fp32: return sinusoid_as<Fp32>(plan, out, row_stride, element_stride);
    case Storage::fp16: return sinusoid_as<Fp16>(plan, out, row_stride, element_stride);
    case Storage::bf16: return sinusoid_as<Bf16>(plan, out, row_stride, element_stride);
  }
  return static_cast<int>(cudaErrorInvalidValue);
}

int launch_alibi(Storage storage, const DeviceAlibiPlan& plan, void* out, const BiasStrides& stride) {
  switch (storage) {
    case Storage::fp64: return alibi_as<Fp64>(plan, out, stride);
    case Storage::fp32: return alibi_as<Fp32>(plan, out, stride);
    case Storage::fp16: return alibi_as<Fp16>(plan, out, stride);
    case Storage::bf16: return alibi_as<Bf16>(plan, out, stride);
  }
  return static_cast<int>(cudaErrorInvalidValue);
}

int launch_relative_index(const DeviceRelativeIndexPlan& plan, std::int32_t* out, const BiasStrides& stride) {
  clear_earlier_error();
  if (const pec_i64 threads = relative_index_threads(plan); threads > 0)
    relative_index_kernel<<<blocks_for(threads), kThreads>>>(plan, out, stride);
  return launched();
}

int launch_gather(const DeviceGather& gather, const DeviceIds& ids) {
  if (gather.amplitude != 1) {
    switch (gather.storage) {
      case Storage::fp64: return scaled_gather_as<Fp64>(gather, ids);
      case Storage::fp32: return scaled_gather_as<Fp32>(gather, ids);
      case Storage::fp16: return scaled_gather_as<Fp16>(gather, ids);
      case Storage::bf16: return scaled_gather_as<Bf16>(gather, ids);
    }
    return static_cast<int>(cudaErrorInvalidValue);
  }
  switch (gather.element_size) {
    case 8: return gather_as<pec_u64>(gather, ids);
    case 4: return gather_as<pec_u32>(gather, ids);
    case 2: return gather_as<pec_u16>(gather, ids);
  }
  return static_cast<int>(cudaErrorInvalidValue);
}

}  // namespace peconform::cuda
