"""keras-hub's own positional encodings as peconform.check() callables, on keras's JAX backend.

Adapted: keras_hub.layers.RotaryEmbedding (keras_hub/src/layers/modeling/rotary_embedding.py),
keras_hub.layers.SinePositionEncoding (keras_hub/src/layers/modeling/sine_position_encoding.py) and
keras_hub.layers.PositionEmbedding (keras_hub/src/layers/modeling/position_embedding.py),
keras-hub 0.32.0 on keras 3.15.1 and jax 0.10.2 (CPU). Each callable builds the keras layer with
the row's configuration and calls it under jax.jit, as keras's JAX trainer and keras-hub's
generate run it; nothing of the computation is ported. This file only moves arrays between
peconform's layout and the axes the layer is told about, and casts positions to int32, JAX's
integer without x64 (keras casts them to float32 itself).

What the layers compute (read from the source above, every tensor float32 unless said):
- RotaryEmbedding: inverse_freq = ops.power(float32(max_wavelength), -(arange(0, d, 2) / float32(d)))
  (one pow with the exponent negated, no reciprocal), divided by float32(scaling_factor) when
  rope_type="linear" (the default); the positions cast to float32; the angles an einsum outer
  product; the frequencies repeated as [f, f] and x rotated by rotate_half (layout=half); cos and
  sin cast to the layer's compute dtype, and `x * cos + rotate_half(x) * sin` in that dtype.
  peconform's theta=hf is 1 / powf(base, 2k/d): the same exponent and powf plus one reciprocal, so
  its bound charges keras one rounding it does not take.
- SinePositionEncoding: timescales = ops.power(float32(1 / max_wavelength), float32(2 (j // 2)) / float32(d))
  for each column j, angles = position * timescale, sin in even columns and cos in odd ones
  (layout=interleaved, power frequencies with d itself in the exponent). The table hf recipe
  (1/powf(base, m/D)) forms them by a reciprocal instead of a rounded 1/base; its bound charges
  both, so it holds keras's.
- PositionEmbedding: a learned [sequence_length, d] table; with `positions` given, ops.take of
  its rows (jnp.take), the table cast to the layer's dtype policy.

What XLA's CPU backend adds: it flushes subnormal inputs and results to zero (JAX documents this in
"The Sharp Bits", docs/notebooks/Common_Gotchas_in_JAX.md: flush-to-zero semantics on some
backends), so float32 rotations of pairs near 2^-126 come out 0; and under jit it contracts
`x * cos + rotate_half(x) * sin` into one fused multiply-add (a rounding fewer than eager mode).
"""
import dataclasses
import os

# keras reads its backend once, when it is first imported: the matrix runs keras-hub on JAX.
os.environ.setdefault("KERAS_BACKEND", "jax")

import jax  # noqa: E402

# float32 as keras-hub's users run it: with x64, positions and Python scalars would be 64-bit.
jax.config.update("jax_enable_x64", False)

import keras  # noqa: E402
import keras_hub  # noqa: E402
import numpy as np  # noqa: E402

from rows import Column, Row, exact_angle  # noqa: E402

if keras.backend.backend() != "jax":
    raise ImportError(f"keras was imported on the {keras.backend.backend()} backend before this adapter: "
                      "set KERAS_BACKEND=jax")

LIBRARY = "keras-hub"
SOURCE = "keras_hub/src/layers/modeling/"
# peconform's storage dtypes as keras dtype policies (bf16 needs torch arrays, absent here).
KERAS_DTYPES = {"fp32": "float32", "fp16": "float16"}


def versions():
    return {"keras-hub": keras_hub.__version__, "keras": keras.__version__, "jax": jax.__version__}


def int32_positions(positions):
    """Positions as int32: JAX without x64 has no int64, and peconform's fit in 31 bits."""
    positions = np.asarray(positions)
    limits = np.iinfo(np.int32)
    if positions.size and (positions.min() < limits.min or positions.max() > limits.max):
        raise ValueError("positions outside int32")
    return positions.astype(np.int32)


class Rotary:
    """fn(x, positions, spec) -> y, rotating with keras_hub.layers.RotaryEmbedding.

    x is peconform's [batch, seq, heads, d]; `axes` is the order the layer sees them in, with
    sequence_axis and feature_axis set to where seq and d then sit. The layer's dtype policy is
    the spec's storage dtype, so keras casts x and cos/sin to it as a keras-hub model does.
    """

    def __init__(self, axes=(0, 1, 2, 3), sequence_axis=1, feature_axis=-1, **layer_kwargs):
        self.axes = axes
        self.layer_kwargs = dict(layer_kwargs, sequence_axis=sequence_axis, feature_axis=feature_axis)
        self.jitted = {}
        # check() names the kernel by its __qualname__.
        self.__qualname__ = "keras_hub.layers.RotaryEmbedding"

    def rotate(self, dtype):
        """The layer's call under jax.jit for one dtype policy (jit caches one program per shape)."""
        if dtype not in self.jitted:
            layer = keras_hub.layers.RotaryEmbedding(dtype=dtype, **self.layer_kwargs)
            self.jitted[dtype] = jax.jit(lambda inputs, positions: layer(inputs, positions=positions))
        return self.jitted[dtype]

    def __call__(self, x, positions, spec):
        x = np.asarray(x)
        seq = x.shape[1]
        position_ids = int32_positions(positions).reshape(-1, seq)
        y = self.rotate(KERAS_DTYPES[spec.dtype])(np.transpose(x, self.axes), position_ids)
        # A writable copy: check() reads the return through DLPack, which refuses JAX's read-only buffers.
        return np.array(np.transpose(np.asarray(y), np.argsort(self.axes)), order="C")


class SineTable:
    """fn(positions, spec) -> [rows, d], the table keras_hub.layers.SinePositionEncoding adds.

    The layer reads only the shape of its input (batch, sequence, d) and takes the positions
    themselves through `positions`, so a zero input of one batch row carries the shape.
    """

    def __init__(self, **layer_kwargs):
        layer = keras_hub.layers.SinePositionEncoding(dtype="float32", **layer_kwargs)
        self.table = jax.jit(lambda inputs, positions: layer(inputs, positions=positions))
        self.__qualname__ = "keras_hub.layers.SinePositionEncoding"

    def __call__(self, positions, spec):
        positions = int32_positions(positions).reshape(1, -1)
        inputs = np.zeros((1, positions.shape[1], spec.d), dtype=np.float32)
        return np.array(self.table(inputs, positions)[0])  # writable, for DLPack (Rotary.__call__)


class LearnedTable:
    """fn(table, positions, spec) -> [batch, seq, d]: keras_hub.layers.PositionEmbedding with
    sequence_length the table's rows and its `position_embeddings` weight set to the table, as a
    checkpoint loads it, called with `positions` under jax.jit. The layer reads only the shape of
    its input, so a zero input carries [batch, seq, d]."""

    def __init__(self):
        self.__qualname__ = "keras_hub.layers.PositionEmbedding"

    def __call__(self, table, positions, spec):
        table = np.asarray(table)
        rows, d = table.shape
        layer = keras_hub.layers.PositionEmbedding(sequence_length=rows, dtype=KERAS_DTYPES[spec.dtype])
        layer.build((None, rows, d))
        layer.position_embeddings.assign(table)
        positions = int32_positions(positions)
        positions = positions.reshape(1, -1) if positions.ndim == 1 else positions
        inputs = np.zeros((*positions.shape, d), dtype=table.dtype)
        embedded = jax.jit(lambda inputs, positions: layer(inputs, positions=positions))(inputs, positions)
        return np.array(embedded)  # writable, for DLPack (Rotary.__call__)


def contrast():
    """exact_angle() on NumPy arrays: this environment has no torch."""
    return dataclasses.replace(exact_angle(), array="numpy")


def rotary_columns():
    own = "precision=fp32-angle,theta=hf"
    return (
        Column("fp32-angle, theta=hf", own,
               "keras-hub's float32 recipe: powf(base, -fl(2i/d)), divided by the float32 scaling factor, "
               "fl(p) times it; hf's bound also charges a reciprocal keras does not take", array="numpy"),
        Column("fp16, fp32-angle, cache+math=storage", "dtype=fp16," + own + ",cache=storage,math=storage",
               "a float16 dtype policy: the same float32 angles, cos and sin cast to float16 and the "
               "rotation's products and sum in float16", array="numpy"),
        contrast(),
    )


def rotary_row(key, name, spec, kernel):
    return Row(LIBRARY, "rope", key, name, spec, rotary_columns(), kernel,
               SOURCE + "rotary_embedding.py: RotaryEmbedding")


def rows():
    return [
        rotary_row("rotary-d64", "RotaryEmbedding()", "rope(d=64,base=10000,layout=half)", lambda: Rotary()),
        rotary_row("rotary-d128-base500000", "RotaryEmbedding(max_wavelength=500000)",
                   "rope(d=128,base=500000,layout=half)", lambda: Rotary(max_wavelength=500000)),
        rotary_row("rotary-d128-linear4", "RotaryEmbedding(scaling_factor=4.0)",
                   "rope(d=128,base=10000,layout=half,scaling=linear(factor=4))",
                   lambda: Rotary(scaling_factor=4.0)),
        # Heads before the sequence, the sequence axis counted from the end: [batch, heads, seq, d].
        rotary_row("rotary-d64-heads-first", "RotaryEmbedding(max_wavelength=1000000, sequence_axis=-2)",
                   "rope(d=64,base=1000000,layout=half)",
                   lambda: Rotary(axes=(0, 2, 1, 3), sequence_axis=-2, max_wavelength=1000000)),
        # The feature axis ahead of the sequence: [batch, d, seq, heads].
        rotary_row("rotary-d32-features-second", "RotaryEmbedding(sequence_axis=2, feature_axis=1)",
                   "rope(d=32,base=10000,layout=half)",
                   lambda: Rotary(axes=(0, 3, 1, 2), sequence_axis=2, feature_axis=1)),
    ] + sine_rows() + learned_rows()


def learned_rows():
    columns = (Column("fp32", "", "the table's rows gathered unchanged (jnp.take)", array="numpy"),
               Column("fp16", "dtype=fp16", "a float16 dtype policy: the table's float16 rows gathered unchanged",
                      array="numpy"))
    return [Row(LIBRARY, "learned", f"position-embedding-d{d}", f"PositionEmbedding(sequence_length={rows})",
                f"learned(d={d},rows={rows})", columns, LearnedTable, SOURCE + "position_embedding.py: PositionEmbedding")
            for d, rows in ((64, 512), (768, 1024))]


def sine_rows():
    """SinePositionEncoding's rows, held to the table hf recipe, whose bound holds powf of the
    rounded 1/base (the module docstring)."""
    columns = (Column("fp32-angle (theta=hf)", "precision=fp32-angle,theta=hf",
                      "float32 timescales powf(float32(1/base), fl(2⌊j/2⌋/d)), float32 positions and angles, "
                      "XLA's sin and cos; hf's bound charges the base's rounding and a reciprocal keras does not take",
                      array="numpy"), contrast())
    return [
        Row(LIBRARY, "sinusoidal", key, name, spec, columns, kernel,
            SOURCE + "sine_position_encoding.py: SinePositionEncoding")
        for key, name, spec, kernel in (
            ("sine-d64", "SinePositionEncoding()", "sinusoidal(d=64,base=10000,layout=interleaved)",
             lambda: SineTable()),
            ("sine-d33-base100", "SinePositionEncoding(max_wavelength=100), odd d",
             "sinusoidal(d=33,base=100,layout=interleaved)", lambda: SineTable(max_wavelength=100)),
        )
    ]
