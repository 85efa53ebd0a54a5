"""adapt_torchtune.py's callables rotate as the row's spec says: their output equals a NumPy
float64 rotation of interleaved pairs (2i, 2i+1) at float32 angles formed from torchtune's own
frequencies (the module's theta buffer), at positions past 2^24 and up to 2^31 - 1 too; and the
cache rebuilt over chosen positions holds, bit for bit, the rows torchtune's own cache over
arange(max_seq_len) holds at them. The vision rows rotate a real tile exactly as the module's
own forward does, and each axis's pairs at fl(fl(c - 1) + 1) theta elsewhere. Run in the shared
upstream venv:
`python -m pytest tools/upstream/test_torchtune.py`.
"""
import numpy as np
import pytest

pytest.importorskip("torchtune", reason="torchtune is not installed (tools/upstream/requirements/torchtune.txt)")
import torch  # noqa: E402
from torchtune.modules import RotaryPositionalEmbeddings, VisionRotaryPositionalEmbeddings  # noqa: E402

import adapt_torchtune  # noqa: E402
from campaign_positions import ArangeGives  # noqa: E402

POSITIONS = [0, 1, 7, 4095, 8191, 2**24 - 1, 2**24 + 1, 2**24 + 3, 2**31 - 1]
BATCH, HEADS = 2, 3
# torchtune's cos and sin are float32 within 2 ulp below 1 (2^-23 absolute); each times |a| or
# |b| <= 2, the two products and the sum one float32 rounding (2^-24 relative) each of terms
# <= 4: 4 * (2^-23 + 3 * 2^-24) < 2^-19.
TOLERANCE = 2.0**-19


def interleaved_rotation(x, positions, theta):
    """x [batch, seq, heads, d] rotated in float64 on pairs (2i, 2i+1) by float32(p) * theta
    rounded to float32, as torchtune's einsum forms the angle."""
    angles = (positions.astype(np.float32)[:, None] * theta.astype(np.float32)[None, :]).astype(np.float64)
    cos, sin = np.cos(angles)[None, :, None, :], np.sin(angles)[None, :, None, :]
    a, b = x[..., 0::2].astype(np.float64), x[..., 1::2].astype(np.float64)
    y = np.empty(x.shape)
    y[..., 0::2] = a * cos - b * sin
    y[..., 1::2] = b * cos + a * sin
    return y


TEXT_ROWS = [r for r in adapt_torchtune.rows() if r.family == "rope"]
VISION_ROWS = [r for r in adapt_torchtune.rows() if r.family == "rope2d"]


@pytest.mark.parametrize("row", TEXT_ROWS, ids=lambda r: r.key)
def test_rotates_interleaved_pairs_at_any_position(row):
    fn = row.kernel()
    d = int(row.spec.split("d=")[1].split(",")[0])
    rng = np.random.default_rng(5)
    x = rng.uniform(-2, 2, size=(BATCH, len(POSITIONS), HEADS, d)).astype(np.float32)
    positions = np.array(POSITIONS, dtype=np.int64)
    # One position row for the whole batch, as peconform may pass it; the adapter broadcasts it.
    y = fn(torch.from_numpy(x), torch.from_numpy(positions[None, :]), None).numpy()
    want = interleaved_rotation(x, positions, fn.module.theta.numpy())
    assert y.shape == x.shape and y.dtype == np.float32
    np.testing.assert_allclose(y, want, rtol=0, atol=TOLERANCE)


def test_rebuilt_cache_holds_the_full_cache_rows():
    full = RotaryPositionalEmbeddings(dim=16, max_seq_len=5000)
    chosen = torch.tensor([0, 3, 4, 1023, 4097, 4999])
    rebuilt = RotaryPositionalEmbeddings(dim=16, max_seq_len=1)
    adapt_torchtune.cache_over(rebuilt, chosen)
    assert torch.equal(rebuilt.cache, full.cache[chosen])


def test_arange_positions_past_2_24_round_as_the_conversion_does():
    """Past 2^24 the cache's float32 positions are arange's rounding of each integer; the rebuilt
    cache converts with int64 -> float32, which rounds each integer the same way (to nearest even)."""
    n = 2**24 + 8
    tail = torch.arange(n - 8, n)
    assert torch.equal(torch.arange(n, dtype=torch.float32)[-8:], tail.to(torch.float32))


def test_other_arange_calls_run_as_usual():
    with ArangeGives(torch.tensor([5, 9])) as gives:
        steps = torch.arange(0, 8, 2)
        same_length = torch.arange(2)  # a plain 2, not the count handed out: never answered
        given = torch.arange(gives.count, dtype=torch.float32)
    assert steps.tolist() == [0, 2, 4, 6] and same_length.tolist() == [0, 1]
    assert given.dtype == torch.float32 and given.tolist() == [5.0, 9.0] and gives.answered == 1


def row_head_dim(row):
    return int(row.spec.split("d=")[1].split(",")[0])


@pytest.mark.parametrize("row", VISION_ROWS, ids=lambda r: r.key)
def test_vision_rows_rotate_a_real_tile_as_the_module_does(row):
    """A 5 x 5 patch tile with the CLS token last, as clip_vision_encoder(use_rope=True) runs it:
    patch s at (s % 5 + 1, s // 5 + 1), the CLS slot at (0, 0); the module's own forward over its
    own cache, bit for bit, in float32 and bf16."""
    d = row_head_dim(row)
    module = VisionRotaryPositionalEmbeddings(patch_size=14, tile_size=70, max_num_tiles=1, dim=d // 2)
    patches = torch.arange(25)
    positions = torch.stack([torch.cat([patches % 5 + 1, torch.tensor([0])]), torch.cat([patches // 5 + 1, torch.tensor([0])])])
    rng = np.random.default_rng(9)
    for dtype in (torch.float32, torch.bfloat16):
        x = torch.from_numpy(rng.uniform(-2, 2, size=(BATCH, 26, HEADS, d)).astype(np.float32)).to(dtype)
        with torch.no_grad():
            assert torch.equal(row.kernel()(x, positions, None), module(x))


def float32_patch_positions(coordinates):
    """The module's position of coordinate c: its float32 patch coordinate c - 1, plus 1 in float32."""
    return ((coordinates - 1).astype(np.float32) + np.float32(1)).astype(np.float32)


@pytest.mark.parametrize("row", VISION_ROWS, ids=lambda r: r.key)
def test_vision_rows_turn_each_axis_by_its_own_coordinate(row):
    """Each token's first d/4 pairs turn by its first coordinate, the rest by its second, on
    interleaved pairs at float32 angles fl(fl(c - 1) + 1) * theta_k, theta_k = torchtune's
    1/10000**(2k/(d/2)); coordinate 0 (the CLS slot's) turns by 0 whatever the other axis holds,
    and past 2^24 the position rounds twice."""
    d = row_head_dim(row)
    first = np.array([0, 1, 0, 7, 2**24 + 2, 2**25 + 3, 2**31 - 1, 5], dtype=np.int64)
    second = np.array([0, 0, 9, 1, 3, 2**31 - 1, 2**25 + 3, 2**24 + 2], dtype=np.int64)
    theta = VisionRotaryPositionalEmbeddings(patch_size=1, tile_size=1, max_num_tiles=1, dim=d // 2).theta.numpy()
    rng = np.random.default_rng(13)
    x = rng.uniform(-2, 2, size=(BATCH, len(first), HEADS, d)).astype(np.float32)
    y = row.kernel()(torch.from_numpy(x), torch.from_numpy(np.stack([first, second])), None).numpy()
    quarter = d // 4
    want = np.concatenate([
        interleaved_rotation(x[..., :2 * quarter], float32_patch_positions(first), theta),
        interleaved_rotation(x[..., 2 * quarter:], float32_patch_positions(second), theta),
    ], axis=-1)
    # Coordinate 0 is the CLS slot: angle 0 (fl(-1 + 1) = 0 too, so the formula agrees).
    np.testing.assert_allclose(y, want, rtol=0, atol=TOLERANCE)
    # The twice-rounded position is what the module holds: 2^25 + 3 turns by 2^25, not 2^25 + 4.
    assert float32_patch_positions(np.array([2**25 + 3]))[0] == 2**25
