/* The integer-valued kernels: T5 buckets and Shaw indices (work-item (key, query) of a
 * [1, 1, q, k] int32 output) and the learned gather (work-item (element, seq, batch)), which
 * copies the table's bits (or, under amp, scales them in the compute format). */
__kernel void pec_t5(PEC_GLOBAL const long* bucket_start, PEC_GLOBAL const long* args, PEC_GLOBAL int* out) {
  const long k = (long)get_global_id(0), q = (long)get_global_id(1);
  const long relative = (args[PEC_RELATIVE_K_FIRST] + k) - (args[PEC_RELATIVE_Q_FIRST] + q);
  PEC_GLOBAL const long* stride = args + PEC_RELATIVE_OUT_STRIDE;
  out[args[PEC_RELATIVE_OUT_ORIGIN] + q * stride[2] + k * stride[3]] =
      pec_t5_bucket(relative, (int)args[PEC_RELATIVE_BIDIRECTIONAL], (int)args[PEC_RELATIVE_UPPER_HALF],
                    args[PEC_RELATIVE_EXACT], bucket_start, (int)args[PEC_RELATIVE_STARTS]);
}

__kernel void pec_shaw(PEC_GLOBAL const long* args, PEC_GLOBAL int* out) {
  const long k = (long)get_global_id(0), q = (long)get_global_id(1);
  const long relative = (args[PEC_RELATIVE_K_FIRST] + k) - (args[PEC_RELATIVE_Q_FIRST] + q);
  PEC_GLOBAL const long* stride = args + PEC_RELATIVE_OUT_STRIDE;
  out[args[PEC_RELATIVE_OUT_ORIGIN] + q * stride[2] + k * stride[3]] = pec_shaw_index(relative, args[PEC_RELATIVE_LEFT], args[PEC_RELATIVE_RIGHT]);
}

__kernel void pec_gather(PEC_GLOBAL const long* args, PEC_GLOBAL const uchar* ids, PEC_GLOBAL const pec_raw* table,
                         PEC_GLOBAL pec_raw* out) {
  const long e = (long)get_global_id(0), s = (long)get_global_id(1), b = (long)get_global_id(2);
  const long token = b * args[PEC_GATHER_SEQ] + s;
  const long id = pec_position_id(ids, (int)args[PEC_GATHER_IDS64], token) + args[PEC_GATHER_ID_OFFSET];
  PEC_GLOBAL const long* table_stride = args + PEC_GATHER_TABLE_STRIDE;
  PEC_GLOBAL const long* out_stride = args + PEC_GATHER_OUT_STRIDE;
  const long to = args[PEC_GATHER_OUT_ORIGIN] + b * out_stride[0] + s * out_stride[1] + e * out_stride[3];
  const long from = args[PEC_GATHER_TABLE_ORIGIN] + id * table_stride[2] + e * table_stride[3];
  const double amplitude = as_double(args[PEC_GATHER_AMPLITUDE]);
  /* At amp = 1 the bits move as they are; any other amp multiplies in the compute format. */
  if (amplitude == 1.0) out[to] = table[from];
  else pec_store(out, to, pec_load(table, from) * (pec_compute)amplitude);
}
