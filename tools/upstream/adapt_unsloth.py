"""Unsloth's Triton RoPE (unsloth/kernels/rope_embedding.py `_rope_embedding_QK`), called through
`fast_rope_embedding(Q, K, cos, sin, rope_embedding_indices)` down both of its paths, under
Triton's interpreter on the CPU (triton_rows.py: as shipped and GPU-faithful):

- without indices (`Fast_RoPE_Embedding_QK_Positions`, what Unsloth's Llama attention runs when
  training): token s of every batch row takes row s of the cos/sin table, Q is converted to sin's
  dtype first, and Q in transformers' layout is rotated in place;
- with `rope_embedding_indices` (`Fast_RoPE_Embedding_QK`, packed sequences): each token takes
  the table row its index names, Q is not converted, and Q in that layout is written to a fresh
  tensor.

Q and K are handed as the model has them: transformers' [batch, heads, seq, d] views of fresh
contiguous [batch, seq, heads, d] projections copied from x (triton_rows.projected). The callable
returns the Q that fast_rope_embedding returns, out of place to peconform whichever path wrote
where.

cos and sin are transformers' (hf_cos_sin.py), in float32 or, as a bf16 or fp16 model hands them,
in the storage dtype (the column's cache key). The first path's table is one row per token of a
batch row: where the batch rows' positions differ, each batch row is its own call. The second
path's table holds the call's distinct positions and the indices point into it. The kernel forms
`tl.fma(x0, c, -(x1 * s))` and `tl.fma(x0, s, x1 * c)` in Q's dtype widened by cos's: with float32
tables in float32 (math=compute), with tables in the storage dtype in that dtype, the product and
the fma each rounded to it (within math=storage, which charges each product and the sum).

The pinned wheel's file is loaded by itself (pinned_sources.py), since `import unsloth` patches
transformers and probes the GPU. What it imports is supplied: `..device_type` as one CUDA device
(DEVICE_COUNT 1: no multi-device stream drains), `.utils` with Unsloth's own `long_indexing`
(unsloth/kernels/indexing.py, loaded from the wheel too), `triton.next_power_of_2` and, for one
device, a null device context (what utils.py binds then); `.rms_layernorm` with `_eager_kernel`
the identity (as there) and `_TRACEABLE` False, which only keeps the torch.library ops that
torch.compile reaches from being registered. On a CPU tensor the eviction-hint probe asks for the
current CUDA device; the loaded module's `_eviction_hints_ok` is given Unsloth's own answer for a
device that is not CUDA (hints allowed; the interpreter ignores them).
"""
import contextlib

import torch

import pinned_sources
from hf_cos_sin import HfCosSin
from triton_rows import contrast, dtype_rows, projected, recipe_columns

LIBRARY = "unsloth"
VERSION = "2026.10.9"
WHEEL_SHA256 = "feb40b99bc4f8c543a36cbd0fe6e1410d6e4ac16bd4d0c731f607adce3d63bb0"
SOURCE = "unsloth/kernels/rope_embedding.py: _rope_embedding_QK, fast_rope_embedding"
# Per token, a program per group of up to 16 query heads (at d = 128) and one per group of key
# heads: up to 8 tokens and 16384 elements a case.
MAX_TOKENS = 8
MAX_ELEMENTS = 16384


def rope_embedding():
    """unsloth.kernels.rope_embedding from the pinned wheel (loaded once; it imports triton)."""
    import sys
    if "unsloth.kernels.rope_embedding" in sys.modules:
        return sys.modules["unsloth.kernels.rope_embedding"]
    import triton
    wheel = pinned_sources.archive("unsloth", VERSION, WHEEL_SHA256)
    pinned_sources.provide("unsloth")
    pinned_sources.provide("unsloth.device_type", DEVICE_COUNT=1, DEVICE_TYPE_TORCH="cuda")
    pinned_sources.provide("unsloth.kernels")
    indexing = pinned_sources.load("unsloth.kernels.indexing",
                                   pinned_sources.extracted(wheel, "unsloth/kernels/indexing.py"))
    pinned_sources.provide("unsloth.kernels.utils", long_indexing=indexing.long_indexing,
                           next_power_of_2=triton.next_power_of_2,
                           torch_gpu_device=lambda device: contextlib.nullcontext(),
                           torch_device_stream=torch.cuda.current_stream)
    # _traced_kernel and _tag_compile_cache are imported by name and used only when _TRACEABLE.
    pinned_sources.provide("unsloth.kernels.rms_layernorm", _TRACEABLE=False, _BF16_TRACEABLE=False,
                           _eager_kernel=lambda kernel: kernel, _traced_kernel=None, _tag_compile_cache=None)
    module = pinned_sources.load("unsloth.kernels.rope_embedding",
                                 pinned_sources.extracted(wheel, "unsloth/kernels/rope_embedding.py"))
    probe = module._eviction_hints_ok
    module._eviction_hints_ok = lambda device: (module._eviction_hints_ok_at(device.type, device.index)
                                                if device.type != "cuda" else probe(device))
    return module


class UnslothRope:
    """fn(x, positions, spec) for peconform.check(): x [batch, seq, heads, d], positions [batch, seq]
    (or [seq] for every batch row). `indices`: the rope_embedding_indices path, else the positions
    path."""

    def __init__(self, tables, indices):
        self.tables, self.indices = tables, indices
        self.__qualname__ = "unsloth.kernels.rope_embedding.fast_rope_embedding" + (
            "(rope_embedding_indices=...)" if indices else "")

    def __call__(self, x, positions, spec):
        fast_rope_embedding = rope_embedding().fast_rope_embedding
        batch, seq = x.shape[0], x.shape[1]
        position_ids = torch.as_tensor(positions).to(torch.long).reshape(-1, seq).expand(batch, seq)
        dtype = x.dtype if spec.cache == "storage" else torch.float32
        if self.indices:
            distinct, indices = torch.unique(position_ids, return_inverse=True)
            cos, sin = self.tables(distinct[None, :], dtype)
            q, _ = fast_rope_embedding(projected(x), projected(x), cos[0], sin[0], indices)
            return q.transpose(1, 2)
        # One table for every batch row where their positions agree, else a call per batch row.
        shared = bool((position_ids == position_ids[:1]).all())
        parts = []
        for rows in ([slice(0, batch)] if shared else [slice(b, b + 1) for b in range(batch)]):
            cos, sin = self.tables(position_ids[rows][:1], dtype)
            q, _ = fast_rope_embedding(projected(x[rows]), projected(x[rows]), cos[0], sin[0])
            parts.append(q.transpose(1, 2))
        return torch.cat(parts)


POSITIONS_PATH = "positions"
INDICES_PATH = "indices"
FLOAT32_MEANING = ("cos and sin in float32 as transformers' rotary module forms them (theta=hf, the model's plan), "
                   "the rotation in float32 by the kernel's fma forms and one rounding to the storage dtype at the store")
STORAGE_MEANING = ("cos and sin cast to the storage dtype as transformers hands them to a bf16 or fp16 model "
                   "(cache=storage), the rotation's product and fma each rounded to that dtype (math=storage)")


FLOAT32_TABLES = recipe_columns("float32 cos/sin", "precision=fp32-angle,theta=hf", FLOAT32_MEANING)
STORAGE_TABLES = recipe_columns("storage cos/sin", "precision=fp32-angle,theta=hf,cache=storage,math=storage",
                                STORAGE_MEANING)


def columns(dtype):
    return FLOAT32_TABLES + (() if dtype == "fp32" else STORAGE_TABLES) + (contrast(),)


def configuration(key, name, shape, path):
    tables = HfCosSin(shape)
    call = "fast_rope_embedding" if path == POSITIONS_PATH else "fast_rope_embedding(rope_embedding_indices=...)"
    return dtype_rows(LIBRARY, "rope", key, f"{call}, {name}", tables.spec, SOURCE, columns,
                      lambda: UnslothRope(tables, path == INDICES_PATH), MAX_TOKENS, MAX_ELEMENTS)


def versions():
    import importlib.metadata
    return {"unsloth": f"{VERSION} (unsloth/kernels/rope_embedding.py from its wheel)",
            **{name: importlib.metadata.version(name) for name in ("triton", "torch", "transformers")}}


def rows():
    return (configuration("positions/llama-3.1-8b", "Llama 3.1 8B (llama3)", "llama-3.1-8b-v5", POSITIONS_PATH)
            + configuration("indices/qwen3-8b", "Qwen3 8B", "qwen3-8b-v5", INDICES_PATH))
