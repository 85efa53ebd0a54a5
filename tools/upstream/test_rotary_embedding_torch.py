"""The rotary-embedding-torch adapters rotate as the rows' specs say: their output equals a NumPy
float64 rotation built from the spec read by hand (interleaved pairs (2i, 2i+1), the rotated slice
first or last, rope2d's first half of the dims on the first coordinate) and from the library's own
float32 frequencies (`RotaryEmbedding.freqs`), with the float32 angles the library forms.

    cd tools/upstream && PYTHONPATH=<peconform's python dir>:. python -m pytest test_rotary_embedding_torch.py
"""
import decimal
import re

import numpy as np
import pytest

pytest.importorskip("rotary_embedding_torch", reason="rotary-embedding-torch is not installed "
                    "(tools/upstream/requirements/rotary-embedding-torch.txt)")
import torch  # noqa: E402
from rotary_embedding_torch import RotaryEmbedding  # noqa: E402

import adapt_rotary_embedding_torch as adapt  # noqa: E402

# Past 2^24 float32 positions round; 2^31 - 1 is the largest the campaign draws.
POSITIONS = [0, 1, 7, 257, 4095, 4096, 100000, 16777217, 2**31 - 1]
BATCH, HEADS = 2, 3
# The angles are the same float32 values as the library's; it then rounds cos and sin (torch's
# float32 cos and sin: within 2 ulp of 1, 2^-23), both products and the sum in float32: at most
# 2^-23 + 2^-23 + 3 * 2^-24 = 7 * 2^-24 times |a| + |b| <= 4 for x in [-2, 2].
FLOAT32_TOLERANCE = 7 * 2.0**-24 * 4
# A bf16 result: the float32 rotation, then one rounding to bf16: its unit roundoff 2^-8 times
# |y| <= sqrt(a^2 + b^2) <= 2 sqrt(2) < 2.83 for x in [-2, 2].
BF16_TOLERANCE = FLOAT32_TOLERANCE + 2.0**-8 * 2.83


def rotation(x, angles, start=0):
    """x [batch, seq, heads, d] with the interleaved pairs from `start` on turned by angles [seq, pairs]
    (float64 cos and sin of the given angles); the other dims unchanged."""
    y = x.astype(np.float64).copy()
    pairs = angles.shape[-1]
    a_index = start + 2 * np.arange(pairs)
    a, b = x[..., a_index].astype(np.float64), x[..., a_index + 1].astype(np.float64)
    c, s = np.cos(angles)[None, :, None, :], np.sin(angles)[None, :, None, :]
    y[..., a_index] = a * c - b * s
    y[..., a_index + 1] = b * c + a * s
    return y


def float32_angles(positions, freqs):
    """The library's angle: the float32 position times its float32 frequency, rounded to float32."""
    return (np.asarray(positions, dtype=np.float32)[:, None] * freqs[None, :]).astype(np.float64)


def library_freqs(**options):
    return RotaryEmbedding(**options).freqs.detach().numpy()


def draw_x(d, dtype=torch.float32):
    rng = np.random.default_rng(21)
    x = torch.from_numpy(rng.uniform(-2, 2, size=(BATCH, len(POSITIONS), HEADS, d)).astype(np.float32))
    return x.to(dtype)


def run(fn, x, positions=POSITIONS):
    return fn(x, torch.tensor(positions, dtype=torch.int64), None).float().numpy()


@pytest.mark.parametrize("dim", [64, 128])
def test_decode_rotates_each_token_at_its_position(dim):
    x = draw_x(dim)
    want = rotation(x.numpy(), float32_angles(POSITIONS, library_freqs(dim=dim)))
    np.testing.assert_allclose(run(adapt.DecodeRotary(dim=dim), x), want, rtol=0, atol=FLOAT32_TOLERANCE)


@pytest.mark.parametrize("factor", [2.0, 3.0])
def test_decode_interpolation_divides_the_float32_position(factor):
    # get_seq_pos: (0 + fl(p)) / factor in float32, then times the frequency.
    x = draw_x(64)
    scaled = np.asarray(POSITIONS, dtype=np.float32) / np.float32(factor)
    want = rotation(x.numpy(), float32_angles(scaled, library_freqs(dim=64)))
    got = run(adapt.DecodeRotary(dim=64, interpolate_factor=factor), x)
    np.testing.assert_allclose(got, want, rtol=0, atol=FLOAT32_TOLERANCE)


def test_decode_partial_rotary_passes_the_rest_through():
    x = draw_x(64)
    got = run(adapt.DecodeRotary(dim=32), x)
    want = rotation(x.numpy(), float32_angles(POSITIONS, library_freqs(dim=32)))
    np.testing.assert_allclose(got, want, rtol=0, atol=FLOAT32_TOLERANCE)
    assert np.array_equal(got[..., 32:], x.numpy()[..., 32:])


def test_decode_with_different_positions_per_batch_row():
    x = draw_x(64)
    positions = [POSITIONS, POSITIONS[::-1]]
    got = adapt.DecodeRotary(dim=64)(x, torch.tensor(positions), None).numpy()
    freqs = library_freqs(dim=64)
    for b in range(BATCH):
        want = rotation(x.numpy()[b:b + 1], float32_angles(positions[b], freqs))
        np.testing.assert_allclose(got[b:b + 1], want, rtol=0, atol=FLOAT32_TOLERANCE)


def test_decode_in_bf16_takes_the_librarys_bf16_positions():
    """Upstream's get_seq_pos forms positions in x's dtype: in bf16, 257 rounds to 256, so two
    equal tokens at 256 and 257 come out equal. The bf16 column's failures come from there, not
    from the adapter."""
    x = draw_x(64, torch.bfloat16)[:, :1].expand(BATCH, 2, HEADS, 64)
    y = adapt.DecodeRotary(dim=64)(x, torch.tensor([256, 257]), None)
    assert torch.equal(y[:, 0], y[:, 1])
    y32 = adapt.DecodeRotary(dim=64)(x.float(), torch.tensor([256, 257]), None)
    assert not torch.equal(y32[:, 0], y32[:, 1])


@pytest.mark.parametrize("options", [dict(dim=64), dict(dim=64, theta=1_000_000), dict(dim=64, theta_rescale_factor=2.0),
                                     dict(dim=32, freqs_for="pixel")], ids=str)
def test_freqs_path_rotates_at_any_positions(options):
    x = draw_x(options["dim"])
    want = rotation(x.numpy(), float32_angles(POSITIONS, library_freqs(**options)))
    np.testing.assert_allclose(run(adapt.PositionRotary(**options), x), want, rtol=0, atol=FLOAT32_TOLERANCE)


def test_freqs_path_in_bf16_rounds_once_at_the_end():
    x = draw_x(64, torch.bfloat16)
    want = rotation(x.float().numpy(), float32_angles(POSITIONS, library_freqs(dim=64)))
    np.testing.assert_allclose(run(adapt.PositionRotary(dim=64), x), want, rtol=0, atol=BF16_TOLERANCE)


def test_start_index_rotates_the_last_dims():
    x = draw_x(64)
    got = run(adapt.PositionRotary(start_index=32, dim=32), x)
    want = rotation(x.numpy(), float32_angles(POSITIONS, library_freqs(dim=32)), start=32)
    np.testing.assert_allclose(got, want, rtol=0, atol=FLOAT32_TOLERANCE)
    assert np.array_equal(got[..., :32], x.numpy()[..., :32])


def test_axial_turns_the_first_half_by_the_first_coordinate():
    x = draw_x(64)
    xs, ys = POSITIONS, [p // 3 for p in POSITIONS]
    got = adapt.AxialRotary(64)(x, torch.tensor([xs, ys]), None).numpy()
    freqs = library_freqs(dim=32)
    angles = np.concatenate([float32_angles(xs, freqs), float32_angles(ys, freqs)], axis=-1)
    np.testing.assert_allclose(got, rotation(x.numpy(), angles), rtol=0, atol=FLOAT32_TOLERANCE)


def test_pixel_frequencies_are_listed_exactly():
    listed = [decimal.Decimal(v) for v in re.findall(r"[0-9.]+", adapt.pixel_frequencies(32))]
    held = library_freqs(dim=32, freqs_for="pixel")
    assert listed == [decimal.Decimal(float(f)) for f in held]


def test_runs_turn_each_token_by_its_offset_plus_its_index_in_float32():
    """Each run of consecutive positions goes to one call from its first position: the token i of
    a run from o turns by fl(fl(i) + fl(o)) * freqs, which past 2^24 is not fl(o + i); different
    runs per batch row, and gaps, start new calls."""
    runs = np.array([[2**25 + 1, 2**25 + 2, 2**25 + 3, 5, 6, 2**31 - 3, 2**31 - 2, 2**31 - 1],
                     [0, 1, 2, 3, 4, 100, 16777215, 16777216]], dtype=np.int64)
    starts = np.array([[0, 0, 0, 3, 3, 5, 5, 5], [0, 0, 0, 0, 0, 5, 6, 6]])
    x = torch.from_numpy(np.random.default_rng(3).uniform(-2, 2, size=(2, 8, HEADS, 64)).astype(np.float32))
    y = adapt.RunRotary(dim=64)(x, torch.from_numpy(runs), None).numpy()
    freqs = library_freqs(dim=64)
    for b in range(2):
        offsets = runs[b, starts[b]]
        index = np.arange(8) - starts[b]
        positions = index.astype(np.float32) + offsets.astype(np.float32)
        want = rotation(x[b:b + 1].numpy(), float32_angles(positions, freqs))
        np.testing.assert_allclose(y[b:b + 1], want, rtol=0, atol=FLOAT32_TOLERANCE)
    # Token 2 of the run from 2^25 + 1 is at 2^25 + 3, which one rounding takes to 2^25 + 4; the
    # library's fl(fl(2) + fl(2^25 + 1)) = fl(2 + 2^25) is 2^25.
    assert np.float32(2) + np.float32(2**25 + 1) == 2**25 and np.float32(2**25 + 3) == 2**25 + 4


def test_every_row_spec_parses():
    peconform = pytest.importorskip("peconform", reason="peconform's Python module is not on PYTHONPATH")
    for row in adapt.rows():
        for column in row.columns:
            assert peconform.Spec(column.spec_text(row.spec)).family == row.family
