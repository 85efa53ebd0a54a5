"""mlx's own `mlx.core.fast.rope` as peconform.check() callables.

mlx's CPU build has no RoPE kernel: `RoPE::use_fallback` is true off the GPU
(mlx/backend/no_gpu/primitives.cpp), so `fast::rope` (mlx/fast.cpp, `rope`, the `fallback`
lambda) builds the rotation from mlx ops, each rounding in float32 or in x's dtype:

    positions = (arange(T, float32) + offset) * scale        float32
    inv_freq  = 1 / freqs                                    float32 reciprocal, when freqs is given
    angle     = positions[..., None] * inv_freq              one float32 product
    cos, sin  = astype(cos(angle), x.dtype), astype(sin(angle), x.dtype)
    y         = x1 * cos - x2 * sin, x1 * sin + x2 * cos     products and sums in x's dtype

with (x1, x2) the pairs (2i, 2i+1) when traditional, else (i, i + dims/2), and the dims past
`dims` passed through. From `base=` mlx forms inv_freq as exp(-i * float32(logf(base) / (dims/2)))
with its own polynomial exp (mlx/backend/cpu/simd/math.h): peconform's theta=mlx.

Positions: mlx rotates a run of consecutive positions from an offset (a scalar, or one per entry
of x's first axis). The callable makes every token its own entry, [batch*seq, heads, 1, d], with
its position as that entry's offset, so one call covers any position ids and each position
reaches the angle as float32(p) (0.0f + float32(offset)); a call over a run of T tokens adds
float32(t) to float32(offset) instead, which differs from float32(offset + t) past 2^24.

`mlx.nn.SinusoidalPositionalEncoding` (mlx/nn/layers/positional_encoding.py) with max_freq=1 and
scale=1: sigma_k = exp((1 - k/(h-1)) * (ln max - ln min) + ln min), each operation in float32
from the Python floats ln(min_freq) and ln(max_freq) - ln(min_freq), through mlx's exp; the table
[sin(p sigma), cos(p sigma)] (or cos first), the position an int32 promoted to float32: the
sinusoidal family's geometric table of base 1/min_freq under theta=mlx; then, unless the scale is
1, `y * scale` with the Python float scale (sqrt(2/dims) by default) made a float32 scalar: amp.

`mlx.nn.ALiBi.create_alibi_matrix` (same file), the bias `nn.ALiBi`
adds to the scores: slopes from Python floats (2^(-8/n) powers, float64) made an array of the
scores' dtype, the distance -|x1 - x2| in int32 from `arange(offset, q)` and `arange(0, k)`, and
their product in that dtype (int32 times float32 or bf16 promotes to the float).

This file only moves arrays between peconform's [batch, seq, heads, d] torch tensors and mlx and
calls upstream; nothing of the rotation or the bias is ported.
"""
import functools
import math
from fractions import Fraction

import mlx.core as mx
import mlx.nn
import numpy as np
import torch

from rows import Column, Row, exact_angle

LIBRARY = "mlx"
SOURCE = "mlx/fast.cpp: rope (its fallback, which the CPU build always takes)"
ALIBI_SOURCE = "mlx/nn/layers/positional_encoding.py: ALiBi.create_alibi_matrix, create_alibi_slope"

# NumPy has no bfloat16, so every dtype crosses between torch and mlx as integers of its width,
# viewed back on the other side: torch dtype -> (its integer twin in torch, in mlx; mlx's dtype).
BITS = {torch.float32: (torch.int32, mx.int32, mx.float32), torch.float16: (torch.int16, mx.int16, mx.float16),
        torch.bfloat16: (torch.int16, mx.int16, mx.bfloat16)}


def versions():
    return {"mlx": mx.__version__}


def periods(count, base=10000):
    """mlx's freqs for `count` pairs: the periods base^(2i/(2 count)), each moved to the nearest
    2^a 5^b that float32 holds, so that its frequency 1/period is a finite decimal the spec can
    state exactly (and the float32 reciprocal mlx takes is the frequency correctly rounded)."""
    candidates = [Fraction(2) ** a * 5 ** b for a in range(-40, 41) for b in range(11)]
    chosen = []
    for i in range(count):
        target = math.log(base) * i / count
        chosen.append(min(candidates, key=lambda c: abs(math.log(c) - target)))
    return chosen


def decimal(value):
    """A Fraction whose denominator is 2^a 5^b, written out exactly."""
    digits = 0
    while (value * 10 ** digits).denominator != 1:
        digits += 1
    text = f"{value.numerator * 10 ** digits // value.denominator:0{digits + 1}d}"
    return text[:-digits] + "." + text[-digits:] if digits else text


def freqs_spec(d, dims, layout, scale, chosen_periods):
    """The spec mlx computes: frequency i is scale / period_i. mlx multiplies the float32 position
    by the scale, which a power of two does exactly, commuting with every rounding after it; any
    other scale rounds the position once more, which no spec states."""
    if scale.numerator & (scale.numerator - 1) or scale.denominator & (scale.denominator - 1):
        raise ValueError(f"scale {scale} is not a power of two")
    freqs = ",".join(decimal(scale / period) for period in chosen_periods)
    rot = f",rot={dims}" if dims < d else ""
    return f"rope(d={d},base=10000,layout={layout}{rot},scaling=custom(freqs=[{freqs}]))"


class FastRope:
    """fn(x, positions, spec) -> y for peconform.check(), rotating with mlx.core.fast.rope."""

    def __init__(self, dims, traditional, scale, freqs=None, base=None):
        """Either freqs (the periods) or base, as mlx takes them."""
        self.dims, self.traditional, self.scale, self.base = dims, traditional, scale, base
        self.freqs = None if freqs is None else mx.array(np.array([float(p) for p in freqs], dtype=np.float32))
        self.__qualname__ = f"mlx.core.fast.rope(traditional={traditional})"

    @staticmethod
    def to_mlx(x):
        torch_bits, _, mlx_dtype = BITS[x.dtype]
        return mx.array(x.contiguous().view(torch_bits).numpy()).view(mlx_dtype)

    @staticmethod
    def from_mlx(y, dtype):
        _, mlx_bits, _ = BITS[dtype]
        return torch.from_numpy(np.array(y.view(mlx_bits))).view(dtype)

    def __call__(self, x, positions, spec):
        x = torch.as_tensor(x)
        batch, seq, heads, d = x.shape
        positions = torch.as_tensor(positions).to(torch.int64).broadcast_to((batch, seq)).reshape(-1)
        if positions.numel() and (positions.min() < -2**31 or positions.max() >= 2**31):
            raise ValueError("mlx takes int32 offsets; a position outside int32 has no mlx call")
        tokens = self.to_mlx(x).reshape(batch * seq, heads, 1, d)
        offsets = mx.array(positions.to(torch.int32).numpy())
        y = mx.fast.rope(tokens, self.dims, traditional=self.traditional, base=self.base, scale=self.scale,
                         offset=offsets, freqs=self.freqs)
        return self.from_mlx(y, x.dtype).reshape(batch, seq, heads, d)


def columns(recipe="precision=fp32-angle,theta=exact",
            meaning="the float32 reciprocal of each period (its frequency correctly rounded), float32(p) times it in "
                    "float32, cos and sin in float32"):
    """mlx's recipe in float32; the same with x in bf16 and in fp16, where cos and sin are cast to
    x's dtype and the rotation rounds in it; and exact-angle."""
    lowp = "cache=storage,math=storage"
    return (
        Column("fp32-angle", recipe, meaning + "; the rotation in float32"),
        Column("bf16", f"dtype=bf16,{recipe},{lowp}", meaning + ", cast to bf16; the products and sums in bf16"),
        Column("fp16", f"dtype=fp16,{recipe},{lowp}", meaning + ", cast to fp16; the products and sums in fp16"),
        exact_angle(),
    )


# key, d, dims, traditional, scale
CONFIGURATIONS = (
    ("fast.rope-freqs", 64, 64, False, 1.0),
    ("fast.rope-freqs-traditional", 64, 64, True, 1.0),
    ("fast.rope-freqs-partial", 96, 64, False, 1.0),
    ("fast.rope-freqs-partial-traditional", 96, 64, True, 1.0),
    ("fast.rope-freqs-scale", 64, 64, False, 0.25),
)


def row(key, d, dims, traditional, scale):
    chosen = periods(dims // 2)
    layout = "interleaved" if traditional else "half"
    name = f"mlx.core.fast.rope(dims={dims}, traditional={traditional}, scale={scale}, freqs=periods) on d={d}"
    return Row(LIBRARY, "rope", key, name, freqs_spec(d, dims, layout, Fraction(scale), chosen), columns(),
               functools.partial(FastRope, dims, traditional, scale, chosen), SOURCE)


# mlx's own exp of a float32 product, as the CPU fallback forms inv_freq from `base=`.
BASE_COLUMNS = columns("precision=fp32-angle,theta=mlx",
                       "theta as mlx's CPU fallback forms it from base= (logf(base) / (dims/2) times -i in float32, "
                       "mlx's own exp), float32(p) times it in float32, cos and sin in float32")

# key, d, dims, base, traditional
BASE_CONFIGURATIONS = (
    ("fast.rope-base", 128, 128, 10000, False),
    ("fast.rope-base-traditional", 128, 128, 500000, True),
    ("fast.rope-base-partial", 96, 64, 1000000, False),
)


def base_row(key, d, dims, base, traditional):
    layout = "interleaved" if traditional else "half"
    rot = f",rot={dims}" if dims != d else ""
    return Row(LIBRARY, "rope", key, f"mlx.core.fast.rope(dims={dims}, traditional={traditional}, base={base}) on d={d}",
               f"rope(d={d},base={base},layout={layout}{rot})", BASE_COLUMNS,
               functools.partial(FastRope, dims, traditional, 1.0, base=float(base)), SOURCE)


class SinusoidalTable:
    """fn(positions, spec) -> [rows, d]: nn.SinusoidalPositionalEncoding(d, min_freq, scale,
    cos_first)(positions), the positions an int32 array; scale None is mlx's default sqrt(2/dims)."""

    def __init__(self, dims, min_freq, cos_first, scale):
        self.encoding = mlx.nn.SinusoidalPositionalEncoding(dims, min_freq=min_freq, max_freq=1, scale=scale,
                                                            cos_first=cos_first)
        self.__qualname__ = "mlx.nn.SinusoidalPositionalEncoding"

    def __call__(self, positions, spec):
        positions = torch.as_tensor(positions).to(torch.int64).reshape(-1)
        if positions.numel() and (positions.min() < -2**31 or positions.max() >= 2**31):
            raise ValueError("the table's positions go to mlx as int32; a position outside int32 has no mlx call")
        table = self.encoding(mx.array(positions.to(torch.int32).numpy()))
        return FastRope.from_mlx(table, torch.float32)


SINUSOID_COLUMNS = (Column("fp32-angle (theta=mlx)", "precision=fp32-angle,theta=mlx",
                           "sigma_k = exp((1 - k/(h-1)) (ln max - ln min) + ln min) in float32 from Python floats, "
                           "through mlx's exp; float32 positions and angles, float32 sin and cos"),
                    exact_angle())


def sinusoid_row(dims, base, cos_first, scale=1.0):
    """scale=None: mlx's default, sqrt(2/dims), the Python float that is the spec's amp."""
    order = ",order=cos-sin" if cos_first else ""
    amp = "" if scale == 1.0 else f",amp={repr((2 / dims) ** 0.5 if scale is None else scale)}"
    min_freq = 1 / base
    key = f"nn.SinusoidalPositionalEncoding-d{dims}{'-cos-first' if cos_first else ''}{'-default-scale' if scale is None else ''}"
    return Row(LIBRARY, "sinusoidal", key,
               f"mlx.nn.SinusoidalPositionalEncoding({dims}, min_freq=1/{base}, max_freq=1, "
               f"scale={'sqrt(2/dims)' if scale is None else scale}, cos_first={cos_first})",
               f"sinusoidal(d={dims},base={base},layout=half{amp}{order},freq=geometric)",
               SINUSOID_COLUMNS, functools.partial(SinusoidalTable, dims, min_freq, cos_first, scale),
               "mlx/nn/layers/positional_encoding.py: SinusoidalPositionalEncoding")


class Alibi:
    """fn(queries, keys, spec) -> [heads, q, k]: ALiBi.create_alibi_matrix(q, k, heads, offset, dtype).
    mlx's queries run from `offset` and its keys from 0; the campaign's from query_first and
    key_first, each a run of consecutive positions. The call takes offset = query_first -
    key_first, so that mlx's int32 x1 - x2 are the campaign's distances."""

    def __init__(self, dtype):
        self.dtype = dtype
        self.__qualname__ = "mlx.nn.ALiBi.create_alibi_matrix"

    def __call__(self, queries, keys, spec):
        queries = np.asarray(queries, dtype=np.int64).reshape(-1)
        keys = np.asarray(keys, dtype=np.int64).reshape(-1)
        for name, run in (("queries", queries), ("keys", keys)):
            if len(run) and not np.array_equal(run, run[0] + np.arange(len(run))):
                raise ValueError(f"mlx's ALiBi takes a run of consecutive {name}; got {run[:8]}...")
        offset = int(queries[0] - keys[0])
        _, _, mlx_dtype = BITS[self.dtype]
        bias = mlx.nn.ALiBi.create_alibi_matrix(q_sequence_length=offset + len(queries), k_sequence_length=len(keys),
                                                num_heads=spec.keys["heads"], offset=offset, dtype=mlx_dtype)
        return FastRope.from_mlx(bias[0], self.dtype)


# Slopes rounded once to the dtype from float64 Python values (slopes=exact); the int32 distance
# converted to the float and multiplied by the slope there: float32 (fp32-angle), or bf16, where
# the slope, the distance and the product each round to bf16 (math=storage).
ALIBI_FP32 = Column("fp32-angle", "precision=fp32-angle,slopes=exact",
                    "slopes from float64 Python values rounded once to float32, float(-|i-j|) * slope in float32")
ALIBI_BF16 = Column("bf16", "dtype=bf16,precision=fp32-angle,slopes=exact,math=storage",
                    "slopes rounded once to bf16, the int32 distance converted to bf16 and the product rounded to "
                    "bf16 (math=storage)")
ALIBI_FP16 = Column("fp16", "dtype=fp16,precision=fp32-angle,slopes=exact,math=storage",
                    "slopes rounded once to fp16, the int32 distance converted to fp16 and the product rounded to "
                    "fp16 (math=storage)")
ALIBI_DTYPE_NAMES = {torch.float32: "fp32", torch.bfloat16: "bf16", torch.float16: "fp16"}


def alibi_row(heads, dtype, column):
    name = ALIBI_DTYPE_NAMES[dtype]
    return Row(LIBRARY, "alibi", f"nn.ALiBi-{heads}-{name}", f"mlx.nn.ALiBi({heads} heads, {name}) (-m|i-j|)",
               f"alibi(heads={heads})", (column,), functools.partial(Alibi, dtype), ALIBI_SOURCE)


def rows():
    return ([row(*configuration) for configuration in CONFIGURATIONS] +
            [base_row(*configuration) for configuration in BASE_CONFIGURATIONS] +
            [alibi_row(8, torch.float32, ALIBI_FP32), alibi_row(12, torch.float32, ALIBI_FP32),
             alibi_row(8, torch.bfloat16, ALIBI_BF16), alibi_row(8, torch.float16, ALIBI_FP16),
             sinusoid_row(64, 10000, False), sinusoid_row(256, 1000, True),
             sinusoid_row(64, 10000, False, scale=None), sinusoid_row(768, 10000, True, scale=None)])
