#pragma once
// What one CUDA thread does, as a function of its index: the rotary pair of a token (all heads
// of every operand), a table element, a bias, an index, a gathered element. cuda_kernels.cu's
// kernels only turn blockIdx and threadIdx into that index; the host build runs the same
// functions over every index (tests/backends/cuda/host_place.cpp), which is how the index
// arithmetic, the strides and the stores are tested on a machine without a GPU. Every value
// comes from the element math of backends/gpu/*.h. Functions are PEC_FN: __host__ __device__
// under nvcc, inline elsewhere.
#include "backends/cuda/cuda_kernels.hpp"
#include "backends/gpu/element_index.h"
#include "backends/gpu/storage_math.h"

namespace peconform::cuda {

// The four storage types: their bits in memory, the type they compute in (float for fp32,
// fp16, bf16; double for fp64), and the conversions (storage_math.h rounds to nearest even).
struct Fp64 {
  using Bits = double;
  using Compute = double;
  PEC_FN static Compute load(Bits value) { return value; }
  PEC_FN static Bits store(Compute value) { return value; }
};
struct Fp32 {
  using Bits = float;
  using Compute = float;
  PEC_FN static Compute load(Bits value) { return value; }
  PEC_FN static Bits store(Compute value) { return value; }
};
struct Fp16 {
  using Bits = pec_u16;
  using Compute = float;
  PEC_FN static Compute load(Bits value) { return pec_float_of_half(value); }
  PEC_FN static Bits store(Compute value) { return pec_half_of_float(value); }
};
struct Bf16 {
  using Bits = pec_u16;
  using Compute = float;
  PEC_FN static Compute load(Bits value) { return pec_float_of_bf16(value); }
  PEC_FN static Bits store(Compute value) { return pec_bf16_of_float(value); }
};

PEC_FN pec_rotated_f32 rotate(float a, float b, float c, float s) { return pec_rotate_f32(a, b, c, s); }
PEC_FN pec_rotated_f64 rotate(double a, double b, double c, double s) { return pec_rotate_f64(a, b, c, s); }

// math=storage: one product of the rotation rounded to the storage type, as `x * cos` on tensors
// of that type rounds it (the sum then rounds at the store).
template <class S> PEC_FN typename S::Compute storage_product(typename S::Compute x, typename S::Compute factor) {
  return S::load(S::store(x * factor));
}

PEC_FN pec_i64 id_at(const DeviceIds& ids, int axis, pec_i64 token) {
  const pec_i64 index = axis * ids.batch * ids.seq + token;
  const pec_i64 id = ids.is_int64 ? static_cast<const pec_i64*>(ids.data)[index] : static_cast<const pec_i32*>(ids.data)[index];
  return id + ids.offset;  // the host refused every call where this overflows
}

// Thread (token, pair), pair < max(pairs, 1): the pair's cos and sin once, then the pair in
// every head of every operand, and (out of place) the pass-through elements numbered pair,
// pair + pairs, ...
PEC_FN pec_i64 rotary_threads(const DeviceRotaryPlan& plan, const DeviceIds& ids) {
  return ids.batch * ids.seq * (plan.pairs > 0 ? plan.pairs : 1);
}

template <class S>
PEC_FN void rotary_thread(pec_i64 thread, const DeviceRotaryPlan& plan, const RotaryOperands& operands, const DeviceIds& ids) {
  using Compute = typename S::Compute;
  using Bits = typename S::Bits;
  const pec_i64 items = plan.pairs > 0 ? plan.pairs : 1;
  const pec_i64 token = thread / items;
  const int pair = static_cast<int>(thread % items);
  const pec_i64 b = token / ids.seq, s = token % ids.seq;

  Compute c = 0, sn = 0;
  if (pair < plan.pairs) {
    const pec_i64 position = id_at(ids, plan.pair_axis[pair], token);
    pec_angle angle;
    if (plan.angle == AngleForm::exact)
      angle = pec_exact_angle(static_cast<double>(position), plan.frequency[pair]);
    else if (plan.angle == AngleForm::float32)
      angle = pec_float32_angle(static_cast<float>(position), plan.frequency_f32[pair]);
    else
      angle = pec_ggml_angle(static_cast<float>(position), plan.ggml_scale, plan.pair_frequency[pair],
                             plan.ggml_divisor != nullptr ? plan.ggml_divisor[pair] : 1.0f, plan.ggml_freq_scale,
                             plan.ggml_ramp != nullptr, plan.ggml_ramp != nullptr ? plan.ggml_ramp[pair] : 0.0f);
    const double log_zeta = plan.xpos_log_zeta != nullptr ? plan.xpos_log_zeta[pair] : 0.0;
    const double xpos_position = static_cast<double>(id_at(ids, 0, token));
    const pec_sin_cos_pair value = pec_rotary_cos_sin(angle, plan.attention, xpos_position, log_zeta, plan.sign);
    c = static_cast<Compute>(value.cos);
    sn = static_cast<Compute>(value.sin);
    if (plan.cache_in_storage) {
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
        const Compute xa = S::load(x[elements.read_a * is[3]]), xb = S::load(x[elements.read_b * is[3]]);
        if (plan.storage_math) {
          y[elements.write_a * os[3]] = S::store(storage_product<S>(xa, c) - storage_product<S>(xb, sn));
          y[elements.write_b * os[3]] = S::store(storage_product<S>(xa, sn) + storage_product<S>(xb, c));
        } else {
          const auto rotated = rotate(xa, xb, c, sn);
          y[elements.write_a * os[3]] = S::store(rotated.a);
          y[elements.write_b * os[3]] = S::store(rotated.b);
        }
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
PEC_FN pec_i64 sinusoid_threads(const DeviceSinusoidPlan& plan) { return plan.rows * plan.d; }

template <class S>
PEC_FN void sinusoid_thread(pec_i64 thread, const DeviceSinusoidPlan& plan, void* out, pec_i64 row_stride, pec_i64 element_stride) {
  using Compute = typename S::Compute;
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
  static_cast<typename S::Bits*>(out)[r * row_stride + e * element_stride] = S::store(value * static_cast<Compute>(plan.amplitude));
}

// Thread (head, query, key) of an ALiBi bias block.
PEC_FN pec_i64 alibi_threads(const DeviceAlibiPlan& plan) { return plan.heads * plan.q_len * plan.k_len; }

template <class S>
PEC_FN void alibi_thread(pec_i64 thread, const DeviceAlibiPlan& plan, void* out, const BiasStrides& stride) {
  using Compute = typename S::Compute;
  const pec_i64 k = thread % plan.k_len, q = (thread / plan.k_len) % plan.q_len, h = thread / (plan.k_len * plan.q_len);
  const double bias = pec_alibi_bias(plan.q_first + q, plan.k_first + k, plan.k_first + plan.k_len - 1, plan.slope[h],
                                     plan.slope_f32[h], plan.float_angle, plan.mode);
  static_cast<typename S::Bits*>(out)[h * stride.head + q * stride.query + k * stride.key] = S::store(static_cast<Compute>(bias));
}

// Thread (query, key) of a T5 bucket or Shaw index block.
PEC_FN pec_i64 relative_index_threads(const DeviceRelativeIndexPlan& plan) { return plan.q_len * plan.k_len; }

PEC_FN void relative_index_thread(pec_i64 thread, const DeviceRelativeIndexPlan& plan, pec_i32* out, const BiasStrides& stride) {
  const pec_i64 k = thread % plan.k_len, q = thread / plan.k_len;
  const pec_i64 relative = (plan.k_first + k) - (plan.q_first + q);
  out[q * stride.query + k * stride.key] =
      plan.t5 ? pec_t5_bucket(relative, plan.bidirectional, plan.upper_half, plan.exact, plan.bucket_start, plan.starts)
              : pec_shaw_index(relative, plan.left, plan.right);
}

// Thread (token, element) of a learned gather, moving the element's bits.
PEC_FN pec_i64 gather_threads(const DeviceGather& gather, const DeviceIds& ids) { return ids.batch * ids.seq * gather.d; }

template <class Bits> PEC_FN void gather_thread(pec_i64 thread, const DeviceGather& gather, const DeviceIds& ids) {
  const pec_i64 e = thread % gather.d, token = thread / gather.d;
  const pec_i64 b = token / ids.seq, s = token % ids.seq;
  const Bits* table = static_cast<const Bits*>(gather.table);
  static_cast<Bits*>(gather.out)[b * gather.out_stride[0] + s * gather.out_stride[1] + e * gather.out_stride[3]] =
      table[id_at(ids, 0, token) * gather.table_row_stride + e * gather.table_element_stride];
}

// The same thread under amp: the entry, in the compute type, times amp rounded to it.
template <class S> PEC_FN void scaled_gather_thread(pec_i64 thread, const DeviceGather& gather, const DeviceIds& ids) {
  using Compute = typename S::Compute;
  const pec_i64 e = thread % gather.d, token = thread / gather.d;
  const pec_i64 b = token / ids.seq, s = token % ids.seq;
  const typename S::Bits* table = static_cast<const typename S::Bits*>(gather.table);
  const Compute entry = S::load(table[id_at(ids, 0, token) * gather.table_row_stride + e * gather.table_element_stride]);
  static_cast<typename S::Bits*>(gather.out)[b * gather.out_stride[0] + s * gather.out_stride[1] + e * gather.out_stride[3]] =
      S::store(entry * static_cast<Compute>(gather.amplitude));
}

}  // namespace peconform::cuda
