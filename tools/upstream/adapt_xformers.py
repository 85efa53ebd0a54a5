"""xformers' Triton RoPE for inference (xformers/ops/rope_padded.py `rope_padded`, its kernel
xformers/ops/_triton/rope_padded_kernels.py `_rope_padded_kernel`), under Triton's interpreter on
the CPU (triton_rows.py: as shipped and GPU-faithful), in its two uses: rotating the queries into
`out_q` (positions through `seqpos`, one per query), and rotating the keys into the padded key
cache of a `BlockDiagonalCausalWithOffsetPaddedKeysMask` decode batch (positions through
`first_seqpos`, each sequence's first cached position, plus the cache slot). Both pairings
(`adjacents`: Meta's interleaved pairs, or the halves).

The kernel forms its own angles: θ_k = pow(theta, 2k / -d) in float32 (`powers / (-dim)`, one
division, then libdevice's pow), the angle seq_pos * θ_k / linear_scale in float32 (the position
an integer converted once; linear_scale 1 divides exactly), sin and cos of it in float32, and the
rotation in float32, rounded once to x's dtype at the store. Held to theta=hf: its bound
(precision/error_model.hpp, theta_recipe_error) charges the exponent's division, the base's
rounding to float32, pow's one ulp and a reciprocal; xformers' θ takes each of those roundings
but the reciprocal, as x-transformers' ScaledSinusoidalEmbedding does (powf(b, -fl(m/D)), held by
the same bound for tables). That holds for a pow within one ulp.

Triton's interpreter has no libdevice: `libdevice.pow` there is the empty declaration that
compiled Triton resolves, and returns None (triton issue 8825), so as shipped the kernel stops at
its first angle. The rows run it with the kernel module's `pow` (bound at import by xformers'
`libdevice_find("pow")`) replaced, under the interpreter only, by `float32_pow`: the base and the
exponent in float32 and NumPy's float32 power (the C library's powf, within one ulp). Compiled
Triton keeps libdevice's.

The four files are loaded from the pinned wheel (pinned_sources.py), since `import xformers`
loads its compiled extension. The packages they import from are supplied as empty ones, with
`xformers._is_triton_available` answering True (xformers' own answer where
XFORMERS_ENABLE_TRITON=1); attn_bias.py and triton/importing.py import nothing but torch and
the standard library. `rope_padded` enters `torch.cuda.device(xq.device)`, which raises for a CPU
tensor: the call runs with that context a null one (triton_rows.no_cuda_device_on_cpu).
"""
import importlib.metadata
import sys

import numpy as np
import peconform
import torch

import pinned_sources
from hf_cos_sin import CORPUS
from triton_rows import contrast, dtype_rows, no_cuda_device_on_cpu, recipe_columns

LIBRARY = "xformers"
VERSION = "0.0.35"
WHEEL_SHA256 = "ccc73c7db9890224ab05f5fb60e2034f9e6c8672a10be0cf00e95cbbae3eda7c"
SOURCE = "xformers/ops/rope_padded.py: rope_padded (xformers/ops/_triton/rope_padded_kernels.py: _rope_padded_kernel)"
KERNELS = "xformers.ops._triton.rope_padded_kernels"
# One program per token and head, of the queries, keys and values alike (about 30 ms each here):
# up to 4 tokens and 1024 elements a case (2048 took up to 119 s per row of 20 cases a cell).
MAX_TOKENS = 4
MAX_ELEMENTS = 1024
# Key cache slots per sequence of the decode batch (kv_padding).
CACHE_SLOTS = 3


def float32_pow(base, exponent):
    """libdevice.pow(base, exponent) as the interpreter can run it: both operands in float32 (the
    base may be a Python float, as the interpreter hands a float argument) and powf."""
    import triton.language as tl
    from triton.runtime.interpreter import TensorHandle

    def value(operand):
        return operand.handle.data if isinstance(operand, tl.tensor) else operand

    data = np.power(np.float32(value(base)), np.asarray(value(exponent), dtype=np.float32))
    shape = exponent if isinstance(exponent, tl.tensor) else base
    return tl.tensor(TensorHandle(data, tl.float32), shape.type.with_element_ty(tl.float32))


def modules():
    """(rope_padded, BlockDiagonalCausalWithOffsetPaddedKeysMask) from the pinned wheel, loaded
    once; the kernel module's pow replaced by float32_pow where the kernel is interpreted."""
    if "xformers.ops.rope_padded" not in sys.modules:
        import triton.runtime.interpreter
        wheel = pinned_sources.archive("xformers", VERSION, WHEEL_SHA256)
        for package in ("xformers.ops", "xformers.ops._triton", "xformers.ops.fmha", "xformers.triton"):
            pinned_sources.provide(package)
        pinned_sources.provide("xformers", _is_triton_available=lambda: True)
        for name in ("xformers.ops.fmha.attn_bias", "xformers.triton.importing", KERNELS, "xformers.ops.rope_padded"):
            module = pinned_sources.load(name, pinned_sources.extracted(wheel, name.replace(".", "/") + ".py"))
            if name == KERNELS and isinstance(module._rope_padded_kernel, triton.runtime.interpreter.InterpretedFunction):
                module.pow = float32_pow
    return (sys.modules["xformers.ops.rope_padded"].rope_padded,
            sys.modules["xformers.ops.fmha.attn_bias"].BlockDiagonalCausalWithOffsetPaddedKeysMask)


class XformersRope:
    """fn(x, positions, spec) for peconform.check(): x [batch, seq, heads, d], positions [batch, seq]
    (or [seq] for every batch row). target "queries": x is xq, read back from out_q; "keys": x is
    xk of a decode batch (each token a sequence of its own), read back from the key cache."""

    def __init__(self, theta, adjacents, target):
        self.theta, self.adjacents, self.target = theta, adjacents, target
        self.__qualname__ = f"xformers.ops.rope_padded(adjacents={adjacents}) -> {'out_q' if target == 'queries' else 'cache_k'}"

    def __call__(self, x, positions, spec):
        rope_padded, mask = modules()
        batch, seq, heads, d = x.shape
        tokens = batch * seq
        x = x.contiguous()  # each head contiguous, as rope_padded requires (peconform varies x's memory order)
        flat = torch.as_tensor(positions).to(torch.long).reshape(-1, seq).expand(batch, seq).reshape(tokens)
        one_head = x.new_zeros(1, tokens, 1, d)
        with no_cuda_device_on_cpu(x), torch.no_grad():
            if self.target == "queries":
                # One key and value head (the least the kernel launches for), a cache slot per token.
                bias = mask.from_seqlens(q_seqlen=[seq] * batch, kv_padding=seq, kv_seqlen=[seq] * batch, device=x.device)
                cache = x.new_zeros(1, tokens, 1, d)
                out_q = rope_padded(x.reshape(1, tokens, heads, d), one_head, one_head, cache, cache.clone(), bias,
                                    theta=self.theta, seqpos=flat.to(torch.int32), adjacents=self.adjacents)
                return out_q.reshape(batch, seq, heads, d)
            # A decode step over `tokens` sequences: sequence t holds `filled[t]` keys, its new one in the
            # last, and first_seqpos[t] = p_t - (filled[t] - 1) so that the new key's position is p_t.
            filled = torch.minimum(torch.arange(tokens) % CACHE_SLOTS, flat) + 1
            bias = mask.from_seqlens(q_seqlen=[1] * tokens, kv_padding=CACHE_SLOTS, kv_seqlen=filled.tolist(),
                                     device=x.device)
            cache_k = x.new_zeros(1, tokens * CACHE_SLOTS, heads, d)
            rope_padded(one_head, x.reshape(1, tokens, heads, d), x.new_zeros(1, tokens, heads, d), cache_k,
                        cache_k.clone(), bias, theta=self.theta, first_seqpos=(flat - filled + 1).to(torch.int32),
                        adjacents=self.adjacents)
            slots = torch.arange(tokens) * CACHE_SLOTS + filled - 1
            return cache_k[0, slots].reshape(batch, seq, heads, d)


COLUMNS = recipe_columns(
    "fp32-angle (theta=hf bound)", "precision=fp32-angle,theta=hf",
    "xformers' own recipe: θ = pow(theta, 2k/-d) in float32 (libdevice's pow: under the interpreter float32_pow, "
    "powf), the angle, sin and cos and the rotation in float32, one rounding to x's dtype at the store; held to "
    "theta=hf's bound, whose roundings include each of xformers' (xformers has no reciprocal)")


def configuration(key, name, shape, adjacents, target):
    spec = peconform.Spec.from_hf_config(str(CORPUS / shape / "config.json"))
    layout = "interleaved" if adjacents else "half"
    text = spec.canonical.replace("layout=half", f"layout={layout}")
    theta = float(spec.base)
    call = "rope_padded(adjacents=True)" if adjacents else "rope_padded"
    where = "out_q, seqpos per query" if target == "queries" else "cache_k of a padded decode batch, first_seqpos"
    return dtype_rows(LIBRARY, "rope", key, f"{call} -> {where}, {name} (libdevice.pow by float32_pow)", text, SOURCE,
                      lambda dtype: COLUMNS + (contrast(),), lambda: XformersRope(theta, adjacents, target), MAX_TOKENS,
                      MAX_ELEMENTS)


def versions():
    return {"xformers": f"{VERSION} (rope_padded.py and its kernel from its wheel)",
            **{name: importlib.metadata.version(name) for name in ("triton", "torch")}}


def rows():
    return (configuration("queries-interleaved/llama-3-8b", "Llama 3 8B in Meta's interleaved pairs", "llama-3-8b",
                          True, "queries")
            + configuration("keys-half/llama-2-7b", "Llama 2 7B in halves", "llama-2-7b", False, "keys"))
