"""The rotary adapters move x between peconform's layout and transformers' and cut the head where each
model does: their output equals a NumPy rotation built from the spec each config was read to by
hand (fixtures/hf-configs/NAME/expected.json: layout, rot, rot_at) and from the upstream module's
own frequencies. Runs where transformers is installed (the environment tools/upstream-conformance.sh makes):
`python -m pytest tools/upstream/test_transformers.py`; skips elsewhere.
"""
import json
import re

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers", reason="transformers is not installed (tools/upstream/requirements/transformers.txt)")

from adapt_transformers import MODELS, UpstreamRotary  # noqa: E402

POSITIONS = [0, 1, 7, 4095, 4096, 100000]
BATCH, HEADS = 2, 3


def expected_spec(model):
    expected = json.loads((model.config_dir / "expected.json").read_text())["expected"]
    return expected[model.layer_type] if model.layer_type else expected


def spec_keys(text):
    """The top-level keys of a canonical spec text (enough of it for d, rot, rot_at and layout)."""
    inner = text[text.index("(") + 1:-1]
    keys, depth, start = {}, 0, 0
    for i, char in enumerate(inner + ","):
        depth += char in "([" and 1 or char in ")]" and -1 or 0
        if char == "," and depth == 0:
            key, _, value = inner[start:i].partition("=")
            keys[key] = value
            start = i + 1
    return keys


def numpy_rotation(x, positions, spec_text, inv_freq, attention):
    """x [batch, seq, heads, d] rotated in float64 by the spec's pairing, with upstream's float32
    angles (inv_freq @ position in float32, as transformers forms them) and attention factor."""
    keys = spec_keys(spec_text)
    d = int(keys["d"])
    rot = int(keys.get("rot", d))
    start = d - rot if keys.get("rot_at") == "last" else 0
    angles = (positions.astype(np.float32)[:, None] * inv_freq.astype(np.float32)[None, :]).astype(np.float64)
    cos, sin = attention * np.cos(angles), attention * np.sin(angles)  # [seq, pairs]
    half = rot // 2
    pairs = np.arange(half)
    layout = keys["layout"]
    read_a = start + (2 * pairs if layout in ("interleaved", "interleaved-to-half") else pairs)
    read_b = read_a + 1 if layout in ("interleaved", "interleaved-to-half") else read_a + half
    write_a = start + (2 * pairs if layout == "interleaved" else pairs)
    write_b = write_a + 1 if layout == "interleaved" else write_a + half
    y = x.astype(np.float64).copy()
    a, b = x[..., read_a].astype(np.float64), x[..., read_b].astype(np.float64)
    c, s = cos[None, :, None, :], sin[None, :, None, :]
    y[..., write_a] = a * c - b * s
    y[..., write_b] = b * c + a * s
    return y


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.key)
def test_adapter_rotates_as_the_spec_pairs(model):
    fn = UpstreamRotary(model.config_dir, model.layer_type or None)
    spec_text = expected_spec(model)
    d = int(spec_keys(spec_text)["d"])
    rng = np.random.default_rng(21)
    x = rng.uniform(-2, 2, size=(BATCH, len(POSITIONS), HEADS, d)).astype(np.float32)
    positions = np.array(POSITIONS, dtype=np.int64)
    y = fn(torch.from_numpy(x), torch.from_numpy(positions), None).numpy()
    q = torch.from_numpy(x).permute(0, 2, 1, 3)
    position_ids = torch.from_numpy(positions).reshape(1, -1).expand(BATCH, -1)
    inv_freq, attention = fn.frequencies(q, position_ids)
    want = numpy_rotation(x, positions, spec_text, inv_freq.numpy(), attention)
    assert y.shape == x.shape
    # The angles are the same float32 values; upstream then rounds cos, sin, their product with
    # the attention factor, both products with x and the sum in float32: six roundings of at most
    # 2^-24 of terms below |a| + |b| <= 4 times the attention factor.
    np.testing.assert_allclose(y, want, rtol=0, atol=6 * 2.0**-24 * 4 * max(attention, 1.0))


def test_spec_keys_reads_nested_plans():
    keys = spec_keys("rope(d=192,base=10000,layout=interleaved-to-half,rot=64,rot_at=last,scaling=yarn(factor=40,orig=4096))")
    assert keys["d"] == "192" and keys["rot"] == "64" and keys["rot_at"] == "last"
    assert keys["scaling"] == "yarn(factor=40,orig=4096)"
    assert re.fullmatch(r"\w+", keys["layout"].replace("-", ""))


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.key)
def test_a_bf16_call_rounds_in_bf16(model):
    """The bf16 column's recipe (cache=storage,math=storage) is what upstream does with bf16 x; an
    adapter that widened x to float32 and rounded the result once would hide it. Rounding each
    product and the sum in bf16 departs from the once-rounded float32 result in some elements;
    OLMo 2, which rotates in float32 (bf16_in_float32), gives that result exactly."""
    fn = UpstreamRotary(model.config_dir, model.layer_type or None)
    d = int(spec_keys(expected_spec(model))["d"])
    rng = np.random.default_rng(22)
    x = torch.from_numpy(rng.uniform(-2, 2, size=(BATCH, len(POSITIONS), HEADS, d)).astype(np.float32)).bfloat16()
    positions = torch.tensor(POSITIONS, dtype=torch.int64)
    y = fn(x, positions, None)
    assert y.dtype == torch.bfloat16
    widened = fn(x.float(), positions, None).bfloat16()
    assert torch.equal(y, widened) if model.bf16_in_float32 else (y != widened).any()


def test_a_model_cast_to_bf16_rotates_with_a_bf16_inv_freq():
    """The module-bf16 row is the rotary module after model.to(torch.bfloat16): its float32 result
    is the rotation by float32 angles of the bf16-rounded inv_freq (and not of the float32 one)."""
    model = next(m for m in MODELS if m.cast_to_bf16)
    fn = UpstreamRotary(model.config_dir, model.layer_type or None, cast_to_bf16=True)
    plain = UpstreamRotary(model.config_dir, model.layer_type or None)
    spec_text = expected_spec(model)
    d = int(spec_keys(spec_text)["d"])
    x = np.random.default_rng(23).uniform(-2, 2, size=(BATCH, len(POSITIONS), HEADS, d)).astype(np.float32)
    positions = np.array(POSITIONS, dtype=np.int64)
    y = fn(torch.from_numpy(x), torch.from_numpy(positions), None).numpy()
    q = torch.from_numpy(x).permute(0, 2, 1, 3)
    inv_freq, attention = plain.frequencies(q, torch.from_numpy(positions).reshape(1, -1).expand(BATCH, -1))
    rounded = inv_freq.to(torch.bfloat16).float().numpy()
    assert not np.array_equal(rounded, inv_freq.numpy())
    np.testing.assert_allclose(y, numpy_rotation(x, positions, spec_text, rounded, attention), rtol=0, atol=6 * 2.0**-24 * 4)
    assert np.max(np.abs(y - numpy_rotation(x, positions, spec_text, inv_freq.numpy(), attention))) > 0.1
