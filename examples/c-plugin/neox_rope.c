/* A kernel library in plain C for `peconform run --plugin`: GPT-NeoX (half layout) RoPE on
 * fp32 and bf16, with angles formed in float32 as Hugging Face forms them (precision=fp32-angle,
 * theta=hf). It takes every call the campaign draws: in or out of place, int32 or int64 ids,
 * any strides and padding, queries and keys in one call.
 *
 * Built with -DEXAMPLE_BUG=1 it rotates the pairs (2i, 2i+1) instead of (i, i+d/2): GPT-J's
 * pairing on NeoX data, a bug llama.cpp and vLLM both shipped. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <peconform/kernel_abi.h>

static float load(const DLTensor* t, int64_t at) {
  const char* base = (const char*)t->data + t->byte_offset;
  if (t->dtype.code == kDLFloat) return ((const float*)base)[at];
  uint32_t bits = (uint32_t)((const uint16_t*)base)[at] << 16; /* bf16: the top half of an fp32 */
  float x;
  memcpy(&x, &bits, sizeof x);
  return x;
}

static void store(const DLTensor* t, int64_t at, float x) {
  char* base = (char*)t->data + t->byte_offset;
  if (t->dtype.code == kDLFloat) {
    ((float*)base)[at] = x;
    return;
  }
  uint32_t bits;
  memcpy(&bits, &x, sizeof bits);
  if (isnan(x)) bits |= 0x00400000u;                /* keep it a NaN: quiet, never rounded to inf */
  else bits += 0x7fffu + ((bits >> 16) & 1u);      /* round to nearest, ties to even */
  ((uint16_t*)base)[at] = (uint16_t)(bits >> 16);
}

/* Element (b, s, h, j) of a [batch, seq, heads, d] tensor; DLPack's NULL strides mean compact. */
static int64_t offset(const DLTensor* t, int64_t b, int64_t s, int64_t h, int64_t j) {
  if (!t->strides) return ((b * t->shape[1] + s) * t->shape[2] + h) * t->shape[3] + j;
  return b * t->strides[0] + s * t->strides[1] + h * t->strides[2] + j * t->strides[3];
}

static int64_t position(const pec_call* call, int64_t b, int64_t s) {
  const DLTensor* ids = call->ids; /* [1, batch, seq], contiguous */
  int64_t at = b * ids->shape[2] + s;
  const char* base = (const char*)ids->data + ids->byte_offset;
  int64_t id = ids->dtype.bits == 64 ? ((const int64_t*)base)[at] : ((const int32_t*)base)[at];
  return id + call->id_offset;
}

static pec_status neox_rope(const pec_call* call, char* error, size_t error_size) {
  const pec_spec* spec = call->spec;
  if (spec->family != PEC_ROPE || spec->layout != PEC_LAYOUT_HALF || spec->rot != spec->d || spec->sign != 1 ||
      spec->amp != 1.0 || spec->scaling.kind != PEC_PLAN_NONE || spec->precision != PEC_FP32_ANGLE ||
      spec->theta != PEC_THETA_HF || spec->dtype.bits != (spec->dtype.code == kDLBfloat ? 16 : 32) ||
      !(spec->dtype.code == kDLFloat || spec->dtype.code == kDLBfloat)) {
    snprintf(error, error_size, "neox_rope serves plain half-layout rope, fp32-angle, theta=hf; not %s", call->spec_text);
    return PEC_REFUSED;
  }
  const int64_t rot = spec->rot, half = rot / 2;
  const float base = (float)spec->base;
  const DLTensor* q = &call->outputs[0];
  for (int64_t b = 0; b < q->shape[0]; ++b)
    for (int64_t s = 0; s < q->shape[1]; ++s) {
      const float p = (float)position(call, b, s);
      for (int64_t i = 0; i < half; ++i) {
        const float theta = 1.0f / powf(base, (float)(2 * i) / (float)rot);
        const float angle = p * theta, c = cosf(angle), sn = sinf(angle);
#ifdef EXAMPLE_BUG
        const int64_t j0 = 2 * i, j1 = 2 * i + 1; /* GPT-J's pairs: wrong for layout=half */
#else
        const int64_t j0 = i, j1 = i + half;
#endif
        for (int32_t o = 0; o < call->operand_count; ++o) {
          const DLTensor *x = &call->inputs[o], *y = &call->outputs[o];
          for (int64_t h = 0; h < y->shape[2]; ++h) {
            const float x0 = load(x, offset(x, b, s, h, j0)), x1 = load(x, offset(x, b, s, h, j1));
            store(y, offset(y, b, s, h, j0), x0 * c - x1 * sn);
            store(y, offset(y, b, s, h, j1), x1 * c + x0 * sn);
          }
        }
      }
    }
  return PEC_OK;
}

static const pec_kernel kernels[] = {
    {"neox_rope", "rope(d=*,base=*,layout=half,dtype=fp32|bf16,precision=fp32-angle,theta=hf)", kDLCPU,
     PEC_TAKES_EVERY_CALL, 0, neox_rope},
};

static const pec_plugin plugin = {PECONFORM_ABI_VERSION, "c-plugin-example", 1, kernels};

const pec_plugin* peconform_plugin_v1(void) { return &plugin; }
