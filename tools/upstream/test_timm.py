"""adapt_timm.py's callables rotate as the row's rope2d spec says: their output equals a NumPy
float64 rotation in which pair j < d/4 turns by the first coordinate times band j and pair
d/4 + j by the second times band j, on pairs (2j, 2j+1) (interleaved) or (j, j + d/2) (half),
at float32 angles from timm's own bands (the module's `bands` buffer), with coordinates past
2^24 and up to 2^31 - 1 too. The embedding the adapter assembles from 1-D grids is, bit for bit,
timm's own embedding of a 2-D grid. Run in the shared upstream venv:
`python -m pytest tools/upstream/test_timm.py`.
"""
import numpy as np
import pytest

pytest.importorskip("timm", reason="timm is not installed (tools/upstream/requirements/timm.txt)")
import torch  # noqa: E402
from timm.layers.pos_embed_sincos import RotaryEmbedding, RotaryEmbeddingCat  # noqa: E402

import adapt_timm  # noqa: E402

POINTS = [(0, 0), (1, 0), (0, 1), (7, 3), (4095, 2), (2**24 + 1, 5), (3, 2**24 + 3), (2**31 - 1, 2**31 - 1)]
BATCH, HEADS = 2, 3
# timm's cos and sin are float32 within 2 ulp below 1 (2^-23 absolute); each times |a| or |b| <= 2,
# the two products and the sum one float32 rounding (2^-24 relative) each of terms <= 4:
# 4 * (2^-23 + 3 * 2^-24) < 2^-19.
TOLERANCE = 2.0**-19
# With the embedding in bf16: sin and cos rounded to bf16 (2^-9 absolute below 1) times |a| + |b|
# <= 4, then each product and the sum rounded to bf16 (2^-9 relative) of terms <= 4, with x
# already bf16: 4 * 2^-9 + 3 * 4 * 2^-9 = 2^-5.
BF16_TOLERANCE = 2.0**-5


def spec_keys(spec):
    return dict(item.split("=") for item in spec[spec.index("(") + 1:-1].split(","))


def axial_rotation(x, points, bands, layout):
    """x [batch, seq, heads, d] rotated in float64 as rope2d: pair j < d/4 by float32(first
    coordinate) * bands[j], pair d/4 + j by float32(second) * bands[j], each angle a float32 product."""
    d = x.shape[-1]
    coordinate = points.astype(np.float32)  # [seq, 2]
    angles = np.concatenate([coordinate[:, :1] * bands, coordinate[:, 1:] * bands], axis=1).astype(np.float64)
    cos, sin = np.cos(angles)[None, :, None, :], np.sin(angles)[None, :, None, :]
    pairs = np.arange(d // 2)
    first = 2 * pairs if layout == "interleaved" else pairs
    second = first + 1 if layout == "interleaved" else pairs + d // 2
    a, b = x[..., first].astype(np.float64), x[..., second].astype(np.float64)
    y = np.empty(x.shape)
    y[..., first] = a * cos - b * sin
    y[..., second] = b * cos + a * sin
    return y


def rotate(row, x):
    fn = row.kernel()
    points = torch.tensor(POINTS, dtype=torch.int64).T[:, None, :]  # [2, 1, seq]
    y = fn(x, points, None)
    assert y.shape == x.shape and y.dtype == x.dtype
    return y.float().numpy(), fn.rope.bands.numpy()


@pytest.mark.parametrize("row", [r for r in adapt_timm.rows() if r.family == "rope2d"], ids=lambda r: r.key)
def test_rotates_as_rope2d_at_any_point(row):
    d = int(spec_keys(row.spec)["d"])
    rng = np.random.default_rng(9)
    x = rng.uniform(-2, 2, size=(BATCH, len(POINTS), HEADS, d)).astype(np.float32)
    y, bands = rotate(row, torch.from_numpy(x))
    want = axial_rotation(x, np.array(POINTS), bands, spec_keys(row.spec)["layout"])
    np.testing.assert_allclose(y, want, rtol=0, atol=TOLERANCE)


def test_bf16_embedding_rotates_as_rope2d():
    row = next(r for r in adapt_timm.rows() if r.key == "rope-cat/d64-bf16-embed")
    rng = np.random.default_rng(10)
    x = torch.from_numpy(rng.uniform(-2, 2, size=(BATCH, len(POINTS), HEADS, 64)).astype(np.float32)).bfloat16()
    y, bands = rotate(row, x)
    want = axial_rotation(x.float().numpy(), np.array(POINTS), bands, "interleaved")
    np.testing.assert_allclose(y, want, rtol=0, atol=BF16_TOLERANCE)


@pytest.mark.parametrize("cls", [RotaryEmbedding, RotaryEmbeddingCat])
@pytest.mark.parametrize("half", [False, True])
def test_assembled_embedding_is_timms_grid_embedding(cls, half):
    """The adapter's sin and cos at the points of a 3 x 5 grid, in timm's row-major order, equal
    get_embed([3, 5]) bit for bit."""
    rope = cls(dim=16, in_pixels=False, rotate_half=half)
    fn = adapt_timm.AxialRotary(rope, cls is RotaryEmbeddingCat)
    rows, cols = torch.meshgrid(torch.arange(3), torch.arange(5), indexing="ij")
    distinct = torch.arange(5)
    sin, cos = fn.line_embed(distinct, None)
    got = (adapt_timm.axial(sin[rows.flatten()], sin[cols.flatten()], half),
           adapt_timm.axial(cos[rows.flatten()], cos[cols.flatten()], half))
    grid = rope.get_embed([3, 5])
    want = grid.chunk(2, dim=-1) if cls is RotaryEmbeddingCat else grid
    assert torch.equal(got[0], want[0]) and torch.equal(got[1], want[1])


def test_the_bf16_embedding_row_rounds_each_step_in_bf16():
    """Its column says cos, sin, each product and the sum round in bf16 (cache=storage,
    math=storage): that departs from the float32 rotation rounded once in some elements, which an
    adapter widening x and the embedding to float32 would give. The plain rows widen as timm does
    (a bf16 x against the float32 embedding) and give exactly that."""
    rng = np.random.default_rng(11)
    x = torch.from_numpy(rng.uniform(-2, 2, size=(BATCH, len(POINTS), HEADS, 64)).astype(np.float32)).bfloat16()
    points = torch.tensor(POINTS, dtype=torch.int64).T[:, None, :]
    embedded = next(r for r in adapt_timm.rows() if r.key == "rope-cat/d64-bf16-embed").kernel()
    assert (embedded(x, points, None) != embedded(x.float(), points, None).bfloat16()).any()
    plain = next(r for r in adapt_timm.rows() if r.spec == "rope2d(d=64,base=10000,layout=interleaved)" and
                 r.key != "rope-cat/d64-bf16-embed").kernel()
    assert torch.equal(plain(x, points, None), plain(x.float(), points, None).bfloat16())


SINCOS_POSITIONS = np.array([0, 1, 5, 1000, 70000, 2**24 + 3], dtype=np.int64)


@pytest.mark.parametrize("key", [r.key for r in adapt_timm.sincos2d_rows()])
def test_sincos2d_axis_rows_are_a_sinusoid_table_of_their_own_axis(key):
    """Each row's columns are [sin(p b_k)..., cos(p b_k)...] at the campaign's positions p on the row's
    axis, b_k = 10000^(-k/192) (the spec's sinusoidal(d=384, layout=half) frequencies), at float32
    angles: the other axis's columns (sin 0, cos 0) or a wrong order fail by far."""
    row = next(r for r in adapt_timm.sincos2d_rows() if r.key == key)
    table = row.kernel()(torch.from_numpy(SINCOS_POSITIONS), None).numpy()
    assert table.shape == (len(SINCOS_POSITIONS), 384)
    bands = 10000.0 ** (-np.arange(192) / 192.0)
    angles = SINCOS_POSITIONS.astype(np.float32)[:, None].astype(np.float64) * bands[None, :]
    expected = np.concatenate([np.sin(angles), np.cos(angles)], axis=1)
    # A float32 band is within 2 ulp of b_k, the float32 angle one more rounding: |phi| 2^-21 + float32 sin/cos.
    tolerance = np.concatenate([angles, angles], axis=1) * 2.0**-21 + 2.0**-22
    assert np.all(np.abs(table - expected) <= tolerance)
