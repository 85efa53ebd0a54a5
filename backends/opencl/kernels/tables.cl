/* Sinusoidal and Transformer-XL tables: work-item (element, row) of a [1, rows, 1, d] table,
 * from the host's sinusoid plan (backends/cpu/table_kernels.cpp). */
__kernel void pec_sinusoid(PEC_GLOBAL const double* frequencies, PEC_GLOBAL const long* args, PEC_GLOBAL pec_raw* out) {
  const long d = args[PEC_TABLE_D];
  const long e = (long)get_global_id(0), r = (long)get_global_id(1);
  const long position = pec_sinusoid_row_position((int)args[PEC_TABLE_ABSOLUTE], args[PEC_TABLE_FIRST], r,
                                                  args[PEC_TABLE_OFFSET], args[PEC_TABLE_CLAMP_LEN]);
  const pec_sinusoid_term term =
      pec_sinusoid_element((int)d, (int)args[PEC_TABLE_INTERLEAVED], (int)args[PEC_TABLE_COS_FIRST], (int)e);
  double value = 0.0;
  if (!term.is_zero) {
    PEC_GLOBAL const double* frequency = frequencies + term.pair * PEC_FREQUENCY_FIELDS;
    pec_angle angle;
    if (args[PEC_TABLE_FLOAT_ANGLE]) {
      angle = pec_float32_angle((float)position, (float)frequency[2]);
    } else {
      pec_frequency split;
      split.hi = frequency[0];
      split.lo = frequency[1];
      angle = pec_exact_angle((double)position, split);
    }
    const pec_sin_cos_pair sc = pec_sin_cos(angle);
    value = term.is_cos ? sc.cos : sc.sin;
  }
  PEC_GLOBAL const long* stride = args + PEC_TABLE_OUT_STRIDE;
  /* amp: the entry in the compute format times amp rounded there (exact at amp = 1). */
  pec_store(out, args[PEC_TABLE_OUT_ORIGIN] + r * stride[1] + e * stride[3],
            (pec_compute)value * (pec_compute)as_double(args[PEC_TABLE_AMPLITUDE]));
}

/* ALiBi: work-item (key, query, head) of a [1, heads, q, k] bias. */
__kernel void pec_alibi(PEC_GLOBAL const double* slopes, PEC_GLOBAL const long* args, PEC_GLOBAL pec_raw* out) {
  const long k = (long)get_global_id(0), q = (long)get_global_id(1), h = (long)get_global_id(2);
  const long last_key = args[PEC_RELATIVE_K_FIRST] + args[PEC_RELATIVE_K_LEN] - 1;
  const double bias = pec_alibi_bias(args[PEC_RELATIVE_Q_FIRST] + q, args[PEC_RELATIVE_K_FIRST] + k, last_key, slopes[2 * h],
                                     (float)slopes[2 * h + 1], (int)args[PEC_RELATIVE_FLOAT_ANGLE], (int)args[PEC_RELATIVE_MODE]);
  PEC_GLOBAL const long* stride = args + PEC_RELATIVE_OUT_STRIDE;
  pec_store(out, args[PEC_RELATIVE_OUT_ORIGIN] + h * stride[1] + q * stride[2] + k * stride[3], (pec_compute)bias);
}
