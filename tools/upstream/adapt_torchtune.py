"""torchtune's rotary modules, as its model builders construct them and its attention layer calls
them (`rope(q, input_pos=...)`):

- `torchtune.modules.RotaryPositionalEmbeddings` (torchtune/modules/position_embeddings.py),
  Llama 2, Llama 3, Mistral and Gemma's RoPE;
- `torchtune.models.llama3_1.Llama3ScaledRoPE` (torchtune/models/llama3_1/_position_embeddings.py),
  Llama 3.1 to 3.3's, with Meta's `apply_scaling` on its frequencies.

Both hold a cos/sin cache with one row per position from `torch.arange(max_seq_len)` and gather
rows by `input_pos`. peconform's positions reach 2^31 - 1, where a cache of every row up to the
largest would not fit in memory, so the callable has the module rebuild its cache
(`build_rope_cache`) with that one `torch.arange` call answered by the call's distinct positions,
converted to float32 as arange converts them, and passes each token's row of that cache as
`input_pos`. The rows hold what the full cache holds at those positions (test_torchtune.py checks
this bit for bit); the frequencies, angles, cos, sin and rotation are all torchtune's own code.

`VisionRotaryPositionalEmbeddings` (CLIP's 2-D RoPE) has no row. Its frequencies and pairing are
rope2d's, but it takes no positions: patch s of a tile turns by (s % grid + 1, s // grid + 1),
1-based, and the CLS slot by 0, so it needs a rope2d position offset and a campaign that hands it
whole tiles in grid order, neither of which peconform has.
"""
import torch
import torchtune
from torchtune.models.llama3_1 import Llama3ScaledRoPE
from torchtune.modules import RotaryPositionalEmbeddings

from campaign_positions import ArangeGives, distinct_positions, enumerated_once
from rows import Column, Row, exact_angle

LIBRARY = "torchtune"

# θ = 1.0 / (base ** (arange(0, dim, 2).float() / dim)): Meta's precompute_freqs_cis, float32
# pow and reciprocal (theta=meta); for Llama3ScaledRoPE then Meta's apply_scaling, the float32
# blend docs/precision.md's theta recipes describe under llama3. The position is arange's
# float32, the angle a float32 product (einsum), cos and sin float32 in the cache, and forward
# rotates x.float().
OWN = Column("fp32-angle", "precision=fp32-angle,theta=meta",
             "torchtune's recipe in float32: theta = 1/base**(arange(0,dim,2).float()/dim) in float32 "
             "(theta=meta; llama3's blend as Meta's apply_scaling), float32 positions and angles, a float32 "
             "cos/sin cache and a float32 rotation")
# forward casts x to float32 (`x.float()`), rotates against the float32 cache and returns
# `x_out.type_as(x)`: one rounding to bf16 at the end (cache=compute, math=compute).
BF16 = Column("bf16", "dtype=bf16,precision=fp32-angle,theta=meta",
              "x in bf16: forward upcasts x to float32, rotates it against the float32 cache in float32 and "
              "rounds the result once to bf16 (cache=compute, math=compute)")
COLUMNS = (OWN, BF16, exact_angle())


def cache_over(module, positions):
    """Has `module` rebuild its cache with one row per position of `positions` (int64, 1-D)."""
    with ArangeGives(positions) as gives:
        module.build_rope_cache(gives.count)
    enumerated_once(gives, f"{type(module).__name__}.build_rope_cache")


class CachedRotary:
    """fn(x, positions, spec) for peconform.check(): the module (built once) rebuilds its cache over
    the call's distinct positions, then rotates x ([batch, seq, heads, d], torchtune's own layout)
    with input_pos naming each token's row."""

    def __init__(self, module):
        self.module = module
        self.__qualname__ = f"torchtune.{type(module).__name__}.forward"

    def __call__(self, x, positions, spec):
        x = torch.as_tensor(x)
        distinct, rows = distinct_positions(positions, x.shape[0], x.shape[1])
        with torch.no_grad():
            cache_over(self.module, distinct)
            return self.module(x, input_pos=rows)


def row(key, name, spec, make, source):
    return Row(LIBRARY, "rope", key, name, spec, COLUMNS, lambda: CachedRotary(make()), source)


def versions():
    return {"torchtune": torchtune.__version__, "torch": torch.__version__}


def rows():
    plain = "torchtune/modules/position_embeddings.py: RotaryPositionalEmbeddings"
    scaled = "torchtune/models/llama3_1/_position_embeddings.py: Llama3ScaledRoPE"
    return [
        row("rope/d128", "RotaryPositionalEmbeddings(dim=128) (Llama 2 7B)",
            "rope(d=128,base=10000,layout=interleaved)",
            lambda: RotaryPositionalEmbeddings(dim=128, max_seq_len=1), plain),
        row("rope/d128-base5e5", "RotaryPositionalEmbeddings(dim=128, base=500000) (Llama 3 8B)",
            "rope(d=128,base=500000,layout=interleaved)",
            lambda: RotaryPositionalEmbeddings(dim=128, max_seq_len=1, base=500_000), plain),
        row("rope/d256", "RotaryPositionalEmbeddings(dim=256) (Gemma 7B)",
            "rope(d=256,base=10000,layout=interleaved)",
            lambda: RotaryPositionalEmbeddings(dim=256, max_seq_len=1), plain),
        row("llama3-scaled/d128-factor8", "Llama3ScaledRoPE(dim=128, base=500000, scale_factor=8) (Llama 3.1 8B)",
            "rope(d=128,base=500000,layout=interleaved,scaling=llama3(factor=8,orig=8192,low=1,high=4))",
            lambda: Llama3ScaledRoPE(dim=128, max_seq_len=1, base=500_000, scale_factor=8), scaled),
        row("llama3-scaled/d64-factor32", "Llama3ScaledRoPE(dim=64, base=500000, scale_factor=32) (Llama 3.2 1B)",
            "rope(d=64,base=500000,layout=interleaved,scaling=llama3(factor=32,orig=8192,low=1,high=4))",
            lambda: Llama3ScaledRoPE(dim=64, max_seq_len=1, base=500_000, scale_factor=32), scaled),
    ]
