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

`torchtune.modules.VisionRotaryPositionalEmbeddings`, the 2-D RoPE of
`clip_vision_encoder(use_rope=True)` (no builder of torchtune 0.6.1 turns it on), is rope2d: each
axis's pairs at theta_k = 1 / base**(2k / (d/2)) (theta=meta over d/2 dims). It takes no
positions: patch s of a tile turns by (s % grid + 1, s // grid + 1), its float32 patch index's
remainder and quotient plus 1, and the CLS slot by 0. So a coordinate c >= 1 is
patch coordinate c - 1, and c = 0 is the CLS slot's angle. The callable builds the module over a
grid wider than any coordinate (GRID), so that the one `torch.arange(grid**2)` of its cache,
answered with the call's distinct coordinates minus 1, puts patch c - 1 at (c - 1, 0): the
cache's x pairs hold each coordinate's cos and sin (index -1, the CLS slot, holds angle 0). Both
axes share those frequencies, so each token's cache row is its first coordinate's x pairs then
its second's (test_torchtune.py checks this against the module's own cache of a real tile, bit
for bit), and the module's forward rotates x against it. The position is fl(fl(c - 1) + 1), which
rounds twice past 2^24: `position=fp32-sum`.
"""
import torch
import torchtune
from torchtune.models.llama3_1 import Llama3ScaledRoPE
from torchtune.modules import RotaryPositionalEmbeddings, VisionRotaryPositionalEmbeddings

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


# The vision module's float32 patch coordinate plus 1 is its position (position=fp32-sum); θ as
# torchtune's text RoPE forms it, over the axis's d/2 dims (theta=meta); float32 angles (einsum),
# cos and sin in its cache, and forward rotates x.float(), returning type_as(x).
VISION_OWN = Column("fp32-angle", "precision=fp32-angle,theta=meta,position=fp32-sum",
                    "torchtune's recipe in float32: theta = 1/base**(arange(0,dim,2).float()/dim) (theta=meta per "
                    "axis), the position a float32 patch coordinate plus 1 (position=fp32-sum), float32 angles, a "
                    "float32 cos/sin cache and rotation")
VISION_BF16 = Column("bf16", "dtype=bf16,precision=fp32-angle,theta=meta,position=fp32-sum",
                     "x in bf16: forward upcasts x to float32, rotates it against the float32 cache and rounds the "
                     "result once to bf16 (cache=compute, math=compute)")
# A grid wider than any campaign coordinate: patch index s of the cache lies at (s % GRID, s // GRID) = (s, 0).
GRID = 2**32


class VisionRotary:
    """fn(x, positions, spec) for rope2d: positions [2, seq] or [2, batch, seq], coordinate c >= 1 the
    module's patch coordinate c - 1 and 0 its CLS slot; x [batch, seq, heads, d]."""

    def __init__(self, head_dim):
        self.head_dim = head_dim
        self.__qualname__ = "torchtune.VisionRotaryPositionalEmbeddings.forward"

    def built_over(self, coordinates):
        """A module (built for a GRID-wide tile) and [n, d/4, 2]: the cos and sin of its x pairs at each
        coordinate, from its own cache over patch indices coordinates - 1."""
        with ArangeGives(coordinates - 1, end=GRID * GRID) as gives:
            module = VisionRotaryPositionalEmbeddings(patch_size=1, tile_size=GRID, max_num_tiles=1, dim=self.head_dim // 2)
        enumerated_once(gives, "VisionRotaryPositionalEmbeddings.build_rope_cache")
        return module, module.cache[:len(coordinates), :self.head_dim // 4]

    def __call__(self, x, positions, spec):
        x = torch.as_tensor(x)
        batch, seq, heads = x.shape[0], x.shape[1], x.shape[2]
        distinct, rows = distinct_positions(positions, batch, seq, streams=2)
        with torch.no_grad():
            module, line = self.built_over(distinct)
            module.cache = torch.cat([line[rows[0]], line[rows[1]]], dim=-2).reshape(batch * seq, self.head_dim // 2, 2)
            return module(x.reshape(1, batch * seq, heads, self.head_dim)).reshape(x.shape)


def vision_row(key, name, head_dim):
    return Row(LIBRARY, "rope2d", key, name, f"rope2d(d={head_dim},base=10000,layout=interleaved)",
               (VISION_OWN, VISION_BF16, exact_angle()), lambda: VisionRotary(head_dim),
               "torchtune/modules/position_embeddings.py: VisionRotaryPositionalEmbeddings")


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
        vision_row("vision-rope/d80", "VisionRotaryPositionalEmbeddings(dim=40) (clip_vision_encoder(embed_dim=1280, "
                   "num_heads=16, use_rope=True))", 80),
        vision_row("vision-rope/d64", "VisionRotaryPositionalEmbeddings(dim=32) (clip_vision_encoder(embed_dim=1024, "
                   "num_heads=16, use_rope=True))", 64),
    ]
