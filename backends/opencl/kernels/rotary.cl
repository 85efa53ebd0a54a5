/* The rotary families (RoPE, xPos, mRoPE, 2-D axial) on up to two operands (q and k, each with
 * its own head count) in one launch over (pair, seq, batch): work-item (i, s, b) forms pair i's
 * angle at token (b, s) once, as the
 * precision class says, and rotates that pair in every head of every operand. The host plans
 * (backends/cpu/rotary_plan.cpp) and validates; the element math is backends/gpu/. In place,
 * `in` and `out` are the same buffer, except under interleaved_to_half, where a pair writes
 * elements another pair reads: there the host passes a copy of the buffer as `in`. */

PEC_FN pec_angle pec_pair_angle(PEC_GLOBAL const double* pair, long position, long flags, float ggml_scale,
                                float ggml_freq_scale) {
  if (flags & PEC_ROTARY_FLOAT_ANGLE) {
    if (flags & PEC_ROTARY_RUNNING)
      return pec_ggml_angle((float)position, ggml_scale, (int)pair[PEC_PAIR_INDEX], (float)pair[PEC_PAIR_DIVISOR],
                            ggml_freq_scale, (flags & PEC_ROTARY_YARN) != 0, (float)pair[PEC_PAIR_RAMP]);
    return pec_float32_angle((float)position, (float)pair[PEC_PAIR_F32]);
  }
  pec_frequency frequency;
  frequency.hi = pair[PEC_PAIR_HI];
  frequency.lo = pair[PEC_PAIR_LO];
  return pec_exact_angle((double)position, frequency);
}

/* One product of the rotation: kept in the compute format, or under math=storage rounded to the
 * storage format as `x * cos` on tensors of that dtype rounds it (the sum rounds at the store). */
PEC_FN pec_compute pec_rotation_product(pec_compute x, pec_compute factor, int storage_math) {
  const pec_compute product = x * factor;
  return storage_math ? pec_round_to_storage(product) : product;
}

__kernel void pec_rotary(PEC_GLOBAL const double* pair_data, PEC_GLOBAL const long* args, PEC_GLOBAL const uchar* ids,
                         PEC_GLOBAL const pec_raw* in0, PEC_GLOBAL pec_raw* out0, PEC_GLOBAL const pec_raw* in1,
                         PEC_GLOBAL pec_raw* out1, double attention, double sign, float ggml_scale, float ggml_freq_scale) {
  const long batch = args[PEC_ROTARY_BATCH], seq = args[PEC_ROTARY_SEQ], pairs = args[PEC_ROTARY_PAIRS];
  const long i = (long)get_global_id(0), s = (long)get_global_id(1), b = (long)get_global_id(2);
  const long token = b * seq + s;
  PEC_GLOBAL const double* pair = pair_data + i * PEC_PAIR_FIELDS;
  const int axis = (int)pair[PEC_PAIR_AXIS];
  const long id_offset = args[PEC_ROTARY_ID_OFFSET];
  const int ids64 = (int)args[PEC_ROTARY_IDS64];
  const long position = pec_position_id(ids, ids64, axis * batch * seq + token) + id_offset;
  const long position0 = pec_position_id(ids, ids64, token) + id_offset; /* xPos's scale follows axis 0 */
  const long flags = args[PEC_ROTARY_FLAGS];

  const pec_angle angle = pec_pair_angle(pair, position, flags, ggml_scale, ggml_freq_scale);
  const pec_sin_cos_pair value = pec_rotary_cos_sin(angle, attention, (double)position0, pair[PEC_PAIR_LOG_ZETA], sign);
  pec_compute c = (pec_compute)value.cos, s_ = (pec_compute)value.sin;
  if (flags & PEC_ROTARY_CACHE_STORAGE) {
    c = pec_round_to_storage(c);
    s_ = pec_round_to_storage(s_);
  }
  const pec_pair_elements elements = pec_rotary_pair((int)args[PEC_ROTARY_LAYOUT], (int)args[PEC_ROTARY_START], (int)pairs, (int)i);

  const int storage_math = (flags & PEC_ROTARY_MATH_STORAGE) != 0;
  const long operands = args[PEC_ROTARY_OPERANDS];
  for (long k = 0; k < operands; ++k) {
    PEC_GLOBAL const long* operand = args + PEC_ROTARY_OPERAND0 + k * PEC_OPERAND_FIELDS;
    PEC_GLOBAL const pec_raw* in = k == 0 ? in0 : in1;
    PEC_GLOBAL pec_raw* out = k == 0 ? out0 : out1;
    PEC_GLOBAL const long* in_stride = operand + PEC_OPERAND_IN_STRIDE;
    PEC_GLOBAL const long* out_stride = operand + PEC_OPERAND_OUT_STRIDE;
    for (long h = 0; h < operand[PEC_OPERAND_HEADS]; ++h) {
      const long x = operand[PEC_OPERAND_IN_ORIGIN] + b * in_stride[0] + s * in_stride[1] + h * in_stride[2];
      const long y = operand[PEC_OPERAND_OUT_ORIGIN] + b * out_stride[0] + s * out_stride[1] + h * out_stride[2];
      const pec_compute xa = pec_load(in, x + elements.read_a * in_stride[3]);
      const pec_compute xb = pec_load(in, x + elements.read_b * in_stride[3]);
      pec_store(out, y + elements.write_a * out_stride[3],
                pec_rotation_product(xa, c, storage_math) - pec_rotation_product(xb, s_, storage_math));
      pec_store(out, y + elements.write_b * out_stride[3],
                pec_rotation_product(xa, s_, storage_math) + pec_rotation_product(xb, c, storage_math));
    }
  }
}

/* Out of place, the dims outside the rotary slice are copied bit for bit: work-item
 * (unrotated element, head, token) of operand `k`. */
__kernel void pec_copy_unrotated(PEC_GLOBAL const long* args, long k, PEC_GLOBAL const pec_raw* in, PEC_GLOBAL pec_raw* out) {
  PEC_GLOBAL const long* operand = args + PEC_ROTARY_OPERAND0 + k * PEC_OPERAND_FIELDS;
  const long seq = args[PEC_ROTARY_SEQ];
  const long start = args[PEC_ROTARY_START], dims = args[PEC_ROTARY_DIMS];
  const long j = (long)get_global_id(0), h = (long)get_global_id(1), token = (long)get_global_id(2);
  const long e = j < start ? j : j + dims;
  const long b = token / seq, s = token % seq;
  PEC_GLOBAL const long* in_stride = operand + PEC_OPERAND_IN_STRIDE;
  PEC_GLOBAL const long* out_stride = operand + PEC_OPERAND_OUT_STRIDE;
  out[operand[PEC_OPERAND_OUT_ORIGIN] + b * out_stride[0] + s * out_stride[1] + h * out_stride[2] + e * out_stride[3]] =
      in[operand[PEC_OPERAND_IN_ORIGIN] + b * in_stride[0] + s * in_stride[1] + h * in_stride[2] + e * in_stride[3]];
}
