"""The mlx adapter against computations of our own: each row's output equals a float64 NumPy
rotation built from its spec (pairing, rotary dims, the frequencies it lists) at the float32
angles fl(fl(p) theta_f), theta_f the listed frequency correctly rounded; one call with a
per-token offset equals mlx's ordinary call over a run of positions; and each spec's frequencies
are exactly scale / period for the float32 periods the adapter hands mlx. The ALiBi rows give
fl(float32(-|i - j|) * float32 slope) for runs of queries and keys anywhere in int32, with the
slopes of the ALiBi paper correctly rounded, and refuse positions that are not a run. The
sinusoid rows give [sin, cos] (or [cos, sin]) of fl(fl(p) sigma_k), sigma_k 1/base^(k/(h-1))
within theta=mlx's error, at positions up to 2^31 - 1.

    cd tools/upstream && PYTHONPATH=../../build/release/python:. python -m pytest -q test_mlx.py
"""
import re
from fractions import Fraction

import numpy as np
import pytest

mx = pytest.importorskip("mlx.core", reason="mlx is not installed (tools/upstream/requirements/mlx.txt)")
torch = pytest.importorskip("torch")

import adapt_mlx  # noqa: E402

ROWS = [row for row in adapt_mlx.rows() if row.family == "rope" and row.columns is not adapt_mlx.BASE_COLUMNS]
BASE_ROWS = [row for row in adapt_mlx.rows() if row.columns is adapt_mlx.BASE_COLUMNS]
POSITIONS = [0, 1, 7, 4095, 4096, 100000, 2**24 + 1, 2**31 - 1]
BATCH, HEADS = 2, 3
U32 = 2.0**-24
# mlx's float32 cos and sin (a Cephes polynomial below 2^23, libm past it) are within 2 ulps of 1
# of the exact values at the float32 angle; the tolerances below charge twice that.
COS_SIN = 2 * 2.0**-23


def configuration(row):
    """d, dims, traditional, scale and periods as the adapter passes them to mlx for this row."""
    key, d, dims, traditional, scale = next(c for c in adapt_mlx.CONFIGURATIONS if c[0] == row.key)
    return d, dims, traditional, scale, adapt_mlx.periods(dims // 2)


def spec_freqs(spec):
    return [Fraction(text) for text in re.search(r"freqs=\[([^\]]*)\]", spec).group(1).split(",")]


def rotation(x, positions, row):
    """x [batch, seq, heads, d] rotated in float64 as the row's spec says, at float32 angles."""
    d, dims, traditional, scale, chosen = configuration(row)
    assert f"layout={'interleaved' if traditional else 'half'}" in row.spec
    theta = np.array([np.float32(scale) / np.float32(float(p)) for p in chosen], dtype=np.float32)
    angles = (np.asarray(positions, np.float32)[:, None] * theta[None, :]).astype(np.float64)
    cos, sin = np.cos(angles)[None, :, None, :], np.sin(angles)[None, :, None, :]
    pairs = np.arange(dims // 2)
    first = 2 * pairs if traditional else pairs
    second = first + 1 if traditional else first + dims // 2
    a, b = x[..., first].astype(np.float64), x[..., second].astype(np.float64)
    y = x.astype(np.float64)
    y[..., first], y[..., second] = a * cos - b * sin, b * cos + a * sin
    return y, np.abs(a) + np.abs(b), first, second


def inputs(d, seq=len(POSITIONS)):
    rng = np.random.default_rng(7)
    return rng.uniform(-2, 2, size=(BATCH, seq, HEADS, d)).astype(np.float32)


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.key)
def test_spec_lists_scale_over_each_float32_period(row):
    d, dims, traditional, scale, chosen = configuration(row)
    assert all(Fraction(float(np.float32(float(p)))) == p for p in chosen)
    assert [f * p for f, p in zip(spec_freqs(row.spec), chosen)] == [Fraction(scale)] * len(chosen)


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.key)
def test_float32_rows_rotate_as_their_spec(row):
    d, dims = configuration(row)[:2]
    x = inputs(d)
    y = row.kernel()(torch.from_numpy(x), torch.tensor(POSITIONS, dtype=torch.int64), None).numpy()
    want, norm, first, second = rotation(x, POSITIONS, row)
    # Against the exact rotation at the same float32 angle: cos and sin off by COS_SIN each, then
    # the two products and their difference round in float32 (3 u of |a| + |b|, with room for
    # the products' own rounding feeding the difference).
    tolerance = norm * (COS_SIN + 4 * U32)
    for index in (first, second):
        np.testing.assert_array_less(np.abs(y[..., index] - want[..., index]), tolerance)
    assert np.array_equal(y[..., dims:], x[..., dims:])  # the dims past `dims` pass through


@pytest.mark.parametrize("dtype, unit", [(torch.bfloat16, 2.0**-8), (torch.float16, 2.0**-11)])
@pytest.mark.parametrize("row", ROWS[:2], ids=lambda r: r.key)
def test_low_precision_rows_round_in_their_dtype(row, dtype, unit):
    d, dims = configuration(row)[:2]
    x = torch.from_numpy(inputs(d)).to(dtype)
    y = row.kernel()(x, torch.tensor(POSITIONS), None)
    assert y.dtype == dtype
    want, norm, first, second = rotation(x.float().numpy(), POSITIONS, row)
    # cos and sin cast to the dtype (u_s each, on top of COS_SIN), each product and the difference
    # rounded to it (3 u_s), with a unit of slack for the second-order terms.
    tolerance = norm * (COS_SIN + 5 * unit)
    got = y.float().numpy()
    for index in (first, second):
        np.testing.assert_array_less(np.abs(got[..., index] - want[..., index]), tolerance)


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.key)
def test_per_token_offsets_match_one_call_over_a_run(row):
    """Below 2^24, where float32(t) + float32(offset) is float32(offset + t), giving every token its
    own offset changes nothing: the adapter's output is bit for bit mlx's call over the run."""
    d, dims, traditional, scale, chosen = configuration(row)
    start, seq = 70000, 9
    x = inputs(d, seq)
    positions = torch.arange(start, start + seq)
    y = row.kernel()(torch.from_numpy(x), positions, None).numpy()
    run = mx.fast.rope(mx.array(x.transpose(0, 2, 1, 3)), dims, traditional=traditional, base=None, scale=scale,
                       offset=start, freqs=mx.array([float(p) for p in chosen], dtype=mx.float32))
    assert np.array_equal(y, np.array(run).transpose(0, 2, 1, 3))


def test_positions_outside_int32_are_refused():
    x = torch.zeros(1, 1, 1, 64)
    with pytest.raises(ValueError, match="int32"):
        ROWS[0].kernel()(x, torch.tensor([[2**31]]), None)


@pytest.mark.parametrize("row", BASE_ROWS, ids=lambda r: r.key)
def test_base_rows_call_mlx_with_base(row):
    """The base= rows call mlx with the base: their output is bit for bit mlx's own call over a run
    of positions from base=."""
    kernel = row.kernel()
    d, start, seq = kernel.dims, 70000, 9
    x = inputs(d, seq)
    y = kernel(torch.from_numpy(x), torch.arange(start, start + seq), None).numpy()
    run = mx.fast.rope(mx.array(x.transpose(0, 2, 1, 3)), d, traditional=kernel.traditional, base=kernel.base,
                       scale=1.0, offset=start)
    assert np.array_equal(y, np.array(run).transpose(0, 2, 1, 3))


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("row", ROWS[:2] + BASE_ROWS[:1], ids=lambda r: r.key)
def test_low_precision_calls_round_each_step_in_their_dtype(row, dtype):
    """The bf16 and fp16 columns say mlx rounds cos, sin, each product and the sum in x's dtype
    (cache=storage,math=storage): that departs from the float32 rotation rounded once in some
    elements, which an adapter widening x to float32 would give."""
    x = torch.from_numpy(inputs(row.kernel().dims if row in BASE_ROWS else configuration(row)[0])).to(dtype)
    kernel = row.kernel()
    y = kernel(x, torch.tensor(POSITIONS), None)
    assert y.dtype == dtype
    assert (y != kernel(x.float(), torch.tensor(POSITIONS), None).to(dtype)).any()


def alibi_slopes(heads):
    """The ALiBi paper's slopes for `heads` (a power of two here): 2^(-8 h / heads), h = 1..heads."""
    return np.array([2.0 ** (-8.0 * h / heads) for h in range(1, heads + 1)])


@pytest.mark.parametrize("heads", [8, 16])
@pytest.mark.parametrize("query_first,key_first", [(0, 0), (5, 900), (70000, 3), (2**31 - 40, 0), (0, 2**31 - 40)])
def test_alibi_is_the_float32_product_of_distance_and_slope(heads, query_first, key_first):
    queries = np.arange(query_first, query_first + 30)
    keys = np.arange(key_first, key_first + 40)
    bias = adapt_mlx.Alibi(torch.float32)(queries, keys, type("Spec", (), {"keys": {"heads": heads}})()).numpy()
    distance = -np.abs(queries[:, None] - keys[None, :]).astype(np.float32)
    want = distance[None, :, :] * alibi_slopes(heads).astype(np.float32)[:, None, None]
    assert bias.dtype == np.float32 and np.array_equal(bias, want)


def test_alibi_refuses_positions_that_are_not_a_run():
    spec = type("Spec", (), {"keys": {"heads": 8}})()
    with pytest.raises(ValueError, match="consecutive queries"):
        adapt_mlx.Alibi(torch.float32)(np.array([0, 2, 3]), np.arange(4), spec)


@pytest.mark.parametrize("row", [r for r in adapt_mlx.rows() if r.family == "sinusoidal"], ids=lambda r: r.key)
def test_sinusoid_rows_are_the_geometric_table_in_halves(row):
    d = int(re.search(r"d=(\d+)", row.spec).group(1))
    base = int(re.search(r"base=(\d+)", row.spec).group(1))
    cos_first = "order=cos-sin" in row.spec
    scaled = re.search(r"amp=([0-9.e-]+)", row.spec)
    amp = float(scaled.group(1)) if scaled else 1.0
    if scaled:
        assert amp == (2 / d) ** 0.5, "mlx's default scale"
    positions = np.array([0, 1, 7, 4097, 2**24 + 3, 2**31 - 1], dtype=np.int64)
    table = row.kernel()(torch.from_numpy(positions), None).numpy()
    pairs = d // 2
    sigma = base ** (-np.arange(pairs) / (pairs - 1))
    # theta=mlx's float32 sigma is within 12 u of ln(base) < 14 (its exponent) and 2 u (exp) of the
    # exact one, the position and the product one rounding each: the float32 angle is within
    # (14 * 12 + 4) u of p sigma, plus 2 ulps of sin and cos; the scale's product and its own
    # rounding 2 u more, all times the scale.
    angles = positions[:, None].astype(np.float64) * sigma[None, :]
    halves = [np.cos(angles), np.sin(angles)] if cos_first else [np.sin(angles), np.cos(angles)]
    tolerance = amp * ((14 * 12 + 4) * U32 * np.abs(np.concatenate([angles, angles], axis=1)) + 6 * U32)
    assert table.shape == (len(positions), d) and table.dtype == np.float32
    assert np.all(np.abs(table - amp * np.concatenate(halves, axis=1)) <= tolerance)


def test_sinusoid_table_refuses_positions_outside_int32():
    row = next(r for r in adapt_mlx.rows() if r.family == "sinusoidal")
    with pytest.raises(ValueError, match="int32"):
        row.kernel()(torch.tensor([2**31]), None)
