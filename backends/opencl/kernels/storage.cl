/* The storage dtype of this build of the program (-DPEC_DTYPE=<code>, kernel_args.h): the bits
 * a buffer element holds (pec_raw), the type it computes in (float, or double for fp64), and the
 * conversions between them, each rounding to nearest even as backends/cpu/storage.hpp does.
 * fp16 loads through vload_half, core OpenCL, which needs no cl_khr_fp16, and stores through
 * storage_math.h, as bf16 does both. Buffers are addressed as pec_raw so that a copied element (a gather,
 * the dims outside the rotary slice) keeps its bits, NaN payloads included. */
#if PEC_DTYPE == PEC_DTYPE_FP64
typedef double pec_compute;
typedef ulong pec_raw;
PEC_FN pec_compute pec_load(PEC_GLOBAL const pec_raw* buffer, long index) { return as_double(buffer[index]); }
PEC_FN void pec_store(PEC_GLOBAL pec_raw* buffer, long index, pec_compute value) { buffer[index] = as_ulong(value); }
PEC_FN pec_compute pec_round_to_storage(pec_compute value) { return value; }
#elif PEC_DTYPE == PEC_DTYPE_FP32
typedef float pec_compute;
typedef uint pec_raw;
PEC_FN pec_compute pec_load(PEC_GLOBAL const pec_raw* buffer, long index) { return as_float(buffer[index]); }
PEC_FN void pec_store(PEC_GLOBAL pec_raw* buffer, long index, pec_compute value) { buffer[index] = as_uint(value); }
PEC_FN pec_compute pec_round_to_storage(pec_compute value) { return value; }
#elif PEC_DTYPE == PEC_DTYPE_FP16
typedef float pec_compute;
typedef ushort pec_raw;
PEC_FN pec_compute pec_load(PEC_GLOBAL const pec_raw* buffer, long index) {
  return vload_half((size_t)index, (PEC_GLOBAL const half*)buffer);
}
/* Stored through storage_math.h, not vstore_half_rte: PoCL's writes every NaN as 0x7fff, where
 * the CPU kernels (and IEEE conversion) keep a NaN's sign and the top of its payload. */
PEC_FN void pec_store(PEC_GLOBAL pec_raw* buffer, long index, pec_compute value) { buffer[index] = pec_half_of_float(value); }
/* A private half cannot be declared without cl_khr_fp16, so cos/sin and products round in integers. */
PEC_FN pec_compute pec_round_to_storage(pec_compute value) { return pec_float_of_half(pec_half_of_float(value)); }
#elif PEC_DTYPE == PEC_DTYPE_BF16
typedef float pec_compute;
typedef ushort pec_raw;
PEC_FN pec_compute pec_load(PEC_GLOBAL const pec_raw* buffer, long index) { return pec_float_of_bf16(buffer[index]); }
PEC_FN void pec_store(PEC_GLOBAL pec_raw* buffer, long index, pec_compute value) { buffer[index] = pec_bf16_of_float(value); }
PEC_FN pec_compute pec_round_to_storage(pec_compute value) { return pec_float_of_bf16(pec_bf16_of_float(value)); }
#else
#error "PEC_DTYPE must be one of the PEC_DTYPE_* codes of kernel_args.h"
#endif

/* Position id `index` of a contiguous [axes, batch, seq] id buffer, int32 or int64. */
PEC_FN long pec_position_id(PEC_GLOBAL const uchar* ids, int ids64, long index) {
  return ids64 ? ((PEC_GLOBAL const long*)ids)[index] : (long)((PEC_GLOBAL const int*)ids)[index];
}
