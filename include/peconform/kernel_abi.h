/* peconform kernel ABI, version 1: how a kernel library presents its kernels to
 * `peconform run --plugin`, in plain C99 so that C, C++, Rust and CUDA host code can
 * implement it.
 *
 * A library exports one function,
 *
 *     const pec_plugin* peconform_plugin_v1(void);
 *
 * returning a declaration that lives as long as the library is loaded: its ABI version, its
 * name and its kernels. Each kernel declares the specs it serves (spec patterns, below), the
 * calls it takes, and one entry point that peconform calls once per case with the tensors as
 * DLPack DLTensors (<dlpack/dlpack.h>, the form PyTorch, JAX, CuPy, TVM and NumPy exchange).
 *
 * peconform owns every buffer. Before a call it fills each output element, and the guard
 * elements around every input and output tensor and the padding between its rows, with
 * sentinel NaNs (int32 outputs: sentinel integers); after it, an element the kernel left
 * unwritten, a sentinel that leaked into the output, a changed input or id or a write out of
 * bounds is a failure like a wrong value. The ids have no guards. A kernel must not keep any
 * pointer after it returns.
 *
 * Device kernels (pec_kernel.device_type). A kernel declaring kDLOpenCL or kDLCUDA is handed
 * device memory: peconform copies each host buffer whole (guards, padding and sentinels
 * included) into a device allocation of its own, the ids into another, and sets every tensor's
 * `device` to the device it runs on. kDLOpenCL: DLTensor.data is the buffer's cl_mem, and
 * byte_offset the byte offset of element [0,0,0,0] in it (an OpenCL kernel takes it as an
 * argument: a cl_mem cannot be offset); pec_call.stream is the cl_command_queue (in order) that
 * every copy goes through. kDLCUDA: DLTensor.data is the allocation's device pointer and
 * byte_offset as for OpenCL (data + byte_offset is element [0,0,0,0]); pec_call.stream is the
 * cudaStream_t. The kernel enqueues its work on that queue or stream and may return before it
 * has run: peconform waits for the queue (clFinish) or stream (cudaStreamSynchronize), then
 * reads every buffer back whole, inputs and ids included, and judges it as on the host. The
 * device is the one `--device N` (OpenCL: else PECONFORM_OPENCL_DEVICE) names, else device 0;
 * without it, or without a driver, `peconform run` exits 2 naming what is missing.
 *
 * Every field is documented where it is declared. The README's first quick start has the
 * smallest correct plugin (about twenty lines); docs/own-kernel.md has the rest.
 *
 * A kernel with no Spec (a new scheme) is declared instead through peconform/variant_abi.h, a
 * separate symbol with its own version, for `peconform properties --plugin`. */
#ifndef PECONFORM_KERNEL_ABI_H
#define PECONFORM_KERNEL_ABI_H

#include <dlpack/dlpack.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version this header describes. peconform refuses a declaration whose abi_version is not
 * the one it speaks, naming both. */
#define PECONFORM_ABI_VERSION 1

/* What a kernel returns. */
typedef enum pec_status {
  PEC_OK = 0,      /* outputs written */
  PEC_REFUSED = 1, /* the kernel does not take this call (a shape or spec it does not serve):
                      the case fails as `refused`, with the kernel's message, never as a crash;
                      declare the specs and calls the kernel takes so that it is not drawn */
  PEC_FAILED = 2   /* the kernel could not run (out of memory, a device error): an error verdict */
} pec_status;

/* The family of a spec, in the order `peconform list` prints them. */
typedef enum pec_family {
  PEC_SINUSOIDAL = 0,
  PEC_LEARNED = 1,
  PEC_ROPE = 2,
  PEC_XPOS = 3,
  PEC_MROPE = 4,
  PEC_ROPE2D = 5,
  PEC_ALIBI = 6,
  PEC_T5 = 7,
  PEC_SHAW = 8,
  PEC_XL = 9
} pec_family;

/* Where a rotary pair i is read and written (docs/specs.md, `layout`). */
typedef enum pec_layout {
  PEC_LAYOUT_INTERLEAVED = 0,        /* (2i, 2i+1): GPT-J, Meta LLaMA; sinusoid [sin, cos, ...] */
  PEC_LAYOUT_HALF = 1,               /* (i, i+rot/2): GPT-NeoX, HF rotate_half; sinusoid [sin..., cos...] */
  PEC_LAYOUT_INTERLEAVED_TO_HALF = 2 /* read at (2i, 2i+1), written to (i, i+rot/2): DeepSeek-V3 */
} pec_layout;

typedef enum pec_precision {
  PEC_EXACT_ANGLE = 0, /* angles correct to the output precision */
  PEC_FP32_ANGLE = 1,  /* frequency, position and angle in float32, theta formed by `theta` */
  PEC_LOWP_CACHE = 2,  /* cos and sin stored in the output dtype */
  PEC_FP64_ANGLE = 3   /* sinusoid tables: theta, angle, sin and cos in float64, stored once */
} pec_precision;

/* How a float32 kernel forms theta_i under PEC_FP32_ANGLE (docs/precision.md, `theta`). */
typedef enum pec_theta_recipe {
  PEC_THETA_EXACT = 0,  /* theta correctly rounded to float32 */
  PEC_THETA_HF = 1,     /* 1 / powf(base, 2i/rot): Hugging Face */
  PEC_THETA_META = 2,   /* Meta's llama precompute_freqs_cis: the same float32 operations */
  PEC_THETA_GGML = 3,   /* theta *= powf(base, -2/rot) pair after pair: ggml */
  PEC_THETA_EXP_LOG = 4, /* sinusoid tables: expf(k * (-logf(base) / m)) */
  PEC_THETA_MLX = 5      /* mlx's fast.rope: its own float32 exp(-k * (logf(base) / (rot/2))) */
} pec_theta_recipe;

/* Where a rotary kernel rounds (docs/precision.md, `cache` and `math`): pec_spec.cache says where cos and
 * sin (times the amplitude) are held before the rotation, pec_spec.math where the two products
 * and the sum round. */
typedef enum pec_rounds_in {
  PEC_IN_COMPUTE = 0, /* the compute format (float32; float64 for fp64): cos/sin kept as computed,
                         or the rotation formed there and stored once */
  PEC_IN_STORAGE = 1, /* the storage dtype: cos/sin rounded to it (transformers' cos.to(x.dtype)),
                         or each product and the sum rounded to it (x * cos + rotate_half(x) * sin
                         on bf16 tensors) */
  PEC_IN_BF16 = 2     /* ALiBi's math only: slope, distance and product rounded to bf16 whatever
                         the storage dtype (Falcon's bias in a float32 model), then stored */
} pec_rounds_in;

/* What an ALiBi bias measures (docs/specs.md, `mode`), for pec_spec.alibi_mode. */
typedef enum pec_alibi_mode {
  PEC_ALIBI_SYMMETRIC = 0, /* -m|i - j| */
  PEC_ALIBI_CAUSAL = 1,    /* -m(i - j), and -inf for the keys j > i */
  PEC_ALIBI_KEY = 2,       /* +m j, the key's own position, at every query (fairseq, Bloom, Falcon) */
  PEC_ALIBI_LAST_KEY = 3   /* -m(J - j), J = key_first + keys - 1, at every query (MPT) */
} pec_alibi_mode;

/* How a float32 rotary kernel forms its position under PEC_FP32_ANGLE (docs/precision.md,
 * `position`), for pec_spec.position. A claim about the kernel's arithmetic: the bound of
 * PEC_POSITION_FP32_SUM holds a kernel that rounds once as well. */
typedef enum pec_position_recipe {
  PEC_POSITION_FP32 = 0,    /* fl(p), rounded once */
  PEC_POSITION_FP32_SUM = 1 /* fl(fl(a) + fl(b)), a + b = p, a, b >= 0: torchtune's vision RoPE, patch index + 1 */
} pec_position_recipe;

typedef enum pec_slope_recipe {
  PEC_SLOPES_EXACT = 0, /* ALiBi slopes correctly rounded */
  PEC_SLOPES_BLOOM = 1, /* Bloom's float32 pow of a float32 base */
  PEC_SLOPES_MPT = 2    /* MPT's 1 / pow(2, k * (8 / n')) in float32 */
} pec_slope_recipe;

/* The frequency plan (docs/specs.md, "Frequency plans"); keys a kind does not use hold their defaults. */
typedef enum pec_plan_kind {
  PEC_PLAN_NONE = 0,
  PEC_PLAN_LINEAR = 1,
  PEC_PLAN_DYNAMIC = 2,
  PEC_PLAN_YARN = 3,
  PEC_PLAN_LLAMA3 = 4,
  PEC_PLAN_LONGROPE = 5,
  PEC_PLAN_CUSTOM = 6,
  /* transformers' proportional rope: `factor` as linear on the first pairs, frequency 0 on the
     rest. pec_plan has no field for the count of rotating pairs in ABI version 1: it is the
     plan's `pairs=` in pec_call.spec_text. */
  PEC_PLAN_PROPORTIONAL = 7
} pec_plan_kind;

typedef struct pec_plan {
  int32_t kind;             /* pec_plan_kind */
  double factor;            /* linear, dynamic, yarn, llama3, longrope */
  int64_t orig;             /* original context length; 0 when unset */
  int64_t length;           /* the plan's own `len`; 0 when unset (then pec_call.sequence_length) */
  double beta_fast, beta_slow;             /* yarn */
  int32_t has_mscale, has_mscale_all_dim;  /* yarn: whether the next two are given */
  double mscale, mscale_all_dim;
  int32_t has_attention;    /* yarn, longrope: whether `attention` is given */
  double attention;         /* the attention factor applied to cos and sin when given */
  int32_t truncate;         /* yarn: floor/ceil the correction range (1) or not (0) */
  double low, high;         /* llama3 low_freq_factor, high_freq_factor */
  const double* short_factors; /* longrope: rot/2 values each, or NULL */
  const double* long_factors;
  int64_t short_count, long_count;
  const double* freqs;      /* custom: explicit frequencies (rot/2), or NULL */
  const double* factors;    /* custom: divisors of the default frequencies (rot/2), or NULL */
  int64_t freq_count, factor_count;
} pec_plan;

/* The concrete spec of one call as numbers, so that plain C needs no parser. Decimal values
 * are the doubles nearest to them; pec_call.spec_text has them exactly. Keys that the family
 * does not have hold their defaults (docs/specs.md). */
typedef struct pec_spec {
  int32_t family;        /* pec_family */
  int32_t d;             /* head dim (rotary), embedding width (tables, xl) */
  int32_t rot;           /* rotary dims, resolved: d unless partial rotary */
  int32_t rot_last;      /* 1: the rotary dims are the last rot of d (DeepSeek MLA); 0: the first */
  double base;           /* frequency base */
  int32_t layout;        /* pec_layout */
  int32_t sign;          /* 1, or -1 to rotate by -angle (nanochat) */
  double amp;            /* amplitude multiplying cos and sin (rotary), or every entry of a
                            sinusoidal or learned table; 1 unless the spec names another */
  DLDataType dtype;      /* storage dtype of the float tensors: float 64/32/16 or bfloat 16 */
  int32_t precision;     /* pec_precision */
  int32_t theta;         /* pec_theta_recipe */
  int32_t slopes;        /* pec_slope_recipe */
  pec_plan scaling;
  int32_t cos_first;     /* sinusoidal: 1 for cos-sin order */
  int32_t geometric;     /* sinusoidal: 1 for freq=geometric (tensor2tensor, fairseq) */
  int64_t offset;        /* sinusoidal: added to every position */
  int64_t rows;          /* learned: table length */
  double scale_base;     /* xpos: the 512 of zeta^(n/512) */
  int32_t key_role;      /* xpos: 1 for role=key (zeta^(-n/scale_base)), 0 for query; the role is
                            the spec's, so it applies to every operand of the call alike */
  int32_t sections[3];   /* mrope: frequency counts for t, h, w */
  int32_t section_count; /* mrope: how many of sections[] are used */
  int32_t sections_interleaved; /* mrope: 1 for Qwen3-VL's interleaved sections */
  int32_t heads;         /* alibi: head count */
  int32_t causal;        /* alibi: 1 for mode=causal (alibi_mode, below, tells every mode apart) */
  int32_t buckets, max_distance, bidirectional; /* t5 */
  int32_t k;             /* shaw: clipping distance */
  int64_t clamp_len;     /* xl: 0 for none */
  /* Added within ABI version 1, after every field above, so that a library built against an
   * older kernel_abi.h reads the fields it knows and never these. Such a library cannot name
   * the `cache` or `math` keys in its spec patterns, so it is only drawn with both at their
   * default, PEC_IN_COMPUTE (as PEC_LOWP_CACHE, below, it sees through `precision`). */
  int32_t cache;         /* rotary: pec_rounds_in; PEC_IN_STORAGE under PEC_LOWP_CACHE too */
  int32_t math;          /* rotary and alibi: pec_rounds_in (alibi: slope, distance and product
                            rounded to the storage dtype under PEC_IN_STORAGE) */
  /* Added after `math`: a library built before it reads `causal` alone, so a pattern of its
   * that leaves `mode` to the campaign (`alibi(*)`, `mode=*`) must be rebuilt against this
   * header; one that names `mode=symmetric|causal` is unaffected. */
  int32_t alibi_mode;    /* alibi: pec_alibi_mode */
  /* Added after `alibi_mode`, read by no library built before it: such a library cannot name
   * `position` in its patterns, so it is only drawn with PEC_POSITION_FP32. */
  int32_t position;      /* rope, mrope, rope2d: pec_position_recipe */
  /* Added after `position`, read by no library built before it: such a library cannot name
   * `right` in its patterns, so it is only drawn with a symmetric window (right equal to k). */
  int32_t right;         /* shaw: the clip past the query, index = clip(j - i, -k, right) + k;
                            equal to k unless the spec names another */
} pec_spec;

/* One kernel call. Tensor shapes by family (every stride in elements, any order and padding
 * when the kernel takes PEC_TAKES_STRIDED, else contiguous row-major):
 *   rope, xpos, mrope, rope2d: inputs[o] and outputs[o] are [batch, seq, heads, d] for operand o
 *       (o = 0 the queries; o = 1, when operand_count is 2, the keys, with their own head count);
 *   learned: inputs[0] is the table [rows, d], outputs[0] is [batch, seq, d];
 *   sinusoidal, xl: outputs[0] is [rows, d], row r for position (xl: distance) first + r;
 *   alibi: outputs[0] is [heads, rows, keys], query first + q against key key_first + k;
 *   t5, shaw: outputs[0] is [rows, keys] of int32 indices.
 * Position ids (rotary and learned) are a contiguous [axes, batch, seq] tensor of int32 or
 * int64: axes is 1, 3 for mrope (t, h, w) and 2 for rope2d (x, y); the position of token
 * (b, s) on axis a is ids[a][b][s] + id_offset. */
typedef struct pec_call {
  const char* spec_text;   /* the spec's canonical text, exact (docs/specs.md) */
  const pec_spec* spec;    /* the same spec as numbers */
  int64_t sequence_length; /* what dynamic NTK and LongRoPE key on when the plan has no len */
  int32_t operand_count;   /* rotary: 1 or 2; others: 1 */
  int32_t in_place;        /* 1: outputs[o].data == inputs[o].data, to be read and overwritten */
  const DLTensor* inputs;  /* operand_count tensors (learned: the table); NULL for other families */
  const DLTensor* outputs; /* operand_count tensors */
  const DLTensor* ids;     /* rotary and learned; NULL for the others */
  int64_t id_offset;       /* added to every id */
  int64_t first, rows;     /* tables: positions first..first+rows-1; relative: the queries */
  int64_t key_first, keys; /* relative: the keys */
  void* stream;            /* the queue or stream the kernel enqueues on: a cl_command_queue
                              (kDLOpenCL), a cudaStream_t (kDLCUDA); NULL for kDLCPU */
} pec_call;

/* The calls a kernel takes (pec_kernel.takes, a bit set). The campaign draws and shrinks to
 * these alone. Every kernel names at least one of IN_PLACE and OUT_OF_PLACE and one of IDS32
 * and IDS64, whatever its families; the place and key-operand flags concern rotary calls, the
 * ids flags rotary and learned calls, STRIDED every tensor. */
enum {
  PEC_TAKES_OUT_OF_PLACE = 1u << 0,
  PEC_TAKES_IN_PLACE = 1u << 1,
  PEC_TAKES_IDS32 = 1u << 2,
  PEC_TAKES_IDS64 = 1u << 3,
  PEC_TAKES_STRIDED = 1u << 4,     /* any axis order and padding; without it, contiguous row-major */
  PEC_TAKES_KEY_OPERAND = 1u << 5, /* queries and keys in one call (GQA: fewer key heads) */
  PEC_TAKES_EVERY_CALL = (1u << 6) - 1u
};

/* A kernel's entry point. Writes at most error_size bytes (NUL included) of explanation into
 * `error` when it does not return PEC_OK. */
typedef pec_status (*pec_kernel_fn)(const pec_call* call, char* error, size_t error_size);

typedef struct pec_kernel {
  /* Unique within the library, 1 to 128 of [A-Za-z0-9_.-] (library_name too); names the
   * report's backend column and the regression folder. */
  const char* name;
  /* The specs the kernel serves: one or more spec patterns separated by ';'. A pattern is spec
   * text (docs/specs.md) in which a key's value may be a choice `a|b|c` or `*` (the campaign
   * draws it as it draws for our own kernels); a key the pattern does not name keeps its
   * default. `family(*)` leaves every key to the campaign. A frequency plan is one value:
   * `scaling=*` draws any plan, `scaling=none|linear(factor=2)` picks among these two. Examples:
   *   "rope(d=128,base=500000,layout=half,scaling=llama3(factor=8,orig=8192),dtype=bf16)"
   *   "rope(d=64|128,layout=*,rot=*,scaling=none|linear(factor=2),dtype=fp32|bf16,
   *         precision=fp32-angle,theta=hf); xpos(*)" */
  const char* spec_patterns;
  int32_t device_type;           /* DLDeviceType of its tensors: kDLCPU, kDLOpenCL (where peconform
                                    was built with OpenCL) or kDLCUDA (where it was built with the
                                    CUDA runtime); see "Device kernels" above */
  uint32_t takes;                /* PEC_TAKES_* */
  int64_t largest_call_elements; /* the most output elements one call may have; 0: no limit of
                                    the kernel's own (the campaign's: 2^32) */
  pec_kernel_fn run;
} pec_kernel;

typedef struct pec_plugin {
  uint32_t abi_version; /* PECONFORM_ABI_VERSION as the library was built */
  const char* library_name;
  int32_t kernel_count;
  const pec_kernel* kernels;
} pec_plugin;

/* The one symbol a plugin exports. */
typedef const pec_plugin* (*pec_plugin_entry)(void);
#define PECONFORM_PLUGIN_SYMBOL "peconform_plugin_v1"

#ifdef __cplusplus
}
#endif

#endif /* PECONFORM_KERNEL_ABI_H */
