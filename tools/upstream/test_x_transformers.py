"""The x-transformers adapters (adapt_x_transformers.py) against computations of our own: NumPy
float64 rotations, biases and tables from the definitions read by hand (interleaved pairs over the
first rot dims, xPos's zeta_i = (2i + 0.4d)/(1.4d), ALiBi's published slope series, T5's bucket
edges, [sin..., cos...] tables), fed with the module's own float32 frequencies where the angle is
upstream's. Run with peconform's module and this folder on PYTHONPATH:
`python -m pytest tools/upstream/test_x_transformers.py`.
"""
from decimal import Decimal

import numpy as np
import pytest

pytest.importorskip("x_transformers",
                    reason="x-transformers is not installed (tools/upstream/requirements/x-transformers.txt)")
import mpmath  # noqa: E402  (torch's sympy brings it)
import torch  # noqa: E402

import adapt_x_transformers as adapt  # noqa: E402
from x_transformers.x_transformers import AlibiPositionalBias, ScaledSinusoidalEmbedding  # noqa: E402

U = 2.0 ** -24  # float32's unit roundoff
POSITIONS = np.array([0, 1, 7, 4095, 4096, 100000])
BATCH, HEADS = 2, 3


def inputs(d, seq, seed=5):
    rng = np.random.default_rng(seed)
    return rng.uniform(-2, 2, size=(BATCH, seq, HEADS, d)).astype(np.float32)


def rotate_interleaved(x, angles, rot):
    """x [batch, seq, heads, d] with pairs (2i, 2i+1) of the first rot dims rotated by angles
    [seq, rot/2], in float64; the rest passes through."""
    y = x.astype(np.float64).copy()
    a, b = y[..., 0:rot:2].copy(), y[..., 1:rot:2].copy()
    cos, sin = np.cos(angles)[None, :, None, :], np.sin(angles)[None, :, None, :]
    y[..., 0:rot:2] = a * cos - b * sin
    y[..., 1:rot:2] = a * sin + b * cos
    return y


def upstream_angles(kernel, positions):
    """float32(p) * inv_freq, the module's own frequencies times the position in float32 (NumPy's
    float32 product rounds as torch's does), divided in float32 by any interpolation factor."""
    inv_freq = kernel.module().inv_freq.numpy()
    angles = positions.astype(np.float32)[:, None] * inv_freq[None, :]
    return (angles / np.float32(kernel.options.get("interpolation_factor", 1.))).astype(np.float64)


def call(kernel, x, positions):
    return kernel(torch.from_numpy(x), torch.from_numpy(positions), None).numpy()


# Upstream rounds cos and sin (torch's float32 cos and sin, within an ulp each), both products and
# the sum in float32: six roundings of at most 2^-24 of terms below |a| + |b| <= 4.
ROTATION_ATOL = 6 * U * 4


@pytest.mark.parametrize("rot, d, options", [(32, 64, {}), (128, 128, {}), (32, 64, {"base_rescale_factor": 2.}),
                                             (32, 64, {"interpolation_factor": 3.})])
def test_rotary_rotates_the_first_rot_dims_in_interleaved_pairs(rot, d, options):
    kernel = adapt.Rotary(rot, **options)
    x = inputs(d, len(POSITIONS))
    want = rotate_interleaved(x, upstream_angles(kernel, POSITIONS), rot)
    np.testing.assert_allclose(call(kernel, x, POSITIONS), want, rtol=0, atol=ROTATION_ATOL)
    per_batch = np.tile(POSITIONS, (BATCH, 1))
    np.testing.assert_allclose(call(kernel, x, per_batch), want, rtol=0, atol=ROTATION_ATOL)


def theta_tolerance(theta):
    """torch's float32 pow of a base rounded to float32 at an exponent rounded to float32, then a
    reciprocal: the exponent's and the base's roundings are magnified by |ln theta| (twice, to be
    safe), pow and the reciprocal add an ulp or two."""
    return (2 * np.abs(np.log(theta)) + 4) * U


@pytest.mark.parametrize("rot, base, options", [(32, Decimal(10000), {}), (128, Decimal(10000), {}),
                                                (32, Decimal(adapt.NTK_BASE), {"base_rescale_factor": 2.})])
def test_rotary_frequencies_are_base_to_the_minus_2i_over_rot(rot, base, options):
    inv_freq = adapt.Rotary(rot, **options).module().inv_freq.numpy().astype(np.float64)
    with mpmath.workdps(40):
        want = np.array([float(mpmath.mpf(str(base)) ** (-mpmath.mpf(2 * i) / rot)) for i in range(rot // 2)])
    np.testing.assert_array_less(np.abs(inv_freq - want) / want, theta_tolerance(want))


def test_ntk_base_is_the_double_upstream_forms():
    # RotaryEmbedding: base *= base_rescale_factor ** (dim / (dim - 2)), in Python floats.
    assert Decimal(adapt.NTK_BASE) == Decimal(10000. * 2. ** (32 / 30))


def test_bf16_activations_round_the_float32_rotation_once():
    kernel = adapt.Rotary(32)
    x = torch.from_numpy(inputs(64, len(POSITIONS))).to(torch.bfloat16)
    positions = torch.from_numpy(POSITIONS)
    y = kernel(x, positions, None)
    assert y.dtype == torch.bfloat16
    assert torch.equal(y, kernel(x.float(), positions, None).to(torch.bfloat16))


def test_module_cast_to_bf16_rounds_the_positions():
    """The bf16-module row computes what a model.to(torch.bfloat16) computes: positions 256 and 257
    become the same bf16 number, so they get the same rotation."""
    kernel = adapt.Rotary(32, module_dtype=torch.bfloat16)
    x = torch.ones(1, 2, 1, 64, dtype=torch.bfloat16)
    y = kernel(x, torch.tensor([256, 257]), None)
    assert torch.equal(y[0, 0], y[0, 1])


def zeta(d):
    return (2 * np.arange(d // 2) + 0.4 * d) / (1.4 * d)


XPOS_POSITIONS = np.array([0, 1, 7, 300, 1000, 4095])


def xpos_tolerance(positions, factors, scale_base=512):
    """Upstream's zeta rounds up to four times in float32 (0.4d, 2i + 0.4d, 1.4d, the quotient) and
    pow raises it to n/scale_base, then pow itself and the product with x * cos (and the
    reciprocal for keys) round: a relative (4 |n|/scale_base + 4) u of the factor, on top of the
    rotation's own error scaled by the factor."""
    n = np.abs(positions)[None, :, None, None] / scale_base
    return (ROTATION_ATOL + 4 * (4 * n + 4) * U) * factors


@pytest.mark.parametrize("key", [False, True])
def test_xpos_scales_each_pair_by_zeta_to_the_position_over_scale_base(key):
    d = rot = 32
    kernel = adapt.Rotary(rot, xpos=True, key=key)
    x = inputs(d, len(XPOS_POSITIONS))
    rotated = rotate_interleaved(x, upstream_angles(kernel, XPOS_POSITIONS), rot)
    exponent = (-1 if key else 1) * XPOS_POSITIONS[:, None] / 512
    factors = np.repeat(zeta(rot)[None, :] ** exponent, 2, axis=1)[None, :, None, :]
    want = rotated * factors
    assert np.all(np.abs(call(kernel, x, XPOS_POSITIONS) - want) <= xpos_tolerance(XPOS_POSITIONS, factors))


def test_xpos_factor_does_not_follow_the_other_positions_of_the_call():
    """RotaryEmbedding centres xPos on the call's largest position; the adapter cancels that, so a
    token's output is the same alone and beside a far position."""
    kernel = adapt.Rotary(32, xpos=True)
    x = inputs(32, 2)[:1]
    alone = call(kernel, x[:, :1], np.array([5]))
    beside = call(kernel, x, np.array([5, 4000]))
    np.testing.assert_array_equal(alone[:, 0], beside[:, 0])


# The published series (ofirpress/attention_with_linear_biases): 2^(-8h/n) for n a power of two;
# for 12 heads the 8-head series, then every other slope of the 16-head one.
SLOPE_EXPONENTS = {8: [-h for h in range(1, 9)],
                   12: [-h for h in range(1, 9)] + [-0.5, -1.5, -2.5, -3.5]}


@pytest.mark.parametrize("heads", sorted(SLOPE_EXPONENTS))
def test_alibi_slopes_are_the_published_series_correctly_rounded(heads):
    slopes = AlibiPositionalBias(heads).slopes.flatten().numpy()
    with mpmath.workdps(40):
        for slope, exponent in zip(slopes, SLOPE_EXPONENTS[heads], strict=True):
            exact = mpmath.mpf(2) ** mpmath.mpf(exponent)
            assert abs(mpmath.mpf(float(slope)) - exact) <= mpmath.mpf(float(np.spacing(slope))) / 2


@pytest.mark.parametrize("heads", sorted(SLOPE_EXPONENTS))
def test_alibi_bias_is_minus_slope_times_distance(heads):
    queries = np.array([0, 5, 100, 2**24 + 3, 2**31 - 1])
    keys = np.array([3, 5, 0, 2**31 - 1, 7, 2**24 + 1])
    bias = adapt.Alibi(heads)(torch.from_numpy(queries), torch.from_numpy(keys), None).numpy()
    slopes = 2.0 ** np.array(SLOPE_EXPONENTS[heads])[:, None, None]
    want = -np.abs(keys[None, None, :] - queries[None, :, None]).astype(np.float64) * slopes
    assert bias.shape == (heads, len(queries), len(keys))
    # The slope's rounding, the distance's rounding to float32 (past 2^24) and the product's.
    np.testing.assert_allclose(bias, want, rtol=3 * U, atol=0)


def buckets_from_edges(distance, edges, exact_below):
    """The bucket of each distance >= 0: itself below exact_below, else exact_below plus the number
    of edges (each bucket's first distance) past the first that it reaches."""
    return np.where(distance < exact_below, distance, exact_below - 1 + np.searchsorted(edges, distance, side="right"))


# The first distance of each logarithmic bucket, from T5's definition (notes: 32 buckets,
# max_distance 128): bidirectional buckets 8..15 (per side), causal buckets 16..31.
BIDIRECTIONAL_EDGES = np.array([8, 12, 16, 23, 32, 46, 64, 91])
CAUSAL_EDGES = np.array([16, 19, 21, 24, 27, 31, 35, 40, 46, 52, 59, 67, 77, 87, 99, 113])
RELATIVE = np.concatenate([np.arange(-300, 301), [-(2**31 - 1), 2**31 - 1, -70000, 70000]])


def t5_buckets(relative, causal):
    if causal:
        return buckets_from_edges(np.maximum(-relative, 0), CAUSAL_EDGES, 16)
    return buckets_from_edges(np.abs(relative), BIDIRECTIONAL_EDGES, 8) + 16 * (relative > 0)


@pytest.mark.parametrize("causal", [False, True])
def test_t5_bucket_of_key_minus_query(causal):
    queries = np.array([0, 2**31 - 1])
    keys = np.concatenate([RELATIVE[np.abs(RELATIVE) < 2**31 - 1], [2**31 - 1]])
    buckets = adapt.T5Bucket(causal, 32, 128)(torch.from_numpy(queries), torch.from_numpy(keys), None)
    assert buckets.dtype == torch.int32
    want = t5_buckets(keys[None, :] - queries[:, None], causal)
    np.testing.assert_array_equal(buckets.numpy(), want)


@pytest.mark.parametrize("d", [64, 512])
def test_sinusoid_is_sin_then_cos_of_base_to_the_minus_i_over_half_times_d_to_the_minus_half(d):
    base = 10000
    positions = np.array([0, 1, 7, 4095, 100000, 2**24 + 1])
    table = adapt.Sinusoid(d, base)(torch.from_numpy(positions), None).numpy()
    inv_freq = ScaledSinusoidalEmbedding(d, theta=base).inv_freq.numpy()
    want_theta = float(base) ** -(np.arange(d // 2) / (d // 2))
    np.testing.assert_array_less(np.abs(inv_freq - want_theta) / want_theta, theta_tolerance(want_theta))
    # The angle is upstream's (float32 position times the float32 frequency); torch's float32 sin
    # and cos are within an ulp or two, and the scale d^-0.5 (the module as initialised) one more.
    angles = (positions.astype(np.float32)[:, None] * inv_freq[None, :]).astype(np.float64)
    want = np.concatenate([np.sin(angles), np.cos(angles)], axis=1) * d ** -0.5
    np.testing.assert_allclose(table, want, rtol=0, atol=6 * U * d ** -0.5)


@pytest.mark.parametrize("dtype, unit", [(torch.float32, U), (torch.bfloat16, 2.0 ** -8)])
def test_absolute_embedding_is_the_tables_rows_times_d_to_the_minus_half(dtype, unit):
    rows, d = 1024, 512
    table = torch.from_numpy(np.random.default_rng(3).uniform(-2, 2, size=(rows, d)).astype(np.float32)).to(dtype)
    positions = np.array([[0, rows - 1, 5, 5, 700], [3, 2, 1, 0, rows - 2]], dtype=np.int64)
    got = adapt.Absolute()(table, torch.from_numpy(positions), None)
    assert got.dtype == dtype and tuple(got.shape) == (2, 5, d)
    want = table.double().numpy()[positions] * d ** -0.5
    np.testing.assert_allclose(got.double().numpy(), want, rtol=2 * unit, atol=0)
    assert not np.array_equal(got.double().numpy(), table.double().numpy()[positions]), "the scale must apply"


def test_every_row_spec_is_canonical():
    peconform = pytest.importorskip("peconform", reason="peconform's Python module is not on PYTHONPATH")
    for row in adapt.rows():
        assert peconform.Spec(row.spec).canonical == row.spec
        for column in row.columns:
            peconform.Spec(column.spec_text(row.spec))
