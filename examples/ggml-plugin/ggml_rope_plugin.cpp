// A peconform plugin (include/peconform/kernel_abi.h, ABI version 1) that presents ggml's CPU
// RoPE, ggml_rope_ext and ggml_rope_multi, to `peconform run --plugin`. It is an adapter only:
// every rotated value comes out of ggml's own kernel (ggml_compute_forward_rope_flt in
// src/ggml-cpu/ops.cpp), run through a CPU graph the way llama.cpp runs it, on the very buffers
// peconform owns. Nothing of ggml is copied here; build it against a ggml build (README.md beside
// this file).
//
// Ten kernels, two per ggml mode, the same code under two declarations:
//   ggml-rope-norm, ggml-rope-neox,            claim what ggml does: precision=fp32-angle,
//   ggml-mrope, ggml-imrope, ggml-vision       theta=ggml (position, frequency and angle in
//                                              float32, theta_scale = powf(base, -2/n) applied
//                                              pair after pair);
//   the same names with -exact                 claim exact-angle, which ggml does not promise:
//                                              the overclaim a campaign should reject.
// Two kernels rather than two library builds, so that one .so and one `plugin-info` show both
// claims side by side and the reports' backend column says which claim was held.
//
// The calls ggml takes: contiguous row-major tensors, out of place (ggml_rope_ext,
// ggml_rope_multi) or in place (their _inplace forms), int32 positions (ggml's rope reads
// GGML_TYPE_I32 only), queries alone or queries and keys in one call (two rope nodes in one graph,
// each with its own head count). The spec keys it serves: d, base, rot (the first rot dims: ggml's
// n_dims), layout (mode 0 is GPT-J's interleaved pairs, GGML_ROPE_TYPE_NEOX the half layout),
// dtype fp32 and fp16 (GGML_TYPE_F16 in and out, float32 inside), and scaling:
//   none, linear     freq_scale = 1.0f / (float)factor, as llama.cpp forms rope_freq_scale_train;
//   yarn             the same freq_scale, ext_factor = 1 and attn_factor = 1 (llama.cpp's YaRN
//                    defaults, so that ggml forms the attention factor 1 + 0.1 ln(factor)),
//                    n_ctx_orig = orig, beta_fast and beta_slow as the spec gives them;
//   custom(factors=) ggml's freq_factors tensor (llama.cpp's rope_freqs), one float per pair.
// mrope is ggml_rope_multi: GGML_ROPE_TYPE_MROPE for section_mode=blocked (Qwen2-VL),
// GGML_ROPE_TYPE_IMROPE for section_mode=interleaved (Qwen3-VL), both on NeoX's half layout,
// which ggml forces for them. ggml takes four position streams (t, h, w, e) and four sections;
// peconform's mrope has three: the sections go to t, h and w, e's section is 0 and e's position
// is 0, as llama.cpp's own inputs set it (llm_graph_input_pos::set_input, mtmd-helper). IMROPE
// turns by e every pair outside the three interleaved windows, where section_mode=interleaved
// (and transformers' Qwen3-VL) turns it by t; Qwen3-VL's [24,20,20] leaves pairs 61 and 62 there.
// Passing e = t would hide that, so the adapter passes llama.cpp's 0 and the report shows it.
// rope2d is ggml_rope_multi's GGML_ROPE_TYPE_VISION as llama.cpp's vision towers call it
// (tools/mtmd: Qwen2-VL, Qwen2.5-VL, Qwen3-VL): n_dims = d/2 and sections {d/4, d/4, d/4, d/4}.
// VISION rotates the pairs (k, k + d/2) over the whole head, the first d/4 by the first position
// stream and the next d/4 by the second, each stream's running product restarting at its
// section's first pair, so pair k turns by fl(p) theta_scale^(k mod d/4) with theta_scale =
// powf(base, -2/(d/2)): rope2d(layout=half) with x the first stream and y the second, which is
// theta=ggml with rope2d's n = d/2. The four streams are x, y, x, y, as llama.cpp fills them
// (row, column, row, column); VISION never reads the last two.
#include <peconform/kernel_abi.h>

#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#include "ggml-cpu.h"
#include "ggml.h"

namespace {

// The linear factors the campaign draws: 2 and 8 (SuperHOT, LongChat, CodeLlama-style context
// extension), 3 (1/3 is not a float: freq_scale rounds) and 0.7 (a factor float32 does not hold);
// YaRN as Qwen2.5 (factor 4 over 32768) and a longer stretch (16 over 4096), with ggml's
// defaults beta_fast = 32, beta_slow = 1.
#define GGML_PLUGIN_COMMON                                                                                       \
  "d=*,base=*,rot=*,scaling=none|linear(factor=2)|linear(factor=3)|linear(factor=8)|linear(factor=0.7)|"      \
  "yarn(factor=4,orig=32768)|yarn(factor=16,orig=4096),dtype=fp32|fp16"
// Llama 3.1 8B as llama.cpp runs it: head dim 128, base 500000, and rope_freqs holding the llama3
// plan's divisor of each pair (factor 8, low 1, high 4 over 8192), float32 values that these
// decimals give back.
#define GGML_PLUGIN_LLAMA31                                                                                      \
  "d=128,base=500000,scaling=custom(factors=[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,"          \
  "1.207484,1.5534146,2.026313,2.69453,3.684253,5.2573266,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,"  \
  "8,8]),dtype=fp32|fp16"

// Each kernel's two patterns: one mode's layout under one claim.
#define GGML_PLUGIN_PATTERNS(LAYOUT, CLAIM) \
  "rope(layout=" LAYOUT "," GGML_PLUGIN_COMMON "," CLAIM ");rope(layout=" LAYOUT "," GGML_PLUGIN_LLAMA31 "," CLAIM ")"

constexpr const char* kNormFp32Angle = GGML_PLUGIN_PATTERNS("interleaved", "precision=fp32-angle,theta=ggml");
constexpr const char* kNeoxFp32Angle = GGML_PLUGIN_PATTERNS("half", "precision=fp32-angle,theta=ggml");
constexpr const char* kNormExact = GGML_PLUGIN_PATTERNS("interleaved", "precision=exact-angle");
constexpr const char* kNeoxExact = GGML_PLUGIN_PATTERNS("half", "precision=exact-angle");

// ggml_rope_multi's two text modes, each with the sections drawn for any d and rot, and the model
// it was written for as llama.cpp's GGUF stores it (rope.dimension_sections, e padded with 0):
// Qwen2-VL, head dim 128, base 1e6, [16,24,24] blocked; Qwen3-VL, head dim 128, base 5e6,
// [24,20,20] interleaved. No YaRN or freq_factors: neither model uses them.
#define GGML_PLUGIN_MROPE_COMMON                                                                  \
  "layout=half,d=*,base=*,rot=*,sections=*,scaling=none|linear(factor=2)|linear(factor=3)|"       \
  "linear(factor=8)|linear(factor=0.7),dtype=fp32|fp16"
#define GGML_PLUGIN_MROPE_PATTERNS(CLAIM)                                                         \
  "mrope(section_mode=blocked," GGML_PLUGIN_MROPE_COMMON "," CLAIM ");"                          \
  "mrope(d=128,base=1000000,layout=half,sections=[16,24,24],section_mode=blocked,dtype=fp32|fp16," CLAIM ")"
#define GGML_PLUGIN_IMROPE_PATTERNS(CLAIM)                                                        \
  "mrope(section_mode=interleaved," GGML_PLUGIN_MROPE_COMMON "," CLAIM ");"                      \
  "mrope(d=128,base=5000000,layout=half,sections=[24,20,20],section_mode=interleaved,dtype=fp32|fp16," CLAIM ")"

constexpr const char* kMropeFp32Angle = GGML_PLUGIN_MROPE_PATTERNS("precision=fp32-angle,theta=ggml");
constexpr const char* kImropeFp32Angle = GGML_PLUGIN_IMROPE_PATTERNS("precision=fp32-angle,theta=ggml");
constexpr const char* kMropeExact = GGML_PLUGIN_MROPE_PATTERNS("precision=exact-angle");
constexpr const char* kImropeExact = GGML_PLUGIN_IMROPE_PATTERNS("precision=exact-angle");

// VISION for any d and base, and the vision towers llama.cpp runs with it, base 10000 as
// tools/mtmd passes it: head dim 80 (Qwen2-VL and Qwen2.5-VL, 1280 wide over 16 heads) and 72
// (Qwen3-VL, 1152 over 16).
#define GGML_PLUGIN_VISION_PATTERNS(CLAIM)                                                        \
  "rope2d(layout=half,d=*,base=*,dtype=fp32|fp16," CLAIM ");"                                    \
  "rope2d(d=72|80,base=10000,layout=half,dtype=fp32|fp16," CLAIM ")"

constexpr const char* kVisionFp32Angle = GGML_PLUGIN_VISION_PATTERNS("precision=fp32-angle,theta=ggml");
constexpr const char* kVisionExact = GGML_PLUGIN_VISION_PATTERNS("precision=exact-angle");

pec_status say(pec_status status, char* error, size_t error_size, const char* format, ...) {
  if (error != nullptr && error_size > 0) {
    va_list args;
    va_start(args, format);
    std::vsnprintf(error, error_size, format, args);
    va_end(args);
  }
  return status;
}

// ggml's CPU threads for one call. 1 by default, so that a report rebuilds bit for bit;
// PECONFORM_GGML_THREADS=N runs ggml's own thread pool with N threads (llama.cpp's way).
int ggml_threads() {
  static const int threads = [] {
    const char* text = std::getenv("PECONFORM_GGML_THREADS");
    const int n = text != nullptr ? std::atoi(text) : 1;
    return n >= 1 && n <= 256 ? n : 1;
  }();
  return threads;
}

bool is_dtype(const DLDataType& t, uint8_t code, uint8_t bits) { return t.code == code && t.bits == bits && t.lanes == 1; }

// Whether `t` is [batch, seq, heads, d] row-major without padding (NULL strides mean that too).
bool contiguous(const DLTensor& t) {
  if (t.strides == nullptr) return true;
  int64_t expected = 1;
  for (int a = t.ndim - 1; a >= 0; --a) {
    if (t.shape[a] != 1 && t.strides[a] != expected) return false;
    expected *= t.shape[a];
  }
  return true;
}

struct Claim {
  int32_t family;       // PEC_ROPE (ggml_rope_ext), PEC_MROPE or PEC_ROPE2D (ggml_rope_multi)
  int mode;             // GGML_ROPE_TYPE_NORMAL (0), _NEOX, _MROPE, _IMROPE or _VISION
  int32_t layout;       // the pec_layout that mode is
  int32_t precision;    // the class this kernel's declaration claims
};

// ggml_rope_multi's position streams per token: t, h, w and e, which peconform's mrope lacks.
constexpr int kGgmlMropeStreams = 4;

const char* family_name(int32_t family) { return family == PEC_ROPE ? "rope" : family == PEC_MROPE ? "mrope" : "rope2d"; }

pec_status run_rope(const Claim& claim, const pec_call* call, char* error, size_t error_size) {
  const pec_spec& spec = *call->spec;
  const bool mrope = claim.family == PEC_MROPE;
  const bool vision = claim.family == PEC_ROPE2D;
  const bool multi = mrope || vision;  // ggml_rope_multi rather than ggml_rope_ext
  // What the patterns admit, checked again so that a call outside them is refused, never run.
  if (spec.family != claim.family)
    return say(PEC_REFUSED, error, error_size, "this kernel is ggml mode %d, which serves %s only", claim.mode, family_name(claim.family));
  if (spec.layout != claim.layout)
    return say(PEC_REFUSED, error, error_size, "this kernel is ggml mode %d, which is layout %d, not %d", claim.mode,
               claim.layout, spec.layout);
  if (spec.rot_last) return say(PEC_REFUSED, error, error_size, "ggml's rope rotates the first n_dims dims (rot_at=first)");
  if (spec.sign != 1) return say(PEC_REFUSED, error, error_size, "ggml's rope rotates by +angle only (sign=1)");
  if (spec.amp != 1.0) return say(PEC_REFUSED, error, error_size, "this adapter passes attn_factor = 1 (amp=1) only");
  if (spec.precision != claim.precision)
    return say(PEC_REFUSED, error, error_size, "this kernel claims precision class %d, not %d", claim.precision, spec.precision);
  if (spec.precision == PEC_FP32_ANGLE && spec.theta != PEC_THETA_GGML)
    return say(PEC_REFUSED, error, error_size, "ggml forms theta by its running product (theta=ggml), not recipe %d", spec.theta);
  const pec_plan& scaling = spec.scaling;
  const bool yarn = scaling.kind == PEC_PLAN_YARN;
  if (scaling.kind != PEC_PLAN_NONE && scaling.kind != PEC_PLAN_LINEAR && !yarn && scaling.kind != PEC_PLAN_CUSTOM)
    return say(PEC_REFUSED, error, error_size, "this adapter serves scaling none, linear, yarn and custom, not plan %d", scaling.kind);
  if (yarn && (scaling.has_mscale || scaling.has_mscale_all_dim || scaling.has_attention || !scaling.truncate))
    return say(PEC_REFUSED, error, error_size, "ggml forms YaRN's attention factor and ramp itself: no mscale, attention or truncate=false");
  if (scaling.kind == PEC_PLAN_CUSTOM && scaling.factors == nullptr)
    return say(PEC_REFUSED, error, error_size, "ggml's freq_factors divide its frequencies: custom(factors=...) only");
  if (spec.rot < 2 || spec.rot % 2 != 0 || spec.rot > spec.d)
    return say(PEC_REFUSED, error, error_size, "ggml needs an even n_dims in [2, d]; rot is %d of d = %d", spec.rot, spec.d);
  if (scaling.kind == PEC_PLAN_CUSTOM && scaling.factor_count != spec.rot / 2)
    return say(PEC_REFUSED, error, error_size, "custom has %lld factors for %d pairs", static_cast<long long>(scaling.factor_count), spec.rot / 2);
  // ggml_rope_multi's sections: for mrope t, h and w from the spec, e's 0; for rope2d d/4 each, as
  // llama.cpp's vision towers pass them.
  int sections[GGML_MROPE_SECTIONS] = {0, 0, 0, 0};
  if (vision) {
    // ggml asserts an even n_dims = d/2; a rope2d spec's d is a multiple of 4 already.
    if (spec.d % 4 != 0) return say(PEC_REFUSED, error, error_size, "VISION needs d a multiple of 4; d is %d", spec.d);
    for (int& section : sections) section = spec.d / 4;
  } else if (mrope) {
    const bool imrope = claim.mode == GGML_ROPE_TYPE_IMROPE;
    if ((spec.sections_interleaved != 0) != imrope)
      return say(PEC_REFUSED, error, error_size, "this kernel is ggml mode %d, which is section_mode=%s", claim.mode,
                 imrope ? "interleaved" : "blocked");
    if (spec.section_count < 1 || spec.section_count > 3)
      return say(PEC_REFUSED, error, error_size, "expected 1 to 3 sections (t, h, w), found %d", spec.section_count);
    int pairs = 0;
    for (int k = 0; k < spec.section_count; ++k) {
      if (spec.sections[k] < 1) return say(PEC_REFUSED, error, error_size, "section %d is %d; each must be positive", k, spec.sections[k]);
      sections[k] = spec.sections[k];
      pairs += spec.sections[k];
    }
    if (2 * pairs != spec.rot)
      return say(PEC_REFUSED, error, error_size, "the sections cover %d pairs but rot = %d has %d", pairs, spec.rot, spec.rot / 2);
  }
  // ggml's n_dims: the rotated dims, except under VISION, which asserts n_dims = d/2 and rotates
  // all d dims as d/2 pairs (k, k + n_dims).
  const int n_dims = vision ? spec.d / 2 : spec.rot;
  if (yarn && (scaling.orig < 1 || scaling.orig > std::numeric_limits<int>::max()))
    return say(PEC_REFUSED, error, error_size, "ggml's n_ctx_orig is an int; orig is %lld", static_cast<long long>(scaling.orig));
  ggml_type type;
  if (is_dtype(spec.dtype, kDLFloat, 32))
    type = GGML_TYPE_F32;
  else if (is_dtype(spec.dtype, kDLFloat, 16))
    type = GGML_TYPE_F16;
  else
    return say(PEC_REFUSED, error, error_size, "ggml's CPU rope takes F32 and F16 only");
  const float freq_base = static_cast<float>(spec.base);
  const float freq_scale =
      scaling.kind == PEC_PLAN_LINEAR || yarn ? 1.0f / static_cast<float>(spec.scaling.factor) : 1.0f;
  // ggml's YaRN arguments; with ext_factor 0 ggml reads none of the others.
  const float ext_factor = yarn ? 1.0f : 0.0f;
  const int n_ctx_orig = yarn ? static_cast<int>(scaling.orig) : 0;
  const float beta_fast = yarn ? static_cast<float>(scaling.beta_fast) : 32.0f, beta_slow = yarn ? static_cast<float>(scaling.beta_slow) : 0.0f;
  std::vector<float> freq_factors;
  for (int64_t k = 0; scaling.kind == PEC_PLAN_CUSTOM && k < scaling.factor_count; ++k) freq_factors.push_back(static_cast<float>(scaling.factors[k]));
  if (!(freq_base > 0.0f) || !std::isfinite(freq_base) || !(freq_scale > 0.0f) || !std::isfinite(freq_scale))
    return say(PEC_REFUSED, error, error_size, "base %g or factor %g is not a positive float32", spec.base, spec.scaling.factor);

  // The tensors: operand_count [batch, seq, heads, d] pairs, contiguous, of the spec's dtype.
  if (call->operand_count < 1 || call->operand_count > 2 || call->inputs == nullptr || call->outputs == nullptr ||
      call->ids == nullptr)
    return say(PEC_REFUSED, error, error_size, "expected 1 or 2 rotary operands and their ids");
  const DLTensor& ids = *call->ids;
  const int axes = mrope ? 3 : vision ? 2 : 1;
  if (!is_dtype(ids.dtype, kDLInt, 32)) return say(PEC_REFUSED, error, error_size, "ggml's rope positions are int32");
  if (ids.ndim != 3 || ids.shape[0] != axes || !contiguous(ids))
    return say(PEC_REFUSED, error, error_size, "expected contiguous [%d, batch, seq] ids", axes);
  const int64_t batch = ids.shape[1], seq = ids.shape[2];
  for (int o = 0; o < call->operand_count; ++o) {
    for (const DLTensor* t : {&call->inputs[o], &call->outputs[o]}) {
      if (t->device.device_type != kDLCPU || t->ndim != 4 || !is_dtype(t->dtype, spec.dtype.code, spec.dtype.bits))
        return say(PEC_REFUSED, error, error_size, "operand %d: expected a CPU [batch, seq, heads, d] tensor of the spec's dtype", o);
      if (t->shape[0] != batch || t->shape[1] != seq || t->shape[3] != spec.d)
        return say(PEC_REFUSED, error, error_size, "operand %d: shape does not match the ids and d", o);
      if (!contiguous(*t)) return say(PEC_REFUSED, error, error_size, "ggml's rope writes a contiguous result; strided calls are not taken");
    }
    if (call->inputs[o].shape[2] != call->outputs[o].shape[2])
      return say(PEC_REFUSED, error, error_size, "operand %d: input and output head counts differ", o);
  }
  if (batch == 0 || seq == 0) return PEC_OK;

  // ggml's positions for one batch row, shared by every head: ggml_rope_ext's b holds one int32
  // per token, ggml_rope_multi's four streams of seq each (t, h, w, e). Neither has per-row
  // positions, so each batch row is its own rope node. mrope's e stays 0 (value-initialised);
  // rope2d's x and y go to streams 0 and 1 and again to 2 and 3, llama.cpp's order.
  const int64_t streams = multi ? kGgmlMropeStreams : 1;
  std::vector<int32_t> positions(static_cast<size_t>(batch * streams * seq));
  const int32_t* id_data = reinterpret_cast<const int32_t*>(static_cast<const char*>(ids.data) + ids.byte_offset);
  for (int a = 0; a < axes; ++a)
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t s = 0; s < seq; ++s) {
        const int64_t p = static_cast<int64_t>(id_data[(a * batch + b) * seq + s]) + call->id_offset;
        if (p < std::numeric_limits<int32_t>::min() || p > std::numeric_limits<int32_t>::max())
          return say(PEC_REFUSED, error, error_size, "position %lld does not fit ggml's int32 positions", static_cast<long long>(p));
        positions[static_cast<size_t>((b * streams + a) * seq + s)] = static_cast<int32_t>(p);
        if (vision) positions[static_cast<size_t>((b * streams + a + 2) * seq + s)] = static_cast<int32_t>(p);
      }

  const int nodes = static_cast<int>(batch) * call->operand_count;
  const size_t graph_size = static_cast<size_t>(nodes) * 4 + 16;
  ggml_init_params params{};
  params.mem_size = ggml_tensor_overhead() * (static_cast<size_t>(nodes) * 4 + 9) + ggml_graph_overhead_custom(graph_size, false);
  params.mem_buffer = nullptr;
  params.no_alloc = true;  // every tensor's data is peconform's buffer or `positions`
  ggml_context* ctx = ggml_init(params);
  if (ctx == nullptr) return say(PEC_FAILED, error, error_size, "ggml_init failed");
  ggml_cgraph* graph = ggml_new_graph_custom(ctx, graph_size, false);

  const size_t element = ggml_type_size(type);
  ggml_tensor* factors = nullptr;
  if (!freq_factors.empty()) {
    factors = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, static_cast<int64_t>(freq_factors.size()));
    factors->data = freq_factors.data();
  }
  for (int o = 0; o < call->operand_count; ++o) {
    const DLTensor& in = call->inputs[o];
    const DLTensor& out = call->outputs[o];
    const int64_t heads = in.shape[2];
    const size_t row_bytes = static_cast<size_t>(seq * heads * spec.d) * element;
    char* in_data = static_cast<char*>(in.data) + in.byte_offset;
    char* out_data = static_cast<char*>(out.data) + out.byte_offset;
    for (int64_t b = 0; b < batch; ++b) {
      // [batch, seq, heads, d] row-major is ggml's [ne0 = d, ne1 = heads, ne2 = seq] per row.
      ggml_tensor* x = ggml_new_tensor_3d(ctx, type, spec.d, heads, seq);
      x->data = in_data + static_cast<size_t>(b) * row_bytes;
      ggml_tensor* pos = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, streams * seq);
      pos->data = positions.data() + b * streams * seq;
      ggml_tensor* y;
      if (multi && call->in_place) {
        y = ggml_rope_multi_inplace(ctx, x, pos, factors, n_dims, sections, claim.mode, n_ctx_orig, freq_base, freq_scale,
                                    ext_factor, /*attn_factor=*/1.0f, beta_fast, beta_slow);
      } else if (multi) {
        y = ggml_rope_multi(ctx, x, pos, factors, n_dims, sections, claim.mode, n_ctx_orig, freq_base, freq_scale, ext_factor,
                            /*attn_factor=*/1.0f, beta_fast, beta_slow);
      } else if (call->in_place) {
        y = ggml_rope_ext_inplace(ctx, x, pos, factors, n_dims, claim.mode, n_ctx_orig, freq_base, freq_scale, ext_factor,
                                  /*attn_factor=*/1.0f, beta_fast, beta_slow);
      } else {
        y = ggml_rope_ext(ctx, x, pos, factors, n_dims, claim.mode, n_ctx_orig, freq_base, freq_scale, ext_factor,
                          /*attn_factor=*/1.0f, beta_fast, beta_slow);
      }
      if (!call->in_place) y->data = out_data + static_cast<size_t>(b) * row_bytes;
      ggml_build_forward_expand(graph, y);
    }
  }

  ggml_cplan plan = ggml_graph_plan(graph, ggml_threads(), nullptr);
  std::vector<uint8_t> work(plan.work_size);
  plan.work_data = work.empty() ? nullptr : work.data();
  const ggml_status status = ggml_graph_compute(graph, &plan);
  ggml_free(ctx);
  if (status != GGML_STATUS_SUCCESS) return say(PEC_FAILED, error, error_size, "ggml_graph_compute returned %d", static_cast<int>(status));
  return PEC_OK;
}

constexpr Claim kNormFp32{PEC_ROPE, GGML_ROPE_TYPE_NORMAL, PEC_LAYOUT_INTERLEAVED, PEC_FP32_ANGLE};
constexpr Claim kNeoxFp32{PEC_ROPE, GGML_ROPE_TYPE_NEOX, PEC_LAYOUT_HALF, PEC_FP32_ANGLE};
constexpr Claim kNormExactClaim{PEC_ROPE, GGML_ROPE_TYPE_NORMAL, PEC_LAYOUT_INTERLEAVED, PEC_EXACT_ANGLE};
constexpr Claim kNeoxExactClaim{PEC_ROPE, GGML_ROPE_TYPE_NEOX, PEC_LAYOUT_HALF, PEC_EXACT_ANGLE};
// ggml_rope_multi applies MROPE and IMROPE's angles to NeoX's pairs (i, i + n_dims/2).
constexpr Claim kMropeFp32{PEC_MROPE, GGML_ROPE_TYPE_MROPE, PEC_LAYOUT_HALF, PEC_FP32_ANGLE};
constexpr Claim kImropeFp32{PEC_MROPE, GGML_ROPE_TYPE_IMROPE, PEC_LAYOUT_HALF, PEC_FP32_ANGLE};
constexpr Claim kMropeExactClaim{PEC_MROPE, GGML_ROPE_TYPE_MROPE, PEC_LAYOUT_HALF, PEC_EXACT_ANGLE};
constexpr Claim kImropeExactClaim{PEC_MROPE, GGML_ROPE_TYPE_IMROPE, PEC_LAYOUT_HALF, PEC_EXACT_ANGLE};
// VISION's pairs (k, k + d/2) are rope2d's half layout.
constexpr Claim kVisionFp32{PEC_ROPE2D, GGML_ROPE_TYPE_VISION, PEC_LAYOUT_HALF, PEC_FP32_ANGLE};
constexpr Claim kVisionExactClaim{PEC_ROPE2D, GGML_ROPE_TYPE_VISION, PEC_LAYOUT_HALF, PEC_EXACT_ANGLE};

pec_status norm_fp32(const pec_call* c, char* e, size_t n) { return run_rope(kNormFp32, c, e, n); }
pec_status neox_fp32(const pec_call* c, char* e, size_t n) { return run_rope(kNeoxFp32, c, e, n); }
pec_status norm_exact(const pec_call* c, char* e, size_t n) { return run_rope(kNormExactClaim, c, e, n); }
pec_status neox_exact(const pec_call* c, char* e, size_t n) { return run_rope(kNeoxExactClaim, c, e, n); }
pec_status mrope_fp32(const pec_call* c, char* e, size_t n) { return run_rope(kMropeFp32, c, e, n); }
pec_status imrope_fp32(const pec_call* c, char* e, size_t n) { return run_rope(kImropeFp32, c, e, n); }
pec_status mrope_exact(const pec_call* c, char* e, size_t n) { return run_rope(kMropeExactClaim, c, e, n); }
pec_status imrope_exact(const pec_call* c, char* e, size_t n) { return run_rope(kImropeExactClaim, c, e, n); }
pec_status vision_fp32(const pec_call* c, char* e, size_t n) { return run_rope(kVisionFp32, c, e, n); }
pec_status vision_exact(const pec_call* c, char* e, size_t n) { return run_rope(kVisionExactClaim, c, e, n); }

#ifndef PEC_GGML_COMMIT
#define PEC_GGML_COMMIT "unknown"
#endif
// The report names the library: ggml and the commit it was built from (CMakeLists.txt).
constexpr const char* kLibraryName = "ggml-" PEC_GGML_COMMIT;

constexpr uint32_t kTakes = PEC_TAKES_OUT_OF_PLACE | PEC_TAKES_IN_PLACE | PEC_TAKES_IDS32 | PEC_TAKES_KEY_OPERAND;

const pec_kernel kKernels[] = {
    {"ggml-rope-norm", kNormFp32Angle, kDLCPU, kTakes, 0, norm_fp32},
    {"ggml-rope-neox", kNeoxFp32Angle, kDLCPU, kTakes, 0, neox_fp32},
    {"ggml-rope-norm-exact", kNormExact, kDLCPU, kTakes, 0, norm_exact},
    {"ggml-rope-neox-exact", kNeoxExact, kDLCPU, kTakes, 0, neox_exact},
    {"ggml-mrope", kMropeFp32Angle, kDLCPU, kTakes, 0, mrope_fp32},
    {"ggml-imrope", kImropeFp32Angle, kDLCPU, kTakes, 0, imrope_fp32},
    {"ggml-mrope-exact", kMropeExact, kDLCPU, kTakes, 0, mrope_exact},
    {"ggml-imrope-exact", kImropeExact, kDLCPU, kTakes, 0, imrope_exact},
    {"ggml-vision", kVisionFp32Angle, kDLCPU, kTakes, 0, vision_fp32},
    {"ggml-vision-exact", kVisionExact, kDLCPU, kTakes, 0, vision_exact},
};

}  // namespace

extern "C" __attribute__((visibility("default"))) const pec_plugin* peconform_plugin_v1(void) {
  static const pec_plugin plugin = [] {
    ggml_cpu_init();  // ggml's fp16 tables and timers, once, before any graph
    return pec_plugin{PECONFORM_ABI_VERSION, kLibraryName, static_cast<int32_t>(sizeof(kKernels) / sizeof(kKernels[0])), kKernels};
  }();
  return &plugin;
}
