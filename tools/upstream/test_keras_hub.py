"""The keras-hub adapters move arrays between peconform's layout and the axes each layer is told
about, and pass the positions and the dtype through: their output equals a NumPy float64
computation from the hand-read spec (rotate_half with the layer's own float32 frequencies; the
interleaved sinusoid table from its definition; the learned table's rows at the positions, bit
for bit). Runs in the keras-hub virtual environment:
`PYTHONPATH=build/release/python:tools/upstream python -m pytest tools/upstream/test_keras_hub.py`.
"""
import os

import numpy as np
import pytest

# keras reads its backend at its first import, which the importorskip below may be: the adapter
# runs keras-hub on JAX.
os.environ.setdefault("KERAS_BACKEND", "jax")
pytest.importorskip("keras_hub", reason="keras-hub is not installed (tools/upstream/requirements/keras-hub.txt)")
peconform = pytest.importorskip("peconform", reason="the peconform module is not built (build/release/python)")

import adapt_keras_hub  # noqa: E402
import jax  # noqa: E402
import keras_hub  # noqa: E402

# Past 2^24 float32 positions round; 2^31 - 1 is the largest position peconform draws.
POSITIONS = [0, 1, 7, 4095, 4096, 100000, 16777217, 2**31 - 1]
BATCH, HEADS = 2, 3
UNIT_ROUNDOFF = {"fp32": 2.0**-24, "fp16": 2.0**-11}
NUMPY_DTYPES = {"fp32": np.float32, "fp16": np.float16}


def spec_of(row, dtype):
    return peconform.Spec(row.spec if dtype == "fp32" else row.spec[:-1] + f",dtype={dtype})")


def rotate_half(x, positions, inv_freq):
    """x [batch, seq, heads, d] rotated in float64 on pairs (i, i + d/2), at float32 angles
    fl(fl(p) * inv_freq) as the layer forms them."""
    angles = (positions.astype(np.float32)[:, None] * inv_freq[None, :]).astype(np.float64)
    cos, sin = np.cos(angles)[None, :, None, :], np.sin(angles)[None, :, None, :]
    half = x.shape[-1] // 2
    a, b = x[..., :half].astype(np.float64), x[..., half:].astype(np.float64)
    return np.concatenate([a * cos - b * sin, b * cos + a * sin], axis=-1)


@pytest.mark.parametrize("dtype", ["fp32", "fp16"])
@pytest.mark.parametrize("row", [r for r in adapt_keras_hub.rows() if r.family == "rope"], ids=lambda r: r.key)
def test_rotary_adapter_rotates_as_rotate_half(row, dtype):
    fn = row.kernel()
    spec = spec_of(row, dtype)
    rng = np.random.default_rng(21)
    x = rng.uniform(-2, 2, size=(BATCH, len(POSITIONS), HEADS, spec.d)).astype(NUMPY_DTYPES[dtype])
    positions = np.array(POSITIONS, dtype=np.int64)
    y = fn(x, positions, spec)
    # The layer's own float32 frequencies, from the kwargs the kernel builds it with, formed under
    # jit as the kernel's call forms them (XLA's fused pow can differ from eager by an ulp).
    layer = keras_hub.layers.RotaryEmbedding(**fn.layer_kwargs)
    inv_freq = np.asarray(jax.jit(lambda: layer._get_inverse_freq(spec.d))(), dtype=np.float32)
    want = rotate_half(x, positions, inv_freq)
    assert y.shape == x.shape and y.dtype == x.dtype
    # The angles are the same float32 values. XLA's cos and sin are within one ulp (2u), the cast
    # of each to the storage dtype rounds once more under fp16, and the products and the sum
    # round at most three times: at most six roundings of u of terms below |a| + |b| <= 4.
    np.testing.assert_allclose(y.astype(np.float64), want, rtol=0, atol=6 * UNIT_ROUNDOFF[dtype] * 4)


def sinusoid_table(positions, d, base):
    """The interleaved table in float64: column j is sin (even j) or cos (odd j) of
    p * base^(-2 floor(j/2) / d), d itself in the exponent (odd d too)."""
    exponents = 2 * (np.arange(d) // 2) / d
    angles = positions.astype(np.float64)[:, None] * base ** -exponents[None, :]
    return np.where(np.arange(d) % 2 == 0, np.sin(angles), np.cos(angles)), angles


@pytest.mark.parametrize("row", adapt_keras_hub.sine_rows(), ids=lambda r: r.key)
def test_sine_table_is_the_interleaved_sinusoid(row):
    fn = row.kernel()
    spec = peconform.Spec(row.spec)
    positions = np.array([0, 1, 2, 7, 100, 4095, 4096, 65537], dtype=np.int64)
    y = fn(positions, spec)
    want, angles = sinusoid_table(positions, spec.d, spec.base)
    assert y.shape == (len(positions), spec.d) and y.dtype == np.float32
    # The float32 timescale powf(fl(1/base), fl(2k/d)) is off by the exponent's rounding times
    # ln(base), the base's rounding, and powf's ulp (2u); the angle's product rounds once more
    # (positions below 2^24 are exact): |angle| (ln(base) + 4) u. Then sin or cos within an ulp.
    u = UNIT_ROUNDOFF["fp32"]
    tolerance = np.abs(angles) * (np.log(spec.base) + 4) * u + 2 * u
    assert np.all(np.abs(y - want) <= tolerance)


def test_positions_outside_int32_are_refused():
    with pytest.raises(ValueError):
        adapt_keras_hub.int32_positions(np.array([2**31], dtype=np.int64))


def test_rows_are_named_once_and_use_numpy_arrays():
    rows = adapt_keras_hub.rows()
    assert len({row.key for row in rows}) == len(rows)
    # The keras-hub environment has no torch: check() must hand the callables NumPy arrays.
    assert all(column.array == "numpy" for row in rows for column in row.columns)


@pytest.mark.parametrize("row", [r for r in adapt_keras_hub.rows() if r.family == "rope"][:2], ids=lambda r: r.key)
def test_an_fp16_call_rounds_each_step_in_fp16(row):
    """The fp16 column says cos and sin are cast to float16 and the rotation rounds in it
    (cache=storage,math=storage): that departs from the float32 rotation rounded once in some
    elements, which an adapter widening x to float32 would give."""
    fn = row.kernel()
    spec = spec_of(row, "fp16")
    x = np.random.default_rng(23).uniform(-2, 2, size=(BATCH, len(POSITIONS), HEADS, spec.d)).astype(np.float16)
    positions = np.array(POSITIONS, dtype=np.int64)
    y = fn(x, positions, spec)
    assert y.dtype == np.float16
    assert (y != fn(x.astype(np.float32), positions, spec_of(row, "fp32")).astype(np.float16)).any()


@pytest.mark.parametrize("dtype", ["fp32", "fp16"])
@pytest.mark.parametrize("row", [r for r in adapt_keras_hub.rows() if r.family == "learned"], ids=lambda r: r.key)
def test_learned_table_gives_the_rows_at_each_position(row, dtype):
    spec = spec_of(row, dtype)
    rows = spec.keys["rows"]
    table = np.random.default_rng(4).uniform(-2, 2, size=(rows, spec.d)).astype(NUMPY_DTYPES[dtype])
    positions = np.array([[0, rows - 1, 5, 5, rows // 2], [rows - 2, 1, 0, 7, 3]], dtype=np.int64)
    embedded = row.kernel()(table, positions, spec)
    assert embedded.dtype == table.dtype and np.array_equal(embedded, table[positions])
