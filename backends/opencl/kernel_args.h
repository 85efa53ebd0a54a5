#ifndef PECONFORM_OPENCL_KERNEL_ARGS_H
#define PECONFORM_OPENCL_KERNEL_ARGS_H
/* Where each integer parameter of a launch sits in the `long` argument buffer the host fills
 * and the kernels in kernels/ read (one buffer rather than dozens of scalar arguments, whose
 * order the host and the device would each have to repeat). Read by the host C++ and, embedded
 * in the program source, by OpenCL C. Offsets and strides are in elements, from the start of
 * the device buffer (guards included), so that a kernel addresses the campaign's buffer as the
 * host does. */

/* The storage dtype of a program, its -DPEC_DTYPE=<code>. */
#define PEC_DTYPE_FP64 0
#define PEC_DTYPE_FP32 1
#define PEC_DTYPE_FP16 2
#define PEC_DTYPE_BF16 3

/* Rotary families, one work-item per (token, pair). Flags: */
#define PEC_ROTARY_FLOAT_ANGLE 1 /* fp32-angle */
#define PEC_ROTARY_RUNNING 2     /* fp32-angle with ggml's running product */
#define PEC_ROTARY_YARN 4        /* ggml under YaRN: the angle blends by the pair's ramp */
#define PEC_ROTARY_CACHE_STORAGE 8 /* cache=storage, lowp-cache: cos and sin rounded to the storage format */
#define PEC_ROTARY_MATH_STORAGE 16 /* math=storage: each product rounded to the storage format */
#define PEC_ROTARY_BATCH 0
#define PEC_ROTARY_SEQ 1
#define PEC_ROTARY_PAIRS 2
#define PEC_ROTARY_START 3
#define PEC_ROTARY_D 4
#define PEC_ROTARY_DIMS 5
#define PEC_ROTARY_AXES 6
#define PEC_ROTARY_LAYOUT 7
#define PEC_ROTARY_ID_OFFSET 8
#define PEC_ROTARY_IDS64 9
#define PEC_ROTARY_OPERANDS 10
#define PEC_ROTARY_FLAGS 11
#define PEC_ROTARY_OPERAND0 12 /* then per operand: */
#define PEC_OPERAND_HEADS 0
#define PEC_OPERAND_IN_ORIGIN 1
#define PEC_OPERAND_IN_STRIDE 2 /* four strides: batch, seq, head, element */
#define PEC_OPERAND_OUT_ORIGIN 6
#define PEC_OPERAND_OUT_STRIDE 7
#define PEC_OPERAND_FIELDS 11
#define PEC_ROTARY_ARGS (PEC_ROTARY_OPERAND0 + 2 * PEC_OPERAND_FIELDS)
/* The doubles of each pair in the pair buffer. */
#define PEC_PAIR_HI 0
#define PEC_PAIR_LO 1
#define PEC_PAIR_F32 2
#define PEC_PAIR_LOG_ZETA 3
#define PEC_PAIR_AXIS 4
#define PEC_PAIR_INDEX 5 /* the frequency index k of ggml's running product */
#define PEC_PAIR_DIVISOR 6 /* ggml's freq_factor of the pair (1 without one), a float32 value */
#define PEC_PAIR_RAMP 7 /* ggml's YaRN ramp_mix of the pair, a float32 value */
#define PEC_PAIR_FIELDS 8

/* Sinusoidal and Transformer-XL tables, one work-item per element. */
#define PEC_TABLE_ROWS 0
#define PEC_TABLE_D 1
#define PEC_TABLE_FIRST 2
#define PEC_TABLE_OFFSET 3
#define PEC_TABLE_CLAMP_LEN 4
#define PEC_TABLE_ABSOLUTE 5
#define PEC_TABLE_INTERLEAVED 6
#define PEC_TABLE_COS_FIRST 7
#define PEC_TABLE_FLOAT_ANGLE 8
#define PEC_TABLE_OUT_ORIGIN 9
#define PEC_TABLE_OUT_STRIDE 10 /* four strides */
#define PEC_TABLE_AMPLITUDE 14  /* amp: a double's bits (1 for xl) */
#define PEC_TABLE_ARGS 15
#define PEC_FREQUENCY_FIELDS 3 /* hi, lo, f32 */

/* ALiBi, T5 and Shaw: one work-item per (head,) query, key. */
#define PEC_RELATIVE_HEADS 0
#define PEC_RELATIVE_Q_FIRST 1
#define PEC_RELATIVE_Q_LEN 2
#define PEC_RELATIVE_K_FIRST 3
#define PEC_RELATIVE_K_LEN 4
#define PEC_RELATIVE_MODE 5          /* ALiBi: pec_alibi_mode */
#define PEC_RELATIVE_FLOAT_ANGLE 6   /* ALiBi */
#define PEC_RELATIVE_BIDIRECTIONAL 7 /* T5 */
#define PEC_RELATIVE_UPPER_HALF 8    /* T5 */
#define PEC_RELATIVE_EXACT 9         /* T5 */
#define PEC_RELATIVE_STARTS 10       /* T5 */
#define PEC_RELATIVE_LEFT 11         /* Shaw: k */
#define PEC_RELATIVE_OUT_ORIGIN 12
#define PEC_RELATIVE_OUT_STRIDE 13 /* four strides */
#define PEC_RELATIVE_RIGHT 17        /* Shaw: the window past the query */
#define PEC_RELATIVE_ARGS 18

/* Learned gathers, one work-item per output element. */
#define PEC_GATHER_BATCH 0
#define PEC_GATHER_SEQ 1
#define PEC_GATHER_D 2
#define PEC_GATHER_IDS64 3
#define PEC_GATHER_ID_OFFSET 4
#define PEC_GATHER_TABLE_ORIGIN 5
#define PEC_GATHER_TABLE_STRIDE 6 /* four strides */
#define PEC_GATHER_OUT_ORIGIN 10
#define PEC_GATHER_OUT_STRIDE 11 /* four strides */
#define PEC_GATHER_AMPLITUDE 15  /* amp: a double's bits; 1 moves the bits */
#define PEC_GATHER_ARGS 16

#endif
