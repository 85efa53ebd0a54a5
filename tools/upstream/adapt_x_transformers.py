"""x-transformers' own positional encodings (lucidrains/x-transformers,
x_transformers/x_transformers.py) as peconform.check() callables:

- RotaryEmbedding + apply_rotary_pos_emb: RoPE over the first rotary_emb_dim dims of a head
  (AttentionLayers defaults rotary_emb_dim to dim_head // 2), pairs (2i, 2i+1); with use_xpos,
  xPos (queries times its scale, keys times scale ** -1 as Attention.forward does);
- AlibiPositionalBias.forward_custom_pos: the -m|i-j| bias at any query and key positions;
- RelativePositionBias._relative_position_bucket: the T5 bucket of j - i;
- ScaledSinusoidalEmbedding: the [sin..., cos...] table TransformerWrapper adds with
  scaled_sinu_pos_emb, times its scale (a Parameter initialised to dim ** -0.5: amp);
- AbsolutePositionalEmbedding: the learned table TransformerWrapper adds by default,
  emb(pos) * dim ** -0.5 (amp).

Each callable builds upstream's module with the row's configuration and calls it; it only moves
arrays between peconform's layouts and x-transformers' ([batch, heads, seq, d] for the rotation).
rows() are the matrix's.
"""
import importlib.metadata

import torch
from x_transformers.x_transformers import (AbsolutePositionalEmbedding, AlibiPositionalBias, RelativePositionBias,
                                           RotaryEmbedding, ScaledSinusoidalEmbedding, apply_rotary_pos_emb)

from rows import Column, Row, exact_angle

LIBRARY = "x-transformers"
SOURCE = "x_transformers/x_transformers.py: "


def as_long(positions):
    """Positions as the int64 tensors x-transformers builds them with (arange), so that j - i and
    the centring below cannot overflow int32."""
    return torch.as_tensor(positions).to(torch.long)


class Rotary:
    """fn(x, positions, spec) -> y: RotaryEmbedding(rot) + apply_rotary_pos_emb on x
    [batch, seq, heads, d], as Attention.forward rotates its queries (role=query) or keys.

    module_dtype casts the module as model.to(dtype) does (its inv_freq buffer with it).
    For xPos the scale comes from a second call at positions shifted by max + 1: RotaryEmbedding
    centres the exponent on (max + 1) // 2 of the call's positions, and at those shifted
    positions that centre is max + 1, so the int64 difference is the position itself. The
    logits do not depend on the centre; peconform's xpos spec has none.
    """

    def __init__(self, rot, module_dtype=None, xpos=False, key=False, **options):
        self.rot, self.module_dtype, self.xpos, self.key, self.options = rot, module_dtype, xpos, key, options
        self.__qualname__ = "x_transformers.RotaryEmbedding+apply_rotary_pos_emb"

    def module(self):
        rotary = RotaryEmbedding(self.rot, use_xpos=self.xpos, **self.options)
        return rotary.to(self.module_dtype) if self.module_dtype else rotary

    def frequencies(self, positions):
        """The angles and the xPos scale (1 without xPos) upstream gives for positions [batch, seq]."""
        rotary = self.module()
        freqs, _ = rotary(positions)
        if not self.xpos:
            return freqs, 1.
        _, scale = rotary(positions + (positions.max() + 1))
        return freqs, scale ** -1. if self.key else scale

    def __call__(self, x, positions, spec):
        x = torch.as_tensor(x)
        positions = as_long(positions).reshape(-1, x.shape[1])
        with torch.no_grad():
            freqs, scale = self.frequencies(positions)
            y = apply_rotary_pos_emb(x.permute(0, 2, 1, 3), freqs, scale)
        return y.permute(0, 2, 1, 3).contiguous()


class Alibi:
    """fn(queries, keys, spec) -> [heads, q, k]: AlibiPositionalBias(heads).forward_custom_pos,
    the path Attention takes when positions are given."""

    def __init__(self, heads):
        self.heads = heads
        self.__qualname__ = "x_transformers.AlibiPositionalBias.forward_custom_pos"

    def __call__(self, queries, keys, spec):
        with torch.no_grad():
            return AlibiPositionalBias(self.heads).forward_custom_pos(as_long(queries), as_long(keys))


class T5Bucket:
    """fn(queries, keys, spec) -> [q, k] int32: RelativePositionBias._relative_position_bucket of
    j - i (RelativePositionBias.forward's key minus query position)."""

    def __init__(self, causal, buckets, max_distance):
        self.causal, self.buckets, self.max_distance = causal, buckets, max_distance
        self.__qualname__ = "x_transformers.RelativePositionBias._relative_position_bucket"

    def __call__(self, queries, keys, spec):
        relative = as_long(keys)[None, :] - as_long(queries)[:, None]
        buckets = RelativePositionBias._relative_position_bucket(
            relative, causal=self.causal, num_buckets=self.buckets, max_distance=self.max_distance)
        return buckets.to(torch.int32)


class Sinusoid:
    """fn(positions, spec) -> [rows, d]: ScaledSinusoidalEmbedding(d, theta=base) at positions,
    its scale the Parameter as initialised, torch.ones(1) * d ** -0.5 (float32: amp as the double
    d ** -0.5 rounded to float32, which the table's amp bound charges)."""

    def __init__(self, d, base):
        self.d, self.base = d, base
        self.__qualname__ = "x_transformers.ScaledSinusoidalEmbedding"

    def __call__(self, positions, spec):
        module = ScaledSinusoidalEmbedding(self.d, theta=self.base)
        positions = as_long(positions)
        with torch.no_grad():
            return module(positions[None], pos=positions)


class Absolute:
    """fn(table, positions, spec) -> [batch, seq, d]: AbsolutePositionalEmbedding(d, rows) with its
    nn.Embedding weight set to the table, as a checkpoint loads it, called with pos= the
    positions of each batch row: emb(pos) * d ** -0.5, the product of each entry and the Python
    float. forward reads x only for an assertion that its length fits the table, so x is one
    zero token; pos= may list more (a batch row may repeat positions)."""

    def __init__(self):
        self.__qualname__ = "x_transformers.AbsolutePositionalEmbedding"

    def __call__(self, table, positions, spec):
        table = torch.as_tensor(table)
        rows, d = table.shape
        module = AbsolutePositionalEmbedding(d, rows).to(table.dtype)
        positions = as_long(positions)
        positions = positions.reshape(1, -1) if positions.ndim == 1 else positions
        with torch.no_grad():
            module.emb.weight.copy_(table)
            return torch.stack([module(torch.zeros(1, 1, d), pos=row) for row in positions])


# The rotation's columns. RotaryEmbedding.forward and apply_rotary_pos_emb run with autocast off;
# inv_freq is 1 / base ** (arange(0, rot, 2).float() / rot) in float32 (theta=hf) and the angle
# float(position) * inv_freq. On bf16 activations with a float32 module, cos and sin stay float32
# and the products promote to float32: the rotation rounds once, into bf16.
FP32_ANGLE = Column("fp32-angle", "precision=fp32-angle,theta=hf",
                    "x-transformers' own recipe: inv_freq = 1/base^(2i/rot) through float32 pow, the angle "
                    "float(position) * inv_freq in float32 (theta=hf)")
BF16_ACTIVATIONS = Column("bf16 (float32 module)", "dtype=bf16,precision=fp32-angle,theta=hf",
                          "bf16 activations with the module in float32 (autocast): float32 angles, cos and sin; "
                          "bf16 x times float32 cos promotes to float32, one rounding into bf16 at the end")
BF16_MODULE = Column("bf16 (module cast to bf16)",
                     "dtype=bf16,precision=fp32-angle,theta=hf,cache=storage,math=storage",
                     "a model cast with .to(torch.bfloat16): held to what a bf16 model's rotary meets in "
                     "transformers (float32 angles, cos and sin rounded to bf16, the rotation in bf16)")
ROTARY_COLUMNS = (FP32_ANGLE, BF16_ACTIVATIONS, exact_angle())


def rotary_row(key, name, spec, kernel, columns=ROTARY_COLUMNS, source="RotaryEmbedding, apply_rotary_pos_emb"):
    return Row(LIBRARY, spec.split("(")[0], key, name, spec, columns, kernel, SOURCE + source)


# RotaryEmbedding(32, base_rescale_factor=2) forms its base in Python floats,
# 10000 * 2 ** (32 / 30); this is that double written out exactly. torch's pow then takes it as
# a float32, the rounding theta=hf charges for a base float32 does not hold.
NTK_BASE = "20945.88245641253524809144437313079833984375"


def rotary_rows():
    return [
        rotary_row("rotary-d64", "RotaryEmbedding(32), AttentionLayers' default rotary_emb_dim = dim_head // 2 "
                   "(dim_head 64)", "rope(d=64,base=10000,layout=interleaved,rot=32)", lambda: Rotary(32)),
        rotary_row("rotary-d128-full", "RotaryEmbedding(128), rotary_emb_dim = dim_head = 128",
                   "rope(d=128,base=10000,layout=interleaved)", lambda: Rotary(128)),
        rotary_row("rotary-d64-ntk-2", "RotaryEmbedding(32, base_rescale_factor=2): base 10000 * 2^(32/30) "
                   "in float64", f"rope(d=64,base={NTK_BASE},layout=interleaved,rot=32)",
                   lambda: Rotary(32, base_rescale_factor=2.)),
        rotary_row("rotary-d64-bf16-module", "RotaryEmbedding(32) after .to(torch.bfloat16): inv_freq, the "
                   "positions and the angle in bf16", "rope(d=64,base=10000,layout=interleaved,rot=32)",
                   lambda: Rotary(32, module_dtype=torch.bfloat16), (BF16_MODULE,),
                   "RotaryEmbedding.forward (t.type_as(self.inv_freq))"),
        # It divides the float32 angle by the float32 factor, where hf's linear divides inv_freq
        # before the product: the same roundings (the factor's cast, a division, the product by
        # fl(p)), so hf's bound holds it.
        rotary_row("rotary-d64-interpolation-3", "RotaryEmbedding(32, interpolation_factor=3): the angle divided by 3",
                   "rope(d=64,base=10000,layout=interleaved,rot=32,scaling=linear(factor=3))",
                   lambda: Rotary(32, interpolation_factor=3.)),
        # Keys multiply (t * cos) by scale ** -1 after the product rounds: xpos's bound charges that
        # underflow magnified by the key's factor.
        rotary_row("xpos-d64-key", "RotaryEmbedding(32, use_xpos=True), keys (times scale ** -1), centring cancelled",
                   "xpos(d=64,base=10000,layout=interleaved,rot=32,role=key)", lambda: Rotary(32, xpos=True, key=True)),
        rotary_row("xpos-d64-query", "RotaryEmbedding(32, use_xpos=True), queries (times its scale), "
                   "centring cancelled", "xpos(d=64,base=10000,layout=interleaved,rot=32)",
                   lambda: Rotary(32, xpos=True)),
    ]


# ALiBi's slopes: a float64 list of 2^(-8h/n) (and every other slope of the 2n series past a power
# of two) made a float32 tensor: each is its float64 value, a few float64 ulps from 2^(-8h/n),
# rounded once, which is the correctly rounded slope (slopes=exact; test_x_transformers.py checks
# each against mpmath). The bias is the int64 distance, as float32, times the slope in float32.
ALIBI_COLUMNS = (Column("fp32", "precision=fp32-angle,slopes=exact",
                        "slopes rounded once to float32 from float64 Python values (slopes=exact), "
                        "float(|i-j|) * slope in float32"),)


def alibi_row(heads):
    return Row(LIBRARY, "alibi", f"alibi-{heads}", f"AlibiPositionalBias({heads}).forward_custom_pos (-m|i-j|)",
               f"alibi(heads={heads})", ALIBI_COLUMNS, lambda: Alibi(heads),
               SOURCE + "AlibiPositionalBias")


T5_COLUMNS = (Column("integer", "", "bucket indices must be identical"),)


def t5_row(causal, buckets=32, max_distance=128):
    kind = "causal" if causal else "bidirectional"
    return Row(LIBRARY, "t5", f"t5-{kind}-{buckets}-{max_distance}",
               f"RelativePositionBias._relative_position_bucket(causal={causal}, num_buckets={buckets}, "
               f"max_distance={max_distance})",
               f"t5(buckets={buckets},max_distance={max_distance}{',bidirectional=false' if causal else ''})",
               T5_COLUMNS, lambda: T5Bucket(causal, buckets, max_distance),
               SOURCE + "RelativePositionBias._relative_position_bucket")


# torch's float32 pow(base, -(i / (d/2))): the table hf recipe's bound holds it (it charges a
# reciprocal this form does not take).
SINUSOID_COLUMNS = (Column("fp32-angle (theta=hf)", "precision=fp32-angle,theta=hf",
                           "float32 theta = pow(base, -fl(i/(d/2))), float32 positions and angles, float32 sin and cos; "
                           "hf's bound charges a reciprocal this form does not take"),
                    exact_angle())


def inverse_square_root(d):
    """d ** -0.5 as the Python float x-transformers computes, written out exactly (repr round-trips)."""
    return repr(d ** -0.5)


def sinusoid_rows():
    return [Row(LIBRARY, "sinusoidal", f"scaled-sinusoidal-d{d}", f"ScaledSinusoidalEmbedding({d}), scale as initialised ({d}^-0.5)",
                f"sinusoidal(d={d},base=10000,layout=half,amp={inverse_square_root(d)})", SINUSOID_COLUMNS,
                lambda d=d: Sinusoid(d, 10000), SOURCE + "ScaledSinusoidalEmbedding")
            for d in (64, 512)]


def learned_rows():
    """AbsolutePositionalEmbedding in float32 (TransformerWrapper's default, l2norm_embed off) and in
    bf16 (the module cast to bf16: the product rounds in float32 opmath, then to bf16)."""
    columns = (Column("fp32", "", "the table's float32 rows times the Python float dim^-0.5, one float32 product"),
               Column("bf16 (module cast to bf16)", "dtype=bf16",
                      "bf16 rows times dim^-0.5 in float32 opmath, rounded to bf16"))
    return [Row(LIBRARY, "learned", f"absolute-d{d}", f"AbsolutePositionalEmbedding({d}, max_seq_len={rows})",
                f"learned(d={d},rows={rows},amp={inverse_square_root(d)})", columns, Absolute,
                SOURCE + "AbsolutePositionalEmbedding")
            for d, rows in ((512, 1024), (768, 2048))]


def rows():
    return (rotary_rows() + [alibi_row(8), alibi_row(12)] + [t5_row(False), t5_row(True)] + sinusoid_rows()
            + learned_rows())


def versions():
    return {name: importlib.metadata.version(name) for name in ("x-transformers", "torch")}
