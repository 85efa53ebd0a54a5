"""lucidrains' rotary-embedding-torch (package `rotary_embedding_torch`, the module
rotary_embedding_torch/rotary_embedding_torch.py: RotaryEmbedding and apply_rotary_emb), in the
ways its README uses it:

- `RotaryEmbedding.rotate_queries_or_keys(t, offset=...)`, its main path, which forms the
  positions itself: `(arange(seq_len, dtype=t.dtype) + offset) / interpolate_factor`. peconform's
  positions are arbitrary, so each token goes through on its own with its position as the offset,
  as a decoder with a key-value cache calls it (README, "Inference Key-Value Cache"); the float32
  position is then fl(p), divided by the factor. The same method over a run of consecutive
  positions, as a prefill (or a chunk after a cache) calls it, takes offset=the run's first: its
  positions fl(fl(i) + fl(offset)) round twice past 2^24, position=fp32-sum's recipe.
- `RotaryEmbedding(positions)` then `apply_rotary_emb(freqs, t, start_index=...)`: the angles for
  any positions (the README's flash-attention section), rotated from `start_index` on.
- `RotaryEmbedding(dim, use_xpos=True)`: xPos, as `rotate_queries_and_keys` forms it, with the
  angles of `RotaryEmbedding(positions)`, the amplitude of `get_scale(t)` (queries times it, keys
  times its `** -1`) and `apply_rotary_emb(freqs, t, scale=...)`. get_scale centres the exponent,
  (t - len(t) // 2) / scale_base; peconform's xpos has no centre (the logits do not depend on it),
  so t is handed the positions plus len(t) // 2, in float32 as the library's t is: the centring
  then gives back each position exactly (xpos positions stay below 2^23).
- `RotaryEmbedding.get_axial_freqs(1, 1, offsets=(x, y))` then `apply_rotary_emb`: the 2-D axial
  angles at each token's point, from a module built with `cache_if_possible=False`: its cache keys
  the axial angles by length alone, so with offsets it would hand back an earlier call's angles.

Every rotation is the library's: its layout is interleaved (its rotate_half pairs (2i, 2i+1)), and
peconform's [batch, seq, heads, d] is its `seq_before_head_dim=True` layout, so this file only
picks the tokens, slices x and writes the library's results back.
"""
import decimal
from importlib import metadata

import torch
from rotary_embedding_torch import RotaryEmbedding, apply_rotary_emb

from rows import Column, Row, exact_angle

LIBRARY = "rotary-embedding-torch"
SOURCE = "rotary_embedding_torch/rotary_embedding_torch.py"

# The library's own recipe: freqs = 1 / theta ** (arange(0, dim, 2).float() / dim) in float32
# (the same float32 operations as transformers', theta=hf), the position in float32, the angle a
# float32 product (einsum), cos and sin in float32 and the rotation in float32.
OWN = Column("fp32-angle", "precision=fp32-angle,theta=hf",
             "the library's recipe in float32: freqs = 1/theta**(arange(0,dim,2).float()/dim) in float32 "
             "(theta=hf), the float32 position times it, cos, sin and the rotation in float32")
# A bf16 x: freqs, angles, cos and sin stay float32, and `t * freqs.cos()` promotes x to float32,
# so the products and the sum are float32 and the result rounds once to bf16 (`out.type(dtype)`).
BF16 = Column("bf16", "dtype=bf16,precision=fp32-angle,theta=hf",
              "x in bf16: angles, cos and sin in float32 as in fp32; x promotes to float32 in the products "
              "and the sum, and the result rounds once to bf16 (cache=compute, math=compute)")
FP16 = Column("fp16", "dtype=fp16,precision=fp32-angle,theta=hf",
              "x in fp16: as bf16, the result rounding once to fp16")
# A run of tokens from an offset: the position fl(fl(i) + fl(offset)), rounding twice past 2^24.
RUN = Column("fp32-angle", "precision=fp32-angle,theta=hf,position=fp32-sum",
             "the library's recipe in float32 over a run of tokens: its positions arange(n) + offset in float32 "
             "(position=fp32-sum), freqs as in a single token's call (theta=hf), the angle, cos, sin and rotation "
             "in float32")
# The pixel frequencies are listed exactly as the float32 values the library holds, so forming
# theta is free and only the float32 angle product rounds (theta=exact).
LISTED = Column("fp32-angle (listed freqs)", "precision=fp32-angle,theta=exact",
                "the library's float32 frequencies listed exactly (custom(freqs=...)): the float32 position "
                "times them, cos, sin and the rotation in float32")


def token_positions(positions, batch, seq):
    """peconform's positions ([seq] or [batch, seq]) as int64 [batch, seq]."""
    return torch.as_tensor(positions).to(torch.long).reshape(-1, seq).expand(batch, seq)


class SpanRotary:
    """fn(x, positions, spec): RotaryEmbedding(**options).rotate_queries_or_keys on spans of each
    batch row's tokens, each with offset=its first position (a fresh module per call, so that its
    angle cache lives for one call only). Batch rows with the same positions go through together:
    x[rows, start:end] is [rows, tokens, heads, d]. The subclasses say how a row is cut (spans)
    and what check() calls the kernel (NAME)."""

    def __init__(self, **options):
        self.options = options
        self.__qualname__ = self.NAME

    def spans(self, row):
        """The [start, end) spans of a row's positions (int64 [seq]), each one call."""
        raise NotImplementedError

    def __call__(self, x, positions, spec):
        x = torch.as_tensor(x)
        batch, seq = x.shape[0], x.shape[1]
        positions = token_positions(positions, batch, seq)
        rotary = RotaryEmbedding(**self.options, seq_before_head_dim=True)
        out = torch.empty(x.shape, dtype=x.dtype)
        shared = bool((positions == positions[0]).all())
        with torch.no_grad():
            for rows in ([slice(None)] if shared else [slice(b, b + 1) for b in range(batch)]):
                row = positions[0 if shared else rows.start]
                for start, end in self.spans(row):
                    out[rows, start:end] = rotary.rotate_queries_or_keys(x[rows, start:end], offset=int(row[start]))
        return out


class DecodeRotary(SpanRotary):
    """One token at a time with offset=its position, as a decoder with a key-value cache calls it
    (README, "Inference Key-Value Cache")."""
    NAME = "rotary_embedding_torch.RotaryEmbedding.rotate_queries_or_keys"

    def spans(self, row):
        return [(s, s + 1) for s in range(len(row))]


class RunRotary(SpanRotary):
    """Each run of consecutive positions with offset=its first, as a prefill (or a chunk after a
    cache) calls it."""
    NAME = "rotary_embedding_torch.RotaryEmbedding.rotate_queries_or_keys(run)"

    def spans(self, row):
        ends = [s + 1 for s, step in enumerate((row[1:] - row[:-1]).tolist()) if step != 1] + [len(row)]
        return list(zip([0] + ends[:-1], ends))


class PositionRotary:
    """fn(x, positions, spec): freqs = RotaryEmbedding(**options)(positions), then
    apply_rotary_emb(freqs, x, start_index), which rotates dims [start_index, start_index + dim)."""

    def __init__(self, start_index=0, **options):
        self.start_index = start_index
        self.options = options
        self.__qualname__ = "rotary_embedding_torch.RotaryEmbedding.forward+apply_rotary_emb"

    def __call__(self, x, positions, spec):
        x = torch.as_tensor(x)
        positions = token_positions(positions, x.shape[0], x.shape[1])
        rotary = RotaryEmbedding(**self.options)
        with torch.no_grad():
            freqs = rotary(positions)  # [batch, seq, dim]
            return apply_rotary_emb(freqs[:, :, None, :], x, start_index=self.start_index)


class XposRotary:
    """fn(x, positions, spec) for xpos: RotaryEmbedding(dim, use_xpos=True) at the positions (its
    forward), times get_scale (queries) or get_scale ** -1 (keys), through apply_rotary_emb, as
    rotate_queries_and_keys rotates each."""

    def __init__(self, dim, key):
        self.dim, self.key = dim, key
        self.__qualname__ = "rotary_embedding_torch.RotaryEmbedding(use_xpos=True).get_scale+apply_rotary_emb"

    def __call__(self, x, positions, spec):
        x = torch.as_tensor(x)
        batch, seq = x.shape[0], x.shape[1]
        positions = token_positions(positions, batch, seq)
        flat = positions.reshape(-1)
        centred = (flat + len(flat) // 2).to(torch.float32)  # get_scale subtracts len(t) // 2 again
        rotary = RotaryEmbedding(self.dim, use_xpos=True, cache_if_possible=False)
        with torch.no_grad():
            freqs = rotary(positions)  # [batch, seq, dim]
            scale = rotary.get_scale(centred).reshape(batch, seq, self.dim)
            if self.key:
                scale = scale ** -1
            return apply_rotary_emb(freqs[:, :, None, :], x, scale=scale[:, :, None, :])


class AxialRotary:
    """fn(x, positions, spec) for rope2d: each token's angles from
    RotaryEmbedding(d / 2).get_axial_freqs(1, 1, offsets=(x, y)), the first axis on the first d/2
    dims and the second on the rest, then apply_rotary_emb."""

    def __init__(self, d):
        self.d = d
        self.__qualname__ = "rotary_embedding_torch.RotaryEmbedding.get_axial_freqs+apply_rotary_emb"

    def __call__(self, x, positions, spec):
        x = torch.as_tensor(x)
        batch, seq = x.shape[0], x.shape[1]
        points = torch.as_tensor(positions).to(torch.long).reshape(2, -1, seq).expand(2, batch, seq)
        rotary = RotaryEmbedding(self.d // 2, cache_if_possible=False)
        freqs = torch.empty(batch, seq, self.d)
        with torch.no_grad():
            for b in range(batch):
                for s in range(seq):
                    point = (int(points[0, b, s]), int(points[1, b, s]))
                    freqs[b, s] = rotary.get_axial_freqs(1, 1, offsets=point)[0, 0]
            return apply_rotary_emb(freqs[:, :, None, :], x)


def pixel_frequencies(dim):
    """The float32 frequencies RotaryEmbedding(dim, freqs_for='pixel') holds, as exact decimals."""
    freqs = RotaryEmbedding(dim, freqs_for="pixel").freqs.detach()
    return "[" + ",".join(str(decimal.Decimal(float(f))) for f in freqs) + "]"


def decode_row(key, name, spec, columns, **options):
    return Row(LIBRARY, "rope", key, name, spec, columns, lambda: DecodeRotary(**options),
               f"{SOURCE}: RotaryEmbedding.rotate_queries_or_keys, get_seq_pos, forward, apply_rotary_emb")


def position_row(key, name, spec, columns, start_index=0, **options):
    return Row(LIBRARY, "rope", key, name, spec, columns, lambda: PositionRotary(start_index, **options),
               f"{SOURCE}: RotaryEmbedding.forward, apply_rotary_emb")


def versions():
    return {"rotary-embedding-torch": metadata.version("rotary-embedding-torch"), "torch": torch.__version__}


def rows():
    contrast = exact_angle()
    return [
        decode_row("rotate/d64", "RotaryEmbedding(64).rotate_queries_or_keys, one token at offset=position",
                   "rope(d=64,base=10000,layout=interleaved)", (OWN, BF16, FP16, contrast), dim=64),
        decode_row("rotate/d128", "RotaryEmbedding(128).rotate_queries_or_keys, one token at offset=position",
                   "rope(d=128,base=10000,layout=interleaved)", (OWN, BF16, contrast), dim=128),
        decode_row("rotate/d64-partial32", "RotaryEmbedding(32).rotate_queries_or_keys on a 64-dim head",
                   "rope(d=64,base=10000,layout=interleaved,rot=32)", (OWN, contrast), dim=32),
        decode_row("rotate/d64-interpolate2", "RotaryEmbedding(64, interpolate_factor=2).rotate_queries_or_keys",
                   "rope(d=64,base=10000,layout=interleaved,scaling=linear(factor=2))", (OWN, contrast),
                   dim=64, interpolate_factor=2.0),
        decode_row("rotate/d64-interpolate3", "RotaryEmbedding(64, interpolate_factor=3).rotate_queries_or_keys",
                   "rope(d=64,base=10000,layout=interleaved,scaling=linear(factor=3))", (OWN, contrast),
                   dim=64, interpolate_factor=3.0),
        Row(LIBRARY, "rope", "rotate-run/d64", "RotaryEmbedding(64).rotate_queries_or_keys over each run of "
            "consecutive positions, offset=its first", "rope(d=64,base=10000,layout=interleaved)", (RUN, contrast),
            lambda: RunRotary(dim=64), f"{SOURCE}: RotaryEmbedding.rotate_queries_or_keys, get_seq_pos, forward"),
        position_row("freqs/d64", "RotaryEmbedding(64)(positions) + apply_rotary_emb",
                     "rope(d=64,base=10000,layout=interleaved)", (OWN, BF16, FP16, contrast), dim=64),
        position_row("freqs/d64-theta1e6", "RotaryEmbedding(64, theta=1e6)(positions) + apply_rotary_emb",
                     "rope(d=64,base=1000000,layout=interleaved)", (OWN, contrast), dim=64, theta=1_000_000),
        # theta_rescale_factor r: theta * r ** (dim / (dim - 2)) in Python floats, rounded to float32
        # as torch's pow takes it: the NTK base peconform writes as dynamic(factor=r-1,orig=1,len=2),
        # whose hf recipe charges transformers' two float32 roundings of that base where this forms it
        # with one.
        position_row("freqs/d64-ntk2", "RotaryEmbedding(64, theta_rescale_factor=2)(positions) + apply_rotary_emb",
                     "rope(d=64,base=10000,layout=interleaved,scaling=dynamic(factor=1,orig=1,len=2))",
                     (OWN, contrast), dim=64, theta_rescale_factor=2.0),
        position_row("freqs/d64-last32", "RotaryEmbedding(32)(positions) + apply_rotary_emb(start_index=32)",
                     "rope(d=64,base=10000,layout=interleaved,rot=32,rot_at=last)", (OWN, contrast),
                     start_index=32, dim=32),
        position_row("freqs/d32-pixel", "RotaryEmbedding(32, freqs_for='pixel')(positions) + apply_rotary_emb",
                     f"rope(d=32,base=10000,layout=interleaved,scaling=custom(freqs={pixel_frequencies(32)}))",
                     (LISTED, contrast), dim=32, freqs_for="pixel"),
        Row(LIBRARY, "xpos", "xpos/d64-query", "RotaryEmbedding(64, use_xpos=True): queries times get_scale",
            "xpos(d=64,base=10000,layout=interleaved)", (OWN, contrast), lambda: XposRotary(64, key=False),
            f"{SOURCE}: RotaryEmbedding.get_scale, forward, apply_rotary_emb"),
        Row(LIBRARY, "xpos", "xpos/d64-key", "RotaryEmbedding(64, use_xpos=True): keys times get_scale ** -1",
            "xpos(d=64,base=10000,layout=interleaved,role=key)", (OWN, contrast), lambda: XposRotary(64, key=True),
            f"{SOURCE}: RotaryEmbedding.get_scale, forward, apply_rotary_emb"),
        Row(LIBRARY, "rope2d", "axial/d64", "RotaryEmbedding(32).get_axial_freqs + apply_rotary_emb",
            "rope2d(d=64,base=10000,layout=interleaved)", (OWN, BF16, contrast), lambda: AxialRotary(64),
            f"{SOURCE}: RotaryEmbedding.get_axial_freqs, forward, apply_rotary_emb"),
    ]
