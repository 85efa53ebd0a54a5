"""Liger-Kernel's Triton RoPE (liger_kernel/ops/rope.py `_triton_rope`, launched by
`LigerRopeFunction`), called through `liger_rotary_pos_emb` (liger_kernel/transformers/rope.py),
the function Liger's patches put in place of a Hugging Face model's apply_rotary_pos_emb, under
Triton's interpreter on the CPU (triton_rows.py: as shipped and GPU-faithful).

The call is the model's: q is transformers' [batch, heads, seq, d] view of the [batch, seq,
heads, d] projection, cos and sin [batch, seq, rot] as the model's own rotary module hands them
(hf_cos_sin.py), in float32 or, as a bf16 or fp16 model gets them, in the storage dtype (the
column's cache key says which). Liger's dispatcher picks its `nvidia-triton` implementation here
(test_liger_kernel.py holds it to that). The kernel converts q to cos's dtype and rotates there:
with float32 tables in float32, rounding once to the storage dtype at the store (math=compute);
with tables in the storage dtype, each product and the sum in that dtype (math=storage). A
partial rotary model's tables are rot wide, and Liger rotates that many leading dims.

The callable hands Liger q and k as the model views its projections (triton_rows.projected:
copies of x, contiguous [batch, seq, heads, d], transposed). Liger writes its result into that
storage (rope_forward transposes q back, and `.contiguous()` then copies nothing) and returns q
as a view of it: the callable returns that, out of place to peconform. The key, rotated in the
same launch, is a second copy of x.
"""
import importlib.metadata

import torch

from hf_cos_sin import HfCosSin
from triton_rows import contrast, dtype_rows, projected, recipe_columns

LIBRARY = "liger-kernel"
SOURCE = "liger_kernel/ops/rope.py: _triton_rope, LigerRopeFunction (liger_kernel/transformers/rope.py: liger_rotary_pos_emb)"
# One program per token, each over all its heads: up to 12 tokens and 16384 elements a case keep
# 20 cases within seconds per cell.
MAX_TOKENS = 12
MAX_ELEMENTS = 16384

FLOAT32_TABLES = recipe_columns(
    "float32 cos/sin", "precision=fp32-angle,theta=hf",
    "cos and sin in float32 as transformers' rotary module forms them (theta=hf, the model's plan), q converted to "
    "float32, the rotation in float32 and one rounding to the storage dtype at the store")
STORAGE_TABLES = recipe_columns(
    "storage cos/sin", "precision=fp32-angle,theta=hf,cache=storage,math=storage",
    "cos and sin cast to the storage dtype as transformers hands them to a bf16 or fp16 model (cache=storage), "
    "and the rotation in that dtype, each product and the sum rounded to it (math=storage)")


def columns(dtype):
    return FLOAT32_TABLES + (() if dtype == "fp32" else STORAGE_TABLES) + (contrast(),)


class LigerRope:
    """fn(x, positions, spec) for peconform.check(): x [batch, seq, heads, d], positions [batch, seq]
    (or [seq] for every batch row)."""

    def __init__(self, tables):
        self.tables = tables
        self.__qualname__ = "liger_kernel.transformers.rope.liger_rotary_pos_emb"

    def __call__(self, x, positions, spec):
        from liger_kernel.transformers.rope import liger_rotary_pos_emb
        batch, seq = x.shape[0], x.shape[1]
        position_ids = torch.as_tensor(positions).to(torch.long).reshape(-1, seq).expand(batch, seq)
        cos, sin = self.tables(position_ids, x.dtype if spec.cache == "storage" else torch.float32)
        q, _ = liger_rotary_pos_emb(projected(x), projected(x), cos, sin)
        return q.transpose(1, 2)


def configuration(key, name, shape):
    tables = HfCosSin(shape)
    return dtype_rows(LIBRARY, "rope", key, f"liger_rotary_pos_emb, {name}", tables.spec, SOURCE, columns,
                      lambda: LigerRope(tables), MAX_TOKENS, MAX_ELEMENTS)


def versions():
    return {name: importlib.metadata.version(name) for name in ("liger-kernel", "triton", "torch", "transformers")}


def rows():
    return (configuration("llama-3.1-8b", "Llama 3.1 8B (llama3)", "llama-3.1-8b-v5")
            + configuration("phi-2", "Phi-2 (partial rotary 0.4)", "phi-2-v5"))
