/* The device half of the OpenCL example plugin (opencl_rope.c): RoPE on one operand, one
 * work-item per token, fp32 or bf16 storage, computing in float32.
 *
 * Built after backends/gpu/portable.h, storage_math.h, angle_math.h and element_index.h, which the
 * build prepends (CMakeLists.txt): this example is in-tree and borrows peconform's own portable
 * element math. A kernel author outside the tree writes these few pieces instead:
 *   exact-angle  p * theta to about 106 bits (theta as hi + lo doubles, the product through
 *                fma) and its sine and cosine each within 2^-52 after a Cody-Waite reduction by
 *                pi/2 (angle_math.h; any double-double sincos does);
 *   fp32-angle   the float32 angle fl(fl(p) theta_f), then its sine and cosine as accurately
 *                as above: the class rounds the angle to float32, never sin and cos;
 *   bf16         float32's top half, rounded to nearest even on the way out (storage_math.h);
 *   pairs        (2i, 2i+1) interleaved or (i, i + d/2) half (element_index.h). */

/* Where token `token` = b * seq + s of a strided [batch, seq, heads, d] tensor starts. */
static long token_start(long offset, long4 strides, long token, long seq) {
  return offset + token / seq * strides.s0 + token % seq * strides.s1;
}

static float load(__global const float* data, long at, int bf16) {
  return bf16 ? pec_float_of_bf16(((__global const ushort*)data)[at]) : data[at];
}

static void store(__global float* data, long at, float value, int bf16) {
  if (bf16)
    ((__global ushort*)data)[at] = pec_bf16_of_float(value);
  else
    data[at] = value;
}

static pec_sin_cos_pair sin_cos_of_float(float angle) {
  pec_angle exact;
  exact.head = angle;
  exact.tail = 0.0;
  return pec_sin_cos(exact);
}

/* cos and sin of position * theta_i, rounded once to float32. frequencies[2i], frequencies[2i+1]
 * hold theta_i as hi + lo (exact-angle) or the float32 theta_i and 0 (fp32-angle). */
static float2 cos_sin(long position, __global const double* frequencies, int i, int exact) {
  pec_frequency frequency;
  frequency.hi = frequencies[2 * i];
  frequency.lo = frequencies[2 * i + 1];
  pec_sin_cos_pair value;
  if (exact) {
    value = pec_sin_cos(pec_exact_angle((double)position, frequency));
  } else {
    /* fl(fl(p) theta_f): float32's own product, rounded once */
    const float angle = (float)position * (float)frequency.hi;
    value = sin_cos_of_float(angle);
  }
  return (float2)((float)value.cos, (float)value.sin);
}

static void rotate_token(__global const float* in, long in_row, long4 in_strides, __global float* out, long out_row,
                         long4 out_strides, int heads, int pairs, int layout, int bf16, int exact, long position,
                         __global const double* frequencies) {
  for (int i = 0; i < pairs; ++i) {
    const float2 c_s = cos_sin(position, frequencies, i, exact);
    const pec_pair_elements e = pec_rotary_pair(layout, 0, pairs, i);
    for (int h = 0; h < heads; ++h) {
      const long in_head = in_row + h * in_strides.s2, out_head = out_row + h * out_strides.s2;
      const float a = load(in, in_head + e.read_a * in_strides.s3, bf16);
      const float b = load(in, in_head + e.read_b * in_strides.s3, bf16);
      const pec_rotated_f32 y = pec_rotate_f32(a, b, c_s.x, c_s.y);
      store(out, out_head + e.write_a * out_strides.s3, y.a, bf16);
      store(out, out_head + e.write_b * out_strides.s3, y.b, bf16);
    }
  }
}

/* Offsets and strides are in elements; `in` and `out` are the same buffer in place; the ids, a
 * contiguous [batch, seq] from ids_offset, are int64 when ids64, else int32. The host launches whole work-groups over at least `tokens`
 * work-items. */
__kernel void rope(__global const float* in, long in_offset, long4 in_strides, __global float* out, long out_offset,
                   long4 out_strides, __global const int* ids, long ids_offset, int ids64, long id_offset, long tokens, long seq, int heads,
                   int pairs, int layout, int bf16, int exact, __global const double* frequencies) {
  const long token = get_global_id(0);
  if (token >= tokens) return;
  const long id = ids64 ? ((__global const long*)ids)[ids_offset + token] : ids[ids_offset + token];
  rotate_token(in, token_start(in_offset, in_strides, token, seq), in_strides, out, token_start(out_offset, out_strides, token, seq),
               out_strides, heads, pairs, layout, bf16, exact, id + id_offset, frequencies);
}
