// libmutant_plugins.so: a corpus of buggy kernels (issue 19, label `mutants`). Each kernel is
// our correct CPU kernel behind the C ABI (peconform::cpu::run_abi_call) with one bug planted,
// or a small kernel of its own, named after the bug; each bug is one a real kernel shipped
// (DESIGN.md section 5 and the anchor-suites notes' bug taxonomy; each kernel cites its
// issues). Beside each mutant `NAME` is its twin `NAME.correct`: the same patterns and calls
// taken, the bug switched off. tests/tools/mutant_plugins_test.cpp runs both through `peconform run --plugin --profile
// ci`: the mutant must fail with the verdict kind the bug gives, the twin must pass the same
// cases, so that the bug, not the pattern or the wrapping, is what fails.
//
// Built against the ABI alone: this file includes kernel_abi.h, the CPU kernel's entry point
// and spec/ (to rewrite a call's spec text), never harness/ or reference/. Most bugs transform
// the call before the correct kernel runs (a spec text with another layout, sign, rot_at, plan
// or class; other positions; other strides; fewer tokens or operands) or its outputs after it
// (pass-through dims rounded, one element past the end written, one element left unwritten).
// ALiBi's slopes need a small kernel of its own (its twin is that kernel with the published
// slopes); T5's reversed distance is our kernel with queries and keys swapped, transposed.
#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <numbers>
#include <string>
#include <thread>
#include <vector>

#include "backends/cpu/plugin/cpu_abi_kernel.hpp"
#include "peconform/kernel_abi.h"
#include "spec/spec.hpp"

namespace {

using peconform::Spec;
using peconform::cpu::run_abi_call;

// ---------------------------------------------------------------------------------------------
// Reading and writing DLPack tensors.

std::int64_t stride_of(const DLTensor& tensor, int axis) {
  if (tensor.strides != nullptr) return tensor.strides[axis];
  std::int64_t stride = 1;
  for (int a = tensor.ndim - 1; a > axis; --a) stride *= tensor.shape[a];
  return stride;
}

std::size_t element_bytes(const DLTensor& tensor) { return static_cast<std::size_t>(tensor.dtype.bits / 8); }

char* base_of(const DLTensor& tensor) { return static_cast<char*>(tensor.data) + tensor.byte_offset; }

// The element at `index` (one coordinate per axis).
char* element_at(const DLTensor& tensor, const std::int64_t* index) {
  std::int64_t offset = 0;
  for (int a = 0; a < tensor.ndim; ++a) offset += index[a] * stride_of(tensor, a);
  return base_of(tensor) + offset * static_cast<std::int64_t>(element_bytes(tensor));
}

// Calls `visit(index)` for every element of a 4-D rotary tensor [batch, seq, heads, d].
template <class Visit> void for_each_element4(const DLTensor& tensor, Visit visit) {
  std::int64_t index[4];
  for (index[0] = 0; index[0] < tensor.shape[0]; ++index[0])
    for (index[1] = 0; index[1] < tensor.shape[1]; ++index[1])
      for (index[2] = 0; index[2] < tensor.shape[2]; ++index[2])
        for (index[3] = 0; index[3] < tensor.shape[3]; ++index[3]) visit(index);
}

// A DLTensor with shape and strides of its own, which a mutant may change.
struct OwnedTensor {
  DLTensor tensor{};
  std::array<std::int64_t, 4> shape{}, strides{};

  explicit OwnedTensor(const DLTensor& from) : tensor(from) {
    for (int a = 0; a < from.ndim; ++a) {
      shape[static_cast<std::size_t>(a)] = from.shape[a];
      strides[static_cast<std::size_t>(a)] = stride_of(from, a);
    }
    tensor.shape = shape.data();
    tensor.strides = strides.data();
  }
  OwnedTensor(const OwnedTensor&) = delete;
  OwnedTensor& operator=(const OwnedTensor&) = delete;
};

// Position ids the mutant made: a contiguous int64 or int32 [axes, batch, seq] tensor.
struct OwnedIds {
  std::vector<std::int64_t> ids64;
  std::vector<std::int32_t> ids32;
  std::array<std::int64_t, 3> shape{}, strides{};
  DLTensor tensor{};

  OwnedIds(const DLTensor& like, bool is64) {
    for (std::size_t a = 0; a < 3; ++a) shape[a] = like.shape[a];
    strides = {shape[1] * shape[2], shape[2], 1};
    const auto count = static_cast<std::size_t>(shape[0] * shape[1] * shape[2]);
    if (is64) ids64.resize(count); else ids32.resize(count);
    tensor.data = is64 ? static_cast<void*>(ids64.data()) : static_cast<void*>(ids32.data());
    tensor.device = {kDLCPU, 0};
    tensor.ndim = 3;
    tensor.dtype = {kDLInt, static_cast<std::uint8_t>(is64 ? 64 : 32), 1};
    tensor.shape = shape.data();
    tensor.strides = strides.data();
  }
  OwnedIds(const OwnedIds&) = delete;
  OwnedIds& operator=(const OwnedIds&) = delete;
};

// The id the call gives token (b, s) on `axis`, without the call's id_offset.
std::int64_t id_at(const DLTensor& ids, std::int64_t axis, std::int64_t b, std::int64_t s) {
  const std::int64_t index[3] = {axis, b, s};
  const char* at = element_at(ids, index);
  if (ids.dtype.bits == 64) {
    std::int64_t id;
    std::memcpy(&id, at, sizeof id);
    return id;
  }
  std::int32_t id;
  std::memcpy(&id, at, sizeof id);
  return id;
}

// The call with every position p (id + id_offset) replaced by position(p), as int64 ids and
// an id_offset of 0.
template <class Position> pec_status run_with_positions(const pec_call* call, char* error, size_t size, Position position) {
  if (call->ids == nullptr) return run_abi_call(call, error, size);
  const DLTensor& ids = *call->ids;
  OwnedIds changed(ids, true);
  std::size_t k = 0;
  for (std::int64_t a = 0; a < ids.shape[0]; ++a)
    for (std::int64_t b = 0; b < ids.shape[1]; ++b)
      for (std::int64_t s = 0; s < ids.shape[2]; ++s) changed.ids64[k++] = position(id_at(ids, a, b, s) + call->id_offset);
  pec_call moved = *call;
  moved.ids = &changed.tensor;
  moved.id_offset = 0;
  return run_abi_call(&moved, error, size);
}

// ---------------------------------------------------------------------------------------------
// Rounding to the 16-bit formats, for the bugs that round through them and ALiBi's own kernel.

// x rounded to nearest-even in a binary format with `digits` significand bits, smallest normal
// exponent `min_exponent` and largest finite value `largest` (exact: scaling by a power of two).
double round_to_format(double x, int digits, int min_exponent, double largest) {
  if (!std::isfinite(x) || x == 0) return x;
  const int exponent = std::max(std::ilogb(x), min_exponent);
  const double quantum = std::ldexp(1.0, exponent - (digits - 1));
  const double rounded = std::nearbyint(x / quantum) * quantum;  // the default rounding mode: to nearest even
  return std::fabs(rounded) > largest ? std::copysign(INFINITY, x) : rounded;
}
double round_to_bf16(double x) { return round_to_format(x, 8, -126, 0x1.fep127); }
double round_to_fp16(double x) { return round_to_format(x, 11, -14, 65504.0); }

// A value that bf16 (fp16) holds exactly, as its bits.
std::uint16_t bf16_bits(double held) {
  const float value = static_cast<float>(held);
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return static_cast<std::uint16_t>(bits >> 16);
}
std::uint16_t fp16_bits(double held) {
  const std::uint16_t sign = std::signbit(held) ? 0x8000 : 0;
  const double magnitude = std::fabs(held);
  if (std::isnan(held)) return 0x7e00;
  if (std::isinf(held)) return sign | 0x7c00;
  if (magnitude == 0) return sign;
  const int exponent = std::ilogb(magnitude);
  if (exponent < -14) return sign | static_cast<std::uint16_t>(magnitude * 0x1p24);  // subnormal: a multiple of 2^-24
  const auto fraction = static_cast<std::uint16_t>((std::ldexp(magnitude, -exponent) - 1.0) * 1024.0);
  return sign | static_cast<std::uint16_t>((exponent + 15) << 10) | fraction;
}

// Writes `value` (already rounded to the tensor's dtype, or not for fp32 and fp64) at `at`.
void store(const DLTensor& tensor, char* at, double value) {
  if (tensor.dtype.code == kDLBfloat) {
    const std::uint16_t bits = bf16_bits(round_to_bf16(value));
    std::memcpy(at, &bits, sizeof bits);
  } else if (tensor.dtype.bits == 16) {
    const std::uint16_t bits = fp16_bits(round_to_fp16(value));
    std::memcpy(at, &bits, sizeof bits);
  } else if (tensor.dtype.bits == 32) {
    const auto single = static_cast<float>(value);
    std::memcpy(at, &single, sizeof single);
  } else {
    std::memcpy(at, &value, sizeof value);
  }
}

// ---------------------------------------------------------------------------------------------
// Mutants and their twins. Each mutant says which real bug it plants and how faithfully.

pec_status explain(char* error, size_t size, const char* text, pec_status status) {
  if (error != nullptr && size > 0) std::snprintf(error, size, "%s", text);
  return status;
}

// Runs `body`, which returns a status; a C++ exception (a spec the mutant could not rewrite)
// becomes PEC_FAILED with its message: an `error` verdict, never a crash through the C ABI.
template <class Body> pec_status guarded(char* error, size_t size, Body body) noexcept {
  try {
    return body();
  } catch (const std::exception& failure) {
    return explain(error, size, failure.what(), PEC_FAILED);
  }
}

// The call with its spec replaced by `spec`. The numeric pec_spec still describes the original
// call; the CPU kernel reads the spec text only.
pec_status run_with_spec(const pec_call* call, const Spec& spec, char* error, size_t size) {
  const std::string text = spec.canonical();
  pec_call changed = *call;
  changed.spec_text = text.c_str();
  return run_abi_call(&changed, error, size);
}

Spec spec_of(const pec_call* call) { return Spec::parse(call->spec_text); }

// GPT-J pairing on NeoX data (llama.cpp #7451, vllm-ascend #4641, vllm #49290): the kernel
// serves layout=half but rotates adjacent pairs (2i, 2i+1).
pec_status gptj_pairing_on_neox(const pec_call* call, char* error, size_t size) {
  return guarded(error, size, [&] {
    Spec spec = spec_of(call);
    spec.layout = peconform::Layout::interleaved;
    return run_with_spec(call, spec, error, size);
  });
}

// The rotation's sign flipped: y = R(-angle) x where R(+angle) is served (the sign convention
// nanochat chose on purpose, shipped by accident).
pec_status rotation_sign_flipped(const pec_call* call, char* error, size_t size) {
  return guarded(error, size, [&] {
    Spec spec = spec_of(call);
    spec.sign = -spec.sign;
    return run_with_spec(call, spec, error, size);
  });
}

// rot_at=last read as first (DeepSeek MLA's rotary dims at the end of the head): the first
// rot dims are rotated and the last ones passed through.
pec_status rot_at_last_as_first(const pec_call* call, char* error, size_t size) {
  return guarded(error, size, [&] {
    Spec spec = spec_of(call);
    spec.rot_at = peconform::RotaryPlacement::first;
    return run_with_spec(call, spec, error, size);
  });
}

// theta_i = base^(-2i/d) instead of base^(-2i/d_rot) under partial rotary (GPT-NeoX's
// rotary_pct, Phi's partial_rotary_factor). As a custom plan with those frequencies, each the
// double pow gives for base^(-2i/d) to 17 digits (a relative error near 2^-52, where the bug's
// is base^(2i/d_rot - 2i/d) - 1); a head rotated whole is left alone, as the real bug leaves it.
pec_status theta_over_d_for_partial(const pec_call* call, char* error, size_t size) {
  return guarded(error, size, [&] {
    Spec spec = spec_of(call);
    if (spec.rotary_dims() == spec.d) return run_abi_call(call, error, size);
    const double base = spec.base.to_double();
    spec.scaling = {};
    spec.scaling.kind = peconform::PlanKind::custom;
    for (int i = 0; i < spec.rotary_dims() / 2; ++i) {
      char text[64];
      std::snprintf(text, sizeof text, "%.17g", std::pow(base, -2.0 * i / spec.d));
      spec.scaling.freqs.push_back(peconform::Decimal::parse(text));
    }
    return run_with_spec(call, spec, error, size);
  });
}

// The pass-through dims of a partial rotary head rounded through bf16 on the way out (a kernel
// that stages the whole head in bf16 registers: llama.cpp #14580's partial-rotary copy class).
// fp32 and fp64 heads only: bf16 is lossless there for a bf16 head.
pec_status pass_through_via_bf16(const pec_call* call, char* error, size_t size) {
  return guarded(error, size, [&] {
    const pec_status status = run_abi_call(call, error, size);
    if (status != PEC_OK) return status;
    const Spec spec = spec_of(call);
    const int rot = spec.rotary_dims();
    const int first = spec.rot_at == peconform::RotaryPlacement::last ? 0 : rot;
    const int last = spec.rot_at == peconform::RotaryPlacement::last ? spec.d - rot : spec.d;
    for (std::int32_t o = 0; o < call->operand_count; ++o) {
      const DLTensor& out = call->outputs[o];
      for_each_element4(out, [&](const std::int64_t* index) {
        if (index[3] < first || index[3] >= last) return;
        char* at = element_at(out, index);
        if (out.dtype.bits == 32) {
          float value;
          std::memcpy(&value, at, sizeof value);
          value = static_cast<float>(round_to_bf16(value));
          std::memcpy(at, &value, sizeof value);
        } else {
          double value;
          std::memcpy(&value, at, sizeof value);
          value = round_to_bf16(value);
          std::memcpy(at, &value, sizeof value);
        }
      });
    }
    return PEC_OK;
  });
}

// Every position one too far (ALiBi's vllm #945 off-by-one, in a rotary kernel: positions
// counted from 1).
pec_status position_off_by_one(const pec_call* call, char* error, size_t size) {
  return guarded(error, size, [&] { return run_with_positions(call, error, size, [](std::int64_t p) { return p + 1; }); });
}

// The offset beside the ids ignored: positions start at 0 whatever the offset (a KV-cache
// continuation rotated as if it were the prompt; TransformerEngine's start_positions).
pec_status offset_ignored(const pec_call* call, char* error, size_t size) {
  return guarded(error, size, [&] {
    pec_call changed = *call;
    changed.id_offset = 0;
    return run_abi_call(&changed, error, size);
  });
}

// int64 position ids read as int32 (flashinfer #697: int64 positions passed to an int32
// kernel): id k is the k-th 32-bit word of the buffer, so on a little-endian machine token 2j
// reads the low word of id j and token 2j+1 its high word.
pec_status int64_ids_read_as_int32(const pec_call* call, char* error, size_t size) {
  return guarded(error, size, [&] {
    if (call->ids == nullptr || call->ids->dtype.bits != 64) return run_abi_call(call, error, size);
    const DLTensor& ids = *call->ids;
    OwnedIds words(ids, false);
    const auto* raw = reinterpret_cast<const std::int32_t*>(base_of(ids));  // the ABI's ids are contiguous
    std::copy(raw, raw + words.ids32.size(), words.ids32.begin());
    pec_call changed = *call;
    changed.ids = &words.tensor;
    return run_abi_call(&changed, error, size);
  });
}

// Positions converted to float32 before the multiply, in a kernel claiming exact-angle
// (bf16/float positions: mlx #2791, candle #3520; here float32): past 2^24 a position rounds
// to a multiple of 2, past 2^25 of 4, and the angle moves by up to 64 theta_i at 2^31.
pec_status positions_via_float32(const pec_call* call, char* error, size_t size) {
  return guarded(error, size, [&] {
    return run_with_positions(call, error, size, [](std::int64_t p) { return static_cast<std::int64_t>(static_cast<float>(p)); });
  });
}

// A kernel that stops after 65,535 tokens (Fast-LLM #386: seq_len on a 16-bit grid dimension;
// xformers #1046: over 65k queries broke the launch): tokens from 65,535 on are never touched.
pec_status stops_after_65535_tokens(const pec_call* call, char* error, size_t size) {
  constexpr std::int64_t kGridLimit = 65535;
  return guarded(error, size, [&] {
    if (call->outputs[0].shape[1] <= kGridLimit) return run_abi_call(call, error, size);
    std::vector<DLTensor> inputs, outputs;
    std::vector<std::unique_ptr<OwnedTensor>> owned;
    for (std::int32_t o = 0; o < call->operand_count; ++o) {
      owned.push_back(std::make_unique<OwnedTensor>(call->inputs[o]));
      owned.back()->shape[1] = kGridLimit;
      inputs.push_back(owned.back()->tensor);
      owned.push_back(std::make_unique<OwnedTensor>(call->outputs[o]));
      owned.back()->shape[1] = kGridLimit;
      outputs.push_back(owned.back()->tensor);
    }
    OwnedTensor ids(*call->ids);
    ids.shape[2] = kGridLimit;
    pec_call cut = *call;
    cut.inputs = inputs.data();
    cut.outputs = outputs.data();
    cut.ids = &ids.tensor;
    return run_abi_call(&cut, error, size);
  });
}

// A float32 angle claimed as exact-angle (TensorRT-LLM #18774, kekzl/imp #1325: float32
// frequency, position and angle, fine at the short positions tests used): the kernel computes
// fp32-angle (theta correctly rounded to float32) and claims exact-angle.
pec_status fp32_angle_claimed_exact(const pec_call* call, char* error, size_t size) {
  return guarded(error, size, [&] {
    Spec spec = spec_of(call);
    spec.precision = peconform::PrecisionClass::fp32_angle;
    spec.theta = peconform::ThetaRecipe::exact;
    return run_with_spec(call, spec, error, size);
  });
}

// A bf16 cos/sin cache claimed as fp32-angle (gpt-neox #1003, flashinfer #585, vllm #4596:
// the cache cast to the activations' bf16): cos and sin rounded to bf16 before the products,
// in a bf16 kernel whose spec claims cos and sin are kept in float32.
pec_status bf16_cache_claimed_fp32_angle(const pec_call* call, char* error, size_t size) {
  return guarded(error, size, [&] {
    Spec spec = spec_of(call);
    spec.precision = peconform::PrecisionClass::lowp_cache;
    spec.theta = peconform::ThetaRecipe::exact;
    return run_with_spec(call, spec, error, size);
  });
}

// inv_freq held in bf16 (transformers #25681, #29285: buffers cast by .to(bf16) or autocast;
// TransformerEngine #2240): each theta_i rounded to bf16, then used as it is. As a custom plan
// of those frequencies, each printed exactly (a bf16 value above 2^-60 has fewer than 60
// significant decimal digits).
pec_status inv_freq_in_bf16(const pec_call* call, char* error, size_t size) {
  return guarded(error, size, [&] {
    Spec spec = spec_of(call);
    const double base = spec.base.to_double();
    const int rot = spec.rotary_dims();
    spec.scaling = {};
    spec.scaling.kind = peconform::PlanKind::custom;
    for (int i = 0; i < rot / 2; ++i) {
      char text[80];
      std::snprintf(text, sizeof text, "%.60g", round_to_bf16(std::pow(base, -2.0 * i / rot)));
      spec.scaling.freqs.push_back(peconform::Decimal::parse(text));
    }
    return run_with_spec(call, spec, error, size);
  });
}

// The spec of a 16-bit model's rotation with its inv_freq held in the model's dtype: Hugging
// Face's float32 inv_freq = 1 / powf(base, 2i/rot), then rounded to bf16 or fp16 as a buffer of a
// model cast by model.to(dtype) holds it, as a custom plan of those frequencies (each printed exactly)
// under the exact recipe (float32 holds them: the kernel's theta is that bf16 value); the angle,
// cache and math stay the model's.
Spec with_inv_freq_in_its_dtype(Spec spec) {
  const bool bf16 = spec.dtype == peconform::Dtype::bf16;
  const auto base = static_cast<float>(spec.base.to_double());
  const int rot = spec.rotary_dims();
  spec.scaling = {};
  spec.scaling.kind = peconform::PlanKind::custom;
  spec.theta = peconform::ThetaRecipe::exact;
  for (int i = 0; i < rot / 2; ++i) {
    const float inv_freq = 1.0f / std::pow(base, static_cast<float>(2 * i) / static_cast<float>(rot));
    char text[80];
    std::snprintf(text, sizeof text, "%.60g", bf16 ? round_to_bf16(inv_freq) : round_to_fp16(inv_freq));
    spec.scaling.freqs.push_back(peconform::Decimal::parse(text));
  }
  return spec;
}

// A bf16 or fp16 model whose inv_freq buffer was cast with the model (EleutherAI/gpt-neox #1003,
// huggingface/transformers #25681 and #29496, NVIDIA/Megatron-LM #744, Modalities #462: 0.6 rad
// of phase at 512 tokens), served as transformers' recipe for that model
// (precision=fp32-angle,theta=hf,cache=storage,math=storage).
pec_status model_inv_freq_in_its_dtype(const pec_call* call, char* error, size_t size) {
  return guarded(error, size, [&] { return run_with_spec(call, with_inv_freq_in_its_dtype(spec_of(call)), error, size); });
}

// The angles formed under bf16 autocast (huggingface/transformers #29285, fixed by computing
// inv_freq @ position_ids with autocast off), in a bf16 model: both operands of the product cast
// to bf16, the position too. The product itself is exact in float32 here (two 8-bit significands), where
// autocast rounds it to bf16 once more: the bug less one rounding, so what is caught is no more
// than the real bug's error.
pec_status model_angles_under_autocast(const pec_call* call, char* error, size_t size) {
  return guarded(error, size, [&] {
    const std::string text = with_inv_freq_in_its_dtype(spec_of(call)).canonical();
    pec_call changed = *call;
    changed.spec_text = text.c_str();
    return run_with_positions(&changed, error, size,
                              [](std::int64_t p) { return static_cast<std::int64_t>(round_to_bf16(static_cast<double>(p))); });
  });
}

// YaRN's attention factor dropped (vllm #48623: attention_factor and mscale ignored): the
// frequencies are YaRN's, cos and sin are not scaled by 0.1 ln(factor) + 1.
pec_status yarn_attention_factor_dropped(const pec_call* call, char* error, size_t size) {
  return guarded(error, size, [&] {
    Spec spec = spec_of(call);
    if (spec.scaling.kind != peconform::PlanKind::yarn) return run_abi_call(call, error, size);
    spec.scaling.attention = peconform::Decimal(1);
    spec.scaling.mscale.reset();
    spec.scaling.mscale_all_dim.reset();
    return run_with_spec(call, spec, error, size);
  });
}

// llama3's smoothing dropped (transformers #32330 shipped Llama 3.1 unscaled; this is the
// half-done fix): inv_freq / factor where the wavelength passes orig / low, inv_freq
// elsewhere, the medium band between orig / high and orig / low left unscaled instead of
// interpolated, which is transformers' _compute_llama3_parameters without its second torch.where.
// As custom(factors=...) of exact 1s and factors over the default frequencies.
pec_status llama3_smoothing_dropped(const pec_call* call, char* error, size_t size) {
  return guarded(error, size, [&] {
    Spec spec = spec_of(call);
    if (spec.scaling.kind != peconform::PlanKind::llama3) return run_abi_call(call, error, size);
    const peconform::FrequencyPlan llama3 = spec.scaling;
    const double base = spec.base.to_double();
    const int rot = spec.rotary_dims();
    const double low_frequency_wavelength = static_cast<double>(llama3.orig) / llama3.low.to_double();
    spec.scaling = {};
    spec.scaling.kind = peconform::PlanKind::custom;
    for (int i = 0; i < rot / 2; ++i) {
      const double wavelength = 2 * std::numbers::pi / std::pow(base, -2.0 * i / rot);
      spec.scaling.factors.push_back(wavelength > low_frequency_wavelength ? llama3.factor : peconform::Decimal(1));
    }
    return run_with_spec(call, spec, error, size);
  });
}

// llama3's blend written the wrong way round (issue 34): in the band between orig / high and
// orig / low, s inv_freq / factor + (1 - s) inv_freq where transformers and Meta form
// (1 - s) inv_freq / factor + s inv_freq, served as the float32 recipe of either (theta=hf|meta).
// As custom(factors=...) over the default frequencies, each the double quotient to 17 digits
// (the bug moves a smoothed frequency by up to (factor - 1) / factor of itself), under
// theta=exact: every other key, the angle's class and the rounding keys included, as served.
pec_status llama3_blend_reversed(const pec_call* call, char* error, size_t size) {
  return guarded(error, size, [&] {
    Spec spec = spec_of(call);
    if (spec.scaling.kind != peconform::PlanKind::llama3) return run_abi_call(call, error, size);
    const peconform::FrequencyPlan llama3 = spec.scaling;
    const double base = spec.base.to_double(), factor = llama3.factor.to_double();
    const double low = llama3.low.to_double(), high = llama3.high.to_double(), orig = static_cast<double>(llama3.orig);
    const int rot = spec.rotary_dims();
    spec.scaling = {};
    spec.scaling.kind = peconform::PlanKind::custom;
    spec.theta = peconform::ThetaRecipe::exact;
    for (int i = 0; i < rot / 2; ++i) {
      const double wavelength = 2 * std::numbers::pi / std::pow(base, -2.0 * i / rot);
      const double smooth = (orig / wavelength - low) / (high - low);
      const double divisor = wavelength > orig / low   ? factor
                             : wavelength < orig / high ? 1.0
                                                        : 1 / (smooth / factor + (1 - smooth));  // the shares swapped
      char text[40];
      std::snprintf(text, sizeof text, "%.17g", divisor);
      spec.scaling.factors.push_back(peconform::Decimal::parse(text));
    }
    return run_with_spec(call, spec, error, size);
  });
}

// Dynamic NTK keyed on the wrong length (vllm #41236: a constant in place of the current
// length; transformers #25306): the call's token count instead of one past its largest
// position, so a decode step or a KV-cache continuation far past orig is rotated unscaled.
pec_status dynamic_ntk_on_token_count(const pec_call* call, char* error, size_t size) {
  return guarded(error, size, [&] {
    // pec_call.sequence_length is what the plan keys on (the plan's len when it has one, which
    // the patterns below never give); the CPU kernel reads it, not the spec text's len.
    pec_call changed = *call;
    changed.sequence_length = call->outputs[0].shape[1];
    return run_abi_call(&changed, error, size);
  });
}

// GQA: the key operand left unrotated (a kernel that rotates q and copies k; vllm #635's
// wrong key element, Liger #477's head count): the keys come out as they went in.
pec_status gqa_keys_unrotated(const pec_call* call, char* error, size_t size) {
  return guarded(error, size, [&] {
    if (call->operand_count < 2) return run_abi_call(call, error, size);
    pec_call queries = *call;
    queries.operand_count = 1;
    const pec_status status = run_abi_call(&queries, error, size);
    if (status != PEC_OK || call->in_place) return status;
    const DLTensor &in = call->inputs[1], &out = call->outputs[1];
    for_each_element4(in, [&](const std::int64_t* index) {
      std::memcpy(element_at(out, index), element_at(in, index), element_bytes(in));
    });
    return PEC_OK;
  });
}

// A batch stride ignored for batch > 1 (mlx #3498: the grid covered N, not B*N; llama.cpp
// #19296's masked ne[3]): every batch row is read from row 0's input and written to row 0's
// output, with its own positions, one row after the other; rows past the first are never
// written and row 0 ends with the last row's positions. Declared for out-of-place calls (in
// place, an unwritten row holds its input and fails as a wrong value instead).
pec_status batch_stride_ignored(const pec_call* call, char* error, size_t size) {
  return guarded(error, size, [&] {
    for (std::int64_t b = 0; b < call->outputs[0].shape[0]; ++b) {
      std::vector<DLTensor> inputs, outputs;
      std::vector<std::unique_ptr<OwnedTensor>> owned;
      for (std::int32_t o = 0; o < call->operand_count; ++o) {
        owned.push_back(std::make_unique<OwnedTensor>(call->inputs[o]));
        owned.back()->shape[0] = 1;
        inputs.push_back(owned.back()->tensor);
        owned.push_back(std::make_unique<OwnedTensor>(call->outputs[o]));
        owned.back()->shape[0] = 1;
        outputs.push_back(owned.back()->tensor);
      }
      OwnedTensor ids(*call->ids);  // row b's ids: the positions are read right
      ids.shape[1] = 1;
      ids.tensor.byte_offset += static_cast<std::uint64_t>(b * ids.strides[1]) * element_bytes(ids.tensor);
      pec_call row = *call;
      row.inputs = inputs.data();
      row.outputs = outputs.data();
      row.ids = &ids.tensor;
      const pec_status status = run_abi_call(&row, error, size);
      if (status != PEC_OK) return status;
    }
    return PEC_OK;
  });
}

// The largest offset (in elements) of any element of `tensor` from its first: the last element.
std::int64_t last_element_offset(const DLTensor& tensor) {
  std::int64_t offset = 0;
  for (int a = 0; a < tensor.ndim; ++a) offset += (tensor.shape[a] - 1) * stride_of(tensor, a);
  return offset;
}

// A write past the end (ggml's odd-d pass-through `dst[i0+1] = src[i0+1]`, anchor-suites #33;
// Liger #803's illegal access): after the call, the last element's value is written once more,
// one element past it.
pec_status write_past_end(const pec_call* call, char* error, size_t size) {
  return guarded(error, size, [&] {
    const pec_status status = run_abi_call(call, error, size);
    if (status != PEC_OK) return status;
    const DLTensor& out = call->outputs[0];
    const std::size_t bytes = element_bytes(out);
    char* last = base_of(out) + last_element_offset(out) * static_cast<std::int64_t>(bytes);
    std::memmove(last + bytes, last, bytes);
    return PEC_OK;
  });
}

// The last element unwritten (ggml #1324, llama.cpp #15917: an odd-dim timestep embedding
// left element 2*half uninitialised): the table's last element keeps what the buffer held
// before the call (peconform's sentinel).
pec_status last_element_unwritten(const pec_call* call, char* error, size_t size) {
  return guarded(error, size, [&] {
    const DLTensor& out = call->outputs[0];
    const std::size_t bytes = element_bytes(out);
    char* last = base_of(out) + last_element_offset(out) * static_cast<std::int64_t>(bytes);
    char before[8];
    std::memcpy(before, last, bytes);
    const pec_status status = run_abi_call(call, error, size);
    std::memcpy(last, before, bytes);
    return status;
  });
}

// A write into the input (a kernel that rotates its input in place, then copies it out, or
// whose out-of-place path aliases the two): an out-of-place call leaves its result in the input
// too.
pec_status input_written(const pec_call* call, char* error, size_t size) {
  return guarded(error, size, [&] {
    const pec_status status = run_abi_call(call, error, size);
    if (status != PEC_OK || call->in_place) return status;
    const DLTensor &in = call->inputs[0], &out = call->outputs[0];
    for_each_element4(in, [&](const std::int64_t* index) {
      std::memcpy(element_at(in, index), element_at(out, index), element_bytes(in));
    });
    return PEC_OK;
  });
}

// A crash for one shape (flash-attention #1195: interleaved rotary with head dim 72, an
// illegal memory access; vllm #14667's CPU segfault): the kernel crashes when the head dim is
// not a power of two.
pec_status crash_on_one_shape(const pec_call* call, char* error, size_t size) {
  const std::int64_t d = call->outputs[0].shape[3];
  if (!std::has_single_bit(static_cast<std::uint64_t>(d))) std::raise(SIGSEGV);
  return run_abi_call(call, error, size);
}

// A hang for one shape (a spin on a barrier some threads never reach; llama.cpp #18306's
// Vulkan workgroup limit): the kernel never returns from a GQA call, one whose key operand has
// fewer heads than its queries.
pec_status hang_on_one_shape(const pec_call* call, char* error, size_t size) {
  if (call->operand_count == 2 && call->outputs[1].shape[2] < call->outputs[0].shape[2])
    for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
  return run_abi_call(call, error, size);
}

// mRoPE's interleaved sections rotated as blocked (alibaba/MNN #4133, vllm-gaudi #1437,
// vllm #49290's hardcoded layout): Qwen3-VL's section_mode=interleaved served with Qwen2-VL's
// blocked sections; alike on text (t = h = w), wrong on images.
pec_status mrope_interleaved_as_blocked(const pec_call* call, char* error, size_t size) {
  return guarded(error, size, [&] {
    Spec spec = spec_of(call);
    spec.section_mode = peconform::SectionMode::blocked;
    return run_with_spec(call, spec, error, size);
  });
}

// T5 buckets with the sign of the distance reversed (memory - context read as context -
// memory; the off-by-direction class of vllm #945): the bucket of i - j for query i and key j.
// Our T5 kernel run with queries and keys swapped, then transposed.
pec_status t5_distance_sign_reversed(const pec_call* call, char* error, size_t size) {
  return guarded(error, size, [&] {
    const DLTensor& out = call->outputs[0];
    std::vector<std::int32_t> swapped(static_cast<std::size_t>(call->rows * call->keys));
    std::array<std::int64_t, 2> shape{call->keys, call->rows}, strides{call->rows, 1};
    DLTensor scratch = out;
    scratch.data = swapped.data();
    scratch.byte_offset = 0;
    scratch.shape = shape.data();
    scratch.strides = strides.data();
    pec_call reversed = *call;
    reversed.first = call->key_first;
    reversed.rows = call->keys;
    reversed.key_first = call->first;
    reversed.keys = call->rows;
    reversed.outputs = &scratch;
    const pec_status status = run_abi_call(&reversed, error, size);
    if (status != PEC_OK) return status;
    for (std::int64_t q = 0; q < call->rows; ++q)
      for (std::int64_t k = 0; k < call->keys; ++k) {
        const std::int64_t index[2] = {q, k};
        std::memcpy(element_at(out, index), &swapped[static_cast<std::size_t>(k * call->rows + q)], sizeof(std::int32_t));
      }
    return PEC_OK;
  });
}

// ALiBi of its own: the bias -m_h |i - j| (causal: -m_h (i - j), -inf past the query; key:
// +m_h j; last-key: -m_h (J - j), J the call's last key) in double, rounded once to the dtype,
// with the slopes given.
pec_status alibi_with_slopes(const pec_call* call, const std::vector<double>& slopes, char* error, size_t size) {
  const Spec spec = spec_of(call);
  const DLTensor& out = call->outputs[0];
  if (out.ndim != 3 || out.shape[0] != static_cast<std::int64_t>(slopes.size()))
    return explain(error, size, "the bias is not a [heads, queries, keys] tensor", PEC_REFUSED);
  const bool causal = spec.mode == peconform::AlibiMode::causal;
  for (std::int64_t h = 0; h < out.shape[0]; ++h)
    for (std::int64_t q = 0; q < call->rows; ++q)
      for (std::int64_t k = 0; k < call->keys; ++k) {
        const std::int64_t key = call->key_first + k;
        const std::int64_t distance = spec.mode == peconform::AlibiMode::key        ? -key
                                      : spec.mode == peconform::AlibiMode::last_key ? call->key_first + call->keys - 1 - key
                                                                                    : call->first + q - key;
        const std::int64_t index[3] = {h, q, k};
        const double slope = slopes[static_cast<std::size_t>(h)];
        const bool signed_distance = spec.mode != peconform::AlibiMode::symmetric;
        const double bias = causal && distance < 0 ? -INFINITY
                                                   : -(slope * static_cast<double>(signed_distance ? distance : std::llabs(distance)));
        store(out, element_at(out, index), bias);
      }
  return PEC_OK;
}

std::vector<double> geometric_slopes(int heads) {
  std::vector<double> slopes;
  for (int h = 1; h <= heads; ++h) slopes.push_back(std::exp2(-8.0 * h / heads));
  return slopes;
}

// ALiBi slopes for a non-power-of-two head count computed as 2^(-8i/n) (mlx #3071, #343;
// TensorRT-LLM #1611): the power-of-two formula applied to every head count, where the paper
// (and Bloom, MPT) take the closest power of two c and interleave 2^(-4(2j-1)/c) for the rest.
pec_status alibi_slopes_geometric(const pec_call* call, char* error, size_t size) {
  return guarded(error, size, [&] { return alibi_with_slopes(call, geometric_slopes(spec_of(call).heads), error, size); });
}

// Its twin: the same kernel with the published slopes.
pec_status alibi_slopes_published(const pec_call* call, char* error, size_t size) {
  return guarded(error, size, [&] {
    const int heads = spec_of(call).heads;
    const int closest = static_cast<int>(std::bit_floor(static_cast<unsigned>(heads)));
    std::vector<double> slopes = geometric_slopes(closest);
    const std::vector<double> doubled = geometric_slopes(2 * closest);
    for (int i = 0; i < heads - closest; ++i) slopes.push_back(doubled[static_cast<std::size_t>(2 * i)]);
    return alibi_with_slopes(call, slopes, error, size);
  });
}

// ---------------------------------------------------------------------------------------------
// The declaration: each mutant, then its twin with the same patterns and calls.

// The rope keys the narrowed patterns below leave to the campaign; each names the rest it
// leaves free (`*`) or fixes, so that the campaign draws the cases where its bug shows.
#define ROPE_FREE "d=*,base=*,rot=*,sign=*,amp=*"
// transformers' rotation in a 16-bit model (docs/precision.md, `cache` and `math`).
#define MODEL_RECIPE "precision=fp32-angle,theta=hf,cache=storage,math=storage"

constexpr std::uint32_t kEvery = PEC_TAKES_EVERY_CALL;
constexpr std::uint32_t kOutOfPlace = PEC_TAKES_EVERY_CALL & ~static_cast<std::uint32_t>(PEC_TAKES_IN_PLACE);
// Calls up to 2^32 elements: the ci profile's long calls (2^25) are drawn.
constexpr std::int64_t kLargest = std::int64_t{1} << 32;

#define MUTANT(name, patterns, takes, mutant, twin)                   \
  {name, patterns, kDLCPU, takes, kLargest, mutant},                  \
  {name ".correct", patterns, kDLCPU, takes, kLargest, twin}

const pec_kernel kKernels[] = {
    // Layout, sign, placement and frequencies.
    MUTANT("gptj-pairing-on-neox", "rope(layout=half,rot_at=*,scaling=*,dtype=*,precision=*,theta=*," ROPE_FREE ")", kEvery,
           gptj_pairing_on_neox, run_abi_call),
    MUTANT("rotation-sign-flipped", "rope(*)", kEvery, rotation_sign_flipped, run_abi_call),
    MUTANT("rot-at-last-as-first", "rope(layout=*,rot_at=last,scaling=*,dtype=*,precision=*,theta=*," ROPE_FREE ")",
           kEvery, rot_at_last_as_first, run_abi_call),
    MUTANT("theta-over-d-for-partial", "rope(layout=*,rot_at=*,dtype=*,precision=exact-angle," ROPE_FREE ")", kEvery,
           theta_over_d_for_partial, run_abi_call),
    MUTANT("pass-through-via-bf16", "rope(layout=*,rot_at=*,scaling=*,dtype=fp64|fp32,precision=*,theta=*," ROPE_FREE ")",
           kEvery, pass_through_via_bf16, run_abi_call),
    // Positions.
    MUTANT("position-off-by-one", "rope(*)", kEvery, position_off_by_one, run_abi_call),
    MUTANT("offset-ignored", "rope(*)", kEvery, offset_ignored, run_abi_call),
    MUTANT("int64-ids-read-as-int32", "rope(*)", kEvery, int64_ids_read_as_int32, run_abi_call),
    MUTANT("positions-via-float32", "rope(layout=*,rot_at=*,scaling=*,dtype=*,precision=exact-angle," ROPE_FREE ")", kEvery,
           positions_via_float32, run_abi_call),
    MUTANT("stops-after-65535-tokens", "rope(*)", kEvery, stops_after_65535_tokens, run_abi_call),
    // Precision classes claimed and not kept.
    MUTANT("fp32-angle-claimed-exact", "rope(layout=*,rot_at=*,scaling=*,dtype=*,precision=exact-angle," ROPE_FREE ")",
           kEvery, fp32_angle_claimed_exact, run_abi_call),
    MUTANT("bf16-cache-claimed-fp32-angle",
           "rope(layout=*,rot_at=*,scaling=*,dtype=bf16,precision=fp32-angle,theta=*," ROPE_FREE ")", kEvery,
           bf16_cache_claimed_fp32_angle, run_abi_call),
    MUTANT("inv-freq-in-bf16", "rope(layout=*,rot_at=*,dtype=*,precision=exact-angle|fp32-angle," ROPE_FREE ")", kEvery,
           inv_freq_in_bf16, run_abi_call),
    // A 16-bit model's rotation as transformers computes it (issue 34), its twin our kernel under
    // the same recipe.
    MUTANT("model-inv-freq-in-its-dtype", "rope(layout=*,rot_at=*,dtype=bf16|fp16," MODEL_RECIPE "," ROPE_FREE ")", kEvery,
           model_inv_freq_in_its_dtype, run_abi_call),
    MUTANT("model-angles-under-autocast", "rope(layout=*,rot_at=*,dtype=bf16," MODEL_RECIPE "," ROPE_FREE ")", kEvery,
           model_angles_under_autocast, run_abi_call),
    // Frequency plans.
    MUTANT("yarn-attention-factor-dropped",
           "rope(layout=*,rot_at=*,dtype=*,precision=*,theta=*,cache=*,math=*," ROPE_FREE ","
           "scaling=yarn(factor=4,orig=4096)|yarn(factor=8,orig=8192)|yarn(factor=16,orig=4096,beta_fast=32,beta_slow=2))",
           kEvery, yarn_attention_factor_dropped, run_abi_call),
    MUTANT("llama3-smoothing-dropped",
           "rope(layout=*,rot_at=*,dtype=*,precision=*," ROPE_FREE ","
           "scaling=llama3(factor=8,orig=8192,low=1,high=4)|llama3(factor=32,orig=8192,low=1,high=4))",
           kEvery, llama3_smoothing_dropped, run_abi_call),
    MUTANT("llama3-blend-reversed",
           "rope(layout=*,rot_at=*,dtype=*,precision=fp32-angle,theta=hf|meta,cache=*,math=*," ROPE_FREE ","
           "scaling=llama3(factor=8,orig=8192,low=1,high=4)|llama3(factor=32,orig=8192,low=1,high=4))",
           kEvery, llama3_blend_reversed, run_abi_call),
    MUTANT("dynamic-ntk-on-token-count",
           "rope(layout=*,rot_at=*,dtype=*,precision=*," ROPE_FREE ","
           "scaling=dynamic(factor=2,orig=2048)|dynamic(factor=4,orig=4096))",
           kEvery, dynamic_ntk_on_token_count, run_abi_call),
    MUTANT("mrope-interleaved-as-blocked",
           "mrope(layout=*,sections=*,section_mode=interleaved,rot_at=*,scaling=*,dtype=*,precision=*,theta=*," ROPE_FREE ")",
           kEvery, mrope_interleaved_as_blocked, run_abi_call),
    // Relative biases.
    MUTANT("alibi-slopes-2pow-8i-over-n", "alibi(*)", kEvery, alibi_slopes_geometric, alibi_slopes_published),
    MUTANT("t5-distance-sign-reversed", "t5(*)", kEvery, t5_distance_sign_reversed, run_abi_call),
    // Shapes and strides.
    MUTANT("batch-stride-ignored", "rope(*)", kOutOfPlace, batch_stride_ignored, run_abi_call),
    MUTANT("gqa-keys-unrotated", "rope(*)", kEvery, gqa_keys_unrotated, run_abi_call),
    // Memory.
    MUTANT("write-past-end", "rope(*)", kEvery, write_past_end, run_abi_call),
    MUTANT("last-element-unwritten", "sinusoidal(*)", kEvery, last_element_unwritten, run_abi_call),
    MUTANT("input-written", "rope(*)", kEvery, input_written, run_abi_call),
    // Crashes and hangs (run under --isolate).
    MUTANT("crash-on-one-shape", "rope(layout=interleaved,rot_at=*,scaling=*,dtype=*,precision=*,theta=*," ROPE_FREE ")", kEvery,
           crash_on_one_shape, run_abi_call),
    MUTANT("hang-on-one-shape", "rope(*)", kEvery, hang_on_one_shape, run_abi_call),
};

#undef MUTANT
#undef ROPE_FREE
#undef MODEL_RECIPE

const pec_plugin kPlugin = {PECONFORM_ABI_VERSION, "mutants", static_cast<std::int32_t>(std::size(kKernels)), kKernels};

}  // namespace

extern "C" __attribute__((visibility("default"))) const pec_plugin* peconform_plugin_v1(void) { return &kPlugin; }
