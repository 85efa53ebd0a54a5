"""The onnxruntime adapter moves x, positions and the cache to each RotaryEmbedding node as its
operator reads them: every row's output equals a NumPy float64 rotation built from the row's
spec as read by hand (layout, rot) and the adapter's float32 frequencies, within the roundings
the cache and the kernel make. Needs onnxruntime, onnx and torch (the shared upstream venv):
`python -m pytest tools/upstream/test_onnxruntime.py`.
"""
import numpy as np
import pytest

pytest.importorskip("onnxruntime", reason="onnxruntime is not installed (tools/upstream/requirements/onnxruntime.txt)")
pytest.importorskip("onnx", reason="onnx is not installed (tools/upstream/requirements/onnxruntime.txt)")
pytest.importorskip("torch", reason="torch is not installed (the adapter forms the cache with it)")

import adapt_onnxruntime as adapter  # noqa: E402
from mrope_sections import mrope_axis  # noqa: E402

BATCH, HEADS = 2, 3
# Small positions take the exporter's cache indexed by position; large ones (repeated, and
# differing between the batch rows) the compact cache of distinct positions.
POSITION_SETS = {
    "exporter-cache": [[0, 1, 7, 4095], [9, 4096, 8191, 3]],
    "compact-cache": [[0, 2**31 - 1, 100000, 100000], [5, 16777217, 3, 2**24]],
}
U32, U16 = 2.0**-24, 2.0**-11  # unit roundoff of float32 and float16
# torch's float32 cos and sin are within 1 ulp (SLEEF's u10 kernels); 2^-22 bounds that for
# values of magnitude below 1 with a factor of 4 to spare.
TORCH_TRIG = 2.0**-22


def row_shape(row):
    """d, rot and whether pairs are interleaved, read from the row's spec text."""
    keys = dict(item.split("=") for item in row.spec[row.spec.index("(") + 1:-1].split(","))
    d = int(keys["d"])
    return d, int(keys.get("rot", d)), keys["layout"] == "interleaved"


def pair_indices(rot, interleaved):
    pairs = np.arange(rot // 2)
    return (2 * pairs, 2 * pairs + 1) if interleaved else (pairs, pairs + rot // 2)


def numpy_rotation(x, positions, freqs, rot, interleaved, cache_dtype):
    """x [batch, seq, heads, d] rotated in float64 by float32 angles (float32 position times the
    float32 frequency, one rounding), with cos and sin rounded to the cache's dtype; also each
    output's |a| + |b|, the scale of its rounding errors."""
    angles = (positions.astype(np.float32)[..., None] * freqs[None, None, :]).astype(np.float64)
    cos = np.cos(angles).astype(cache_dtype).astype(np.float64)[:, :, None, :]
    sin = np.sin(angles).astype(cache_dtype).astype(np.float64)[:, :, None, :]
    first, second = pair_indices(rot, interleaved)
    a, b = x[..., first].astype(np.float64), x[..., second].astype(np.float64)
    y, scale = x.astype(np.float64), np.zeros(x.shape)
    y[..., first], y[..., second] = a * cos - b * sin, b * cos + a * sin
    scale[..., first] = scale[..., second] = np.abs(a) + np.abs(b)
    return y, scale


def bound(want, scale, dtype):
    """How far the node's output may be from the float64 rotation. Each output takes |a| + |b|
    times the cache's departure from the reference's cos and sin, which round the same float32
    angle: torch's float32 trig error in float32, and in float16 at most one float16 step (u16 at
    magnitudes below 1: the two round a value to neighbours only where they straddle a boundary).
    The kernel's two products and sum round in float32 (three u32, fused or not) of terms below
    |a| + |b|. A float16 store rounds once more, u16 of the result; one more u16 of |a| + |b|
    covers the second-order terms."""
    if dtype == np.float32:
        return scale * (TORCH_TRIG + 3 * U32)
    return scale * (2 * U16 + 3 * U32) + U16 * np.abs(want)


@pytest.mark.parametrize("dtype", [np.float32, np.float16], ids=["fp32", "fp16"])
@pytest.mark.parametrize("positions", list(POSITION_SETS.values()), ids=list(POSITION_SETS))
@pytest.mark.parametrize("row", [row for row in adapter.rows() if row.family == "rope"], ids=lambda row: row.key)
def test_adapter_rotates_as_the_spec_pairs(row, positions, dtype):
    fn = row.kernel()
    d, rot, interleaved = row_shape(row)
    positions = np.array(positions, dtype=np.int64)
    x = np.random.default_rng(23).uniform(-2, 2, size=(BATCH, positions.shape[1], HEADS, d)).astype(dtype)
    y = fn(x, positions, None)
    want, scale = numpy_rotation(x, positions, fn.freqs.numpy(), rot, interleaved, dtype)
    assert y.shape == x.shape and y.dtype == x.dtype
    assert np.all(np.abs(y.astype(np.float64) - want) <= bound(want, scale, dtype))
    np.testing.assert_array_equal(y[..., rot:], x[..., rot:])  # pass-through dims are copied as they are


def test_float16_kernel_rounds_once():
    """With the cache the kernel is given, the float16 rotation is float32 arithmetic rounded once
    to float16 (math=compute): the float64 result rounded to float16 matches it but where float32's
    own error straddles a float16 rounding boundary, and never by more than one float16 step."""
    fn = adapter.rows()[0].kernel()
    d, rot, interleaved = row_shape(adapter.rows()[0])
    positions = np.array([[0, 1, 7, 4095], [9, 4096, 8191, 3]], dtype=np.int64)
    x = np.random.default_rng(5).uniform(-2, 2, size=(BATCH, 4, HEADS, d)).astype(np.float16)
    y = fn(x, positions, None).astype(np.float64)
    rows, ids = adapter.cache_rows(positions)
    cos, sin = adapter.caches(rows, fn.freqs, np.float16, len(rows))
    c, s = cos[ids].astype(np.float64)[:, :, None, :], sin[ids].astype(np.float64)[:, :, None, :]
    first, second = pair_indices(rot, interleaved)
    a, b = x[..., first].astype(np.float64), x[..., second].astype(np.float64)
    once = np.empty_like(y)
    once[..., first], once[..., second] = a * c - b * s, b * c + a * s
    once = once.astype(np.float16).astype(np.float64)
    assert np.mean(y != once) < 0.01
    assert np.all(np.abs(y - once) <= np.abs(np.spacing(once.astype(np.float16))).astype(np.float64))


def test_compact_cache_rows_hold_each_tokens_position():
    positions = np.array([[0, 2**31 - 1, 100000, 100000], [5, 16777217, 3, 2**24]], dtype=np.int64)
    rows, ids = adapter.cache_rows(positions)
    np.testing.assert_array_equal(rows[ids], positions)
    assert np.all(np.diff(rows) < 0)  # descending, so row order runs against token order
    assert len(rows) == len(np.unique(positions))


def test_exporter_cache_is_indexed_by_position():
    positions = np.array([[3, 0, 7]], dtype=np.int64)
    rows, ids = adapter.cache_rows(positions)
    np.testing.assert_array_equal(rows, np.arange(8))
    np.testing.assert_array_equal(ids, positions)


def test_cache_pads_to_the_calls_tokens_with_nan_rows():
    rows = np.array([4, 2], dtype=np.int64)
    cos, sin = adapter.caches(rows, adapter.inv_freq(10000, 8), np.float16, 5)
    assert cos.shape == sin.shape == (5, 4) and cos.dtype == np.float16
    assert np.all(np.isfinite(cos[:2])) and np.all(np.isnan(cos[2:])) and np.all(np.isnan(sin[2:]))


def test_frequencies_are_float32_powers_of_the_base():
    """1 / base^(2i/rot) in float32: within a few float32 roundings of the exact value (the pow,
    the exponent's division, the reciprocal)."""
    freqs = adapter.inv_freq(500000, 128).numpy()
    exact = 1.0 / 500000.0 ** (np.arange(0, 128, 2) / 128)
    assert freqs.dtype == np.float32
    np.testing.assert_allclose(freqs, exact, rtol=8 * U32, atol=0)


# MRotaryEmbedding: (t, h, w) streams far apart, so a pair rotated by another stream's position fails.
MROPE_POSITIONS = np.array([[[0, 3, 17, 4096, 70000], [1, 2, 900, 5, 2**31 - 1]],
                            [[5, 1000, 2, 9, 123456], [0, 0, 7, 16777217, 8]],
                            [[11, 7, 30000, 655, 1], [3, 2**24, 1, 2, 4095]]], dtype=np.int64)


@pytest.mark.parametrize("dtype", [np.float32, np.float16], ids=["fp32", "fp16"])
@pytest.mark.parametrize("key,sections,interleaved", [("mrope-blocked", (16, 24, 24), False),
                                                      ("mrope-interleaved", (24, 20, 20), True)])
def test_mrotary_rotates_each_pair_by_its_streams_position(key, sections, interleaved, dtype):
    row = next(r for r in adapter.rows() if r.key == key)
    fn = row.kernel()
    d, seq = 128, MROPE_POSITIONS.shape[2]
    x = np.random.default_rng(3).uniform(-2, 2, size=(2, seq, HEADS, d)).astype(dtype)
    y = fn(x, MROPE_POSITIONS, None)
    axis = mrope_axis(d // 2, sections, interleaved)
    freqs = fn.freqs.numpy()  # the adapter's float32 inv_freq, as the cache's recipe forms it
    chosen = MROPE_POSITIONS[axis]  # [pairs, batch, seq]: each pair's stream
    angles = (chosen.astype(np.float32) * freqs[:, None, None]).astype(np.float64).transpose(1, 2, 0)[:, :, None, :]
    a, b = x[..., : d // 2].astype(np.float64), x[..., d // 2:].astype(np.float64)
    expected = np.concatenate([a * np.cos(angles) - b * np.sin(angles), b * np.cos(angles) + a * np.sin(angles)], axis=-1)
    # float32 cos/sin (TORCH_TRIG) times |a| + |b| <= 4, the products and the sum in float32; in
    # float16 the cache's cast and the store besides (bound).
    assert y.dtype == dtype
    assert np.all(np.abs(y.astype(np.float64) - expected) <= bound(expected, 4.0, dtype))
