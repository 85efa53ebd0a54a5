/* peconform variant ABI, version 2: how a kernel library presents kernels that have no Spec
 * (a new positional-encoding scheme) to `peconform properties --plugin`, which runs on them
 * every catalog property that needs only the implementation (properties/README.md, "Variants
 * without a Spec"). Plain C99, beside the kernel ABI (kernel_abi.h), whose enums it shares.
 *
 * This is an addition to the kernel ABI, not a change to it: a library exports, besides or
 * instead of peconform_plugin_v1,
 *
 *     const pec_variant_plugin* peconform_variants_v1(void);
 *
 * returning a declaration that lives as long as the library is loaded. peconform refuses one
 * whose abi_version it does not speak, naming both. It speaks version 1 and version 2:
 * version 2 appended `axes` to pec_variant, where version 1 had its trailing padding, so that
 * every struct keeps its size and layout (the kernels array of a version-1 library reads the
 * same); peconform reads `axes` only from a library whose abi_version is 2, and takes one axis
 * otherwise. A later change that cannot keep the layout adds a new symbol and keeps this one.
 *
 * A variant kernel is called on peconform's thread, one batch of rows at a time, with host
 * arrays of doubles holding values of the declared dtype (every dtype's values are exact in
 * double); it writes rows x d doubles, which peconform reads as values of that dtype. It must
 * not keep any pointer after it returns. */
#ifndef PECONFORM_VARIANT_ABI_H
#define PECONFORM_VARIANT_ABI_H

#include "peconform/kernel_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PECONFORM_VARIANT_ABI_VERSION 2

typedef enum pec_variant_kind {
  PEC_VARIANT_ROTARY = 0, /* f(x, p): inputs rows x d, one position (of `axes` coordinates) per row */
  PEC_VARIANT_TABLE = 1,  /* PE(p): one position per row */
  PEC_VARIANT_BIAS = 2    /* b(i, j): a query and a key position per row; d is the head count */
} pec_variant_kind;

typedef enum pec_variant_pairing {
  PEC_PAIRING_INTERLEAVED = 0, /* pairs (2i, 2i+1) */
  PEC_PAIRING_HALF = 1,        /* pairs (i, i + n/2) */
  PEC_PAIRING_UNKNOWN = 2      /* rotary only: the relations that hold pair by pair are checked
                                  over the rotated elements at once */
} pec_variant_pairing;

/* What the variant is, as properties/variant.hpp's VariantDeclaration says field by field. */
typedef struct pec_variant {
  int32_t kind;              /* pec_variant_kind */
  int32_t d;                 /* elements per row; heads for a bias */
  DLDataType dtype;          /* float 64/32/16 or bfloat 16 */
  int32_t precision;         /* pec_precision: the class whose bound the relations' tolerances use */
  int32_t pairing;           /* pec_variant_pairing */
  int32_t rot;               /* rotary: rotated elements, 0 for all d; the rest pass through */
  int32_t rot_last;          /* rotary: 1 when the rotated elements are the last rot */
  double amplitude;          /* |f(x, p)| = amplitude |x|; a table's pairs lie on that circle; 1 */
  double max_frequency;      /* the largest |angle| / |position| the variant turns by (1 for RoPE) */
  int32_t theta;             /* pec_theta_recipe that forms theta under PEC_FP32_ANGLE */
  double base;               /* the base that recipe raises (10000 when unsure) */
  int64_t max_position;      /* positions are drawn in [0, max_position] (on every axis) */
  int32_t negative_positions; /* rotary: 1 when f takes negative positions (the transpose relation) */
  /* Added in version 2, in version 1's trailing padding (read only when abi_version is 2): */
  int32_t axes;              /* position axes, 1 to 16 (0 reads as 1, so that a version-1
                                declaration rebuilt against this header, which leaves it zero,
                                keeps its meaning): each position is `axes` int64 coordinates */
} pec_variant;

/* One batch: `rows` positions (bias: query positions, with `keys`); rotary: rows x d inputs.
 * A position is `axes` coordinates: positions and keys hold rows x axes of them, row-major
 * (rows of them over one axis, as in version 1). */
typedef struct pec_variant_call {
  int64_t rows;
  const int64_t* positions;
  const int64_t* keys;  /* bias only; NULL otherwise */
  const double* inputs; /* rotary only; NULL otherwise */
  double* outputs;      /* rows x d, row-major */
  /* Added in version 2, after every field above (peconform fills the call, so a version-1
   * library, which declares one axis, never reads it): */
  int32_t axes;         /* the declaration's axes */
} pec_variant_call;

/* Writes at most error_size bytes (NUL included) of explanation into `error` when it does not
 * return PEC_OK; the property that called it fails with that text. */
typedef pec_status (*pec_variant_fn)(const pec_variant_call* call, char* error, size_t error_size);

typedef struct pec_variant_kernel {
  const char* name; /* unique within the library, 1 to 128 of [A-Za-z0-9_.-] */
  pec_variant variant;
  pec_variant_fn run;
} pec_variant_kernel;

typedef struct pec_variant_plugin {
  uint32_t abi_version; /* PECONFORM_VARIANT_ABI_VERSION as the library was built */
  const char* library_name;
  int32_t kernel_count;
  const pec_variant_kernel* kernels;
} pec_variant_plugin;

typedef const pec_variant_plugin* (*pec_variant_plugin_entry)(void);
#define PECONFORM_VARIANT_PLUGIN_SYMBOL "peconform_variants_v1"

#ifdef __cplusplus
}
#endif

#endif /* PECONFORM_VARIANT_ABI_H */
