"""adapt_vllm.py's callables rotate as the row's spec says: their output equals a NumPy float64
rotation of the spec's pairs ((i, i + rot/2) for neox style, (2i, 2i+1) for GPT-J style, the dims
past rot passed through) by the cache rows of each token's position, at positions past 2^24 and
up to 2^31 - 1 too, and for the rows without a plan those rows are the cos and sin of float32
angles formed from vLLM's own frequencies; the cache built over chosen positions holds, bit for
bit, the rows vLLM's own full cache holds at them (default, llama3, YaRN, linear and LongRoPE's long
cache, which Phi-3 128k takes below the original length too); and a second
call of the same count at other positions gets its own cache, not get_rope's memoised one. Run in the vllm upstream
venv: `python -m pytest tools/upstream/test_vllm.py`.
"""
import numpy as np
import pytest

pytest.importorskip("vllm", reason="vllm is not installed (tools/upstream/requirements/vllm.txt)")
import torch  # noqa: E402
from vllm.model_executor.layers import rotary_embedding  # noqa: E402

import adapt_vllm  # noqa: E402
from mrope_sections import mrope_axis  # noqa: E402

POSITIONS = [0, 1, 7, 4095, 8191, 2**24 - 1, 2**24 + 1, 2**24 + 3, 2**31 - 1]
# t, h, w positions [3, batch, seq]: the streams differ, the batch rows differ, and they reach 2^31 - 1.
MROPE_POSITIONS = np.array([[[0, 5, 70000, 2**24 + 1, 2**31 - 1], [9, 8, 7, 6, 5]],
                            [[1, 6, 71000, 3, 2**31 - 2], [0, 0, 2, 2, 4]],
                            [[2, 7, 3, 2**24 + 3, 11], [1, 1, 1, 3, 3]]], dtype=np.int64)
BATCH, HEADS = 2, 3
# vLLM's cos and sin are float32 within 2 ulp below 1 (2^-23 absolute); each times |a| or |b| <=
# 2, the two products and the sum one float32 rounding (2^-24 relative) each of terms <= 4:
# 4 * (2^-23 + 3 * 2^-24) < 2^-19.
TOLERANCE = 2.0**-19


def spec_number(row, key):
    return int(row.spec.split(f"{key}=")[1].split(",")[0].rstrip(")")) if f"{key}=" in row.spec else None


def float32_angles(positions, inv_freq):
    """float32(p) * inv_freq rounded to float32, as vLLM's einsum forms the angle, in float64."""
    return (positions.astype(np.float32)[:, None] * inv_freq.astype(np.float32)[None, :]).astype(np.float64)


def numpy_rotation(x, positions, inv_freq, rot, neox):
    """x [batch, seq, heads, d] rotated in float64 by float32(p) * inv_freq rounded to float32."""
    angles = float32_angles(positions, inv_freq)
    return rotation_by(x, np.cos(angles), np.sin(angles), rot, neox)


def rotation_by(x, cos, sin, rot, neox):
    """x [batch, seq, heads, d] rotated in float64 by each token's cos and sin [seq, rot/2]."""
    cos, sin = cos[None, :, None, :], sin[None, :, None, :]
    first = np.arange(rot // 2) if neox else np.arange(0, rot, 2)
    second = first + rot // 2 if neox else first + 1
    y = x.astype(np.float64)
    a, b = y[..., first].copy(), y[..., second].copy()
    y[..., first], y[..., second] = a * cos - b * sin, b * cos + a * sin
    return y


def cache_of(module):
    """The cos/sin rows a token's row index reaches: LongRoPE's long cache, past its short one."""
    if hasattr(module, "long_short_cos_sin_cache"):
        return module.long_short_cos_sin_cache[module.original_max_position_embeddings:]
    return module.cos_sin_cache


@pytest.mark.parametrize("row", [row for row in adapt_vllm.rows() if row.family == "rope"], ids=lambda r: r.key)
def test_rotates_the_specs_pairs_at_any_position(row):
    fn = row.kernel()
    d = spec_number(row, "d")
    rot = spec_number(row, "rot") or d
    rng = np.random.default_rng(5)
    x = rng.uniform(-2, 2, size=(BATCH, len(POSITIONS), HEADS, d)).astype(np.float32)
    positions = np.array(POSITIONS, dtype=np.int64)
    # One position row for the whole batch, as peconform may pass it; the adapter broadcasts it.
    y = fn(torch.from_numpy(x), torch.from_numpy(positions[None, :]), None).numpy()
    module = adapt_vllm.built_over(torch.from_numpy(positions), d, fn.is_neox_style, fn.rope_parameters, torch.float32)
    cos, sin = (half.numpy().astype(np.float64) for half in cache_of(module).chunk(2, dim=-1))
    want = rotation_by(x, cos, sin, rot, "half" in row.spec)
    assert y.shape == x.shape and y.dtype == np.float32
    np.testing.assert_allclose(y, want, rtol=0, atol=TOLERANCE)
    np.testing.assert_array_equal(y[..., rot:], x[..., rot:])
    if "scaling=" not in row.spec:
        # The plain rows' cache: cos and sin (float32, within 2 ulp) of float32 angles.
        angles = float32_angles(positions, module._compute_inv_freq(module.base).numpy())
        np.testing.assert_allclose(cos, np.cos(angles), rtol=0, atol=2.0**-22)
        np.testing.assert_allclose(sin, np.sin(angles), rtol=0, atol=2.0**-22)


@pytest.mark.parametrize("row", [row for row in adapt_vllm.rows() if row.family == "mrope" and "scaling=" not in row.spec],
                         ids=lambda r: r.key)
def test_mrope_rotates_each_pair_by_its_streams_position(row):
    """Each pair turns by the float32 angle of its own stream's position (mrope_sections.mrope_axis
    from the spec's sections), each batch row by its own positions."""
    fn = row.kernel()
    sections = tuple(fn.rope_parameters["mrope_section"])
    d, seq = 128, MROPE_POSITIONS.shape[2]
    x = np.random.default_rng(3).uniform(-2, 2, size=(2, seq, HEADS, d)).astype(np.float32)
    y = fn(torch.from_numpy(x), torch.from_numpy(MROPE_POSITIONS), None).numpy()
    axis = mrope_axis(d // 2, sections, fn.rope_parameters.get("mrope_interleaved", False))
    module = adapt_vllm.built_over(torch.tensor([0]), d, True, fn.rope_parameters, torch.float32)
    inv_freq = module._compute_inv_freq(module.base).numpy().astype(np.float32)
    chosen = MROPE_POSITIONS[axis]  # [pairs, batch, seq]: each pair's stream
    angles = (chosen.astype(np.float32) * inv_freq[:, None, None]).astype(np.float64).transpose(1, 2, 0)[:, :, None, :]
    a, b = x[..., : d // 2].astype(np.float64), x[..., d // 2:].astype(np.float64)
    want = np.concatenate([a * np.cos(angles) - b * np.sin(angles), b * np.cos(angles) + a * np.sin(angles)], axis=-1)
    np.testing.assert_allclose(y, want, rtol=0, atol=TOLERANCE)


def test_mrope_with_yarn_turns_each_pair_by_its_streams_cache_row():
    """With YaRN, each pair turns by the cos and sin (YaRN's frequencies, times its attention
    factor) of its own stream's position, read from the module's cache over the call's positions."""
    row = next(r for r in adapt_vllm.rows() if r.key == "mrope/qwen2.5-vl-7b-yarn")
    fn = row.kernel()
    d, seq = 128, MROPE_POSITIONS.shape[2]
    x = np.random.default_rng(3).uniform(-2, 2, size=(2, seq, HEADS, d)).astype(np.float32)
    y = fn(torch.from_numpy(x), torch.from_numpy(MROPE_POSITIONS), None).numpy()
    distinct = np.unique(MROPE_POSITIONS)
    module = adapt_vllm.built_over(torch.from_numpy(distinct), d, True, fn.rope_parameters, torch.float32)
    cos, sin = (half.numpy().astype(np.float64) for half in module.cos_sin_cache.chunk(2, dim=-1))
    axis = mrope_axis(d // 2, (16, 24, 24), False)
    rows = np.searchsorted(distinct, MROPE_POSITIONS[axis])  # [pairs, batch, seq]
    pairs = np.arange(d // 2)[:, None, None]
    c = cos[rows, pairs].transpose(1, 2, 0)[:, :, None, :]
    s = sin[rows, pairs].transpose(1, 2, 0)[:, :, None, :]
    a, b = x[..., : d // 2].astype(np.float64), x[..., d // 2:].astype(np.float64)
    want = np.concatenate([a * c - b * s, b * c + a * s], axis=-1)
    np.testing.assert_allclose(y, want, rtol=0, atol=TOLERANCE)
    # YaRN's attention factor multiplies the cache: at position 0 cos is that factor, not 1.
    assert cos[0, 0] == pytest.approx(0.1 * np.log(4) + 1, rel=1e-6)


def test_mrope_with_yarn_is_yarn_over_four_times_the_original_length():
    """The finding: MRotaryEmbedding hands YaRN its cache length, 4 x original_max_position_embeddings
    (positions_factor), as the length YaRN's ramp is drawn from. Its frequencies are vLLM's own
    YaRNScalingRotaryEmbedding's at 4 x 32768, not at 32768."""
    def inv_freq(parameters):
        return adapt_vllm.built_over(torch.tensor([0]), 128, True, parameters, torch.float32)._compute_inv_freq(4.0)

    mrope = inv_freq(adapt_vllm.QWEN2_5_VL_YARN)
    plain = {k: v for k, v in adapt_vllm.QWEN2_5_VL_YARN.items() if k != "mrope_section"}
    assert torch.equal(mrope, inv_freq(dict(plain, original_max_position_embeddings=4 * 32768)))
    assert not torch.equal(mrope, inv_freq(plain))


def test_cache_over_chosen_positions_holds_the_full_cache_rows():
    chosen = torch.tensor([0, 3, 4, 1023, 4097, 4999])
    for parameters in ({"rope_theta": 10000.0}, adapt_vllm.LLAMA3_1, adapt_vllm.QWEN2_5_YARN, adapt_vllm.LINEAR_4,
                       adapt_vllm.DEEPSEEK_V3, dict(adapt_vllm.QWEN2_VL, mrope_section=[8, 12, 12]), adapt_vllm.DYNAMIC_2,
                       dict(adapt_vllm.QWEN2_5_VL_YARN, mrope_section=[8, 12, 12], original_max_position_embeddings=1024)):
        rotary_embedding._ROPE_DICT.clear()
        # Dynamic NTK's base depends on max_position: the adapter passes the model's.
        max_position = adapt_vllm.DYNAMIC_MAX_POSITION if parameters.get("rope_type") == "dynamic" else 5000
        with adapt_vllm.set_current_vllm_config(adapt_vllm.CPU_CONFIG):
            full = rotary_embedding.get_rope(64, max_position, True, parameters, torch.float32)
        rebuilt = adapt_vllm.built_over(chosen, 64, True, parameters, torch.float32)
        assert torch.equal(rebuilt.cos_sin_cache, full.cos_sin_cache[chosen])


def test_longrope_cache_over_chosen_positions_holds_the_full_long_cache_rows():
    """Phi-3 128k at max_model_len 131072: the rebuilt long cache holds the full one's rows, and
    positions below the original 4096 take those long rows, not the short cache's."""
    parameters = adapt_vllm.phi3_longrope_parameters()
    chosen = torch.tensor([0, 3, 4095, 4096, 70000, 131071])
    rotary_embedding._ROPE_DICT.clear()
    with adapt_vllm.set_current_vllm_config(adapt_vllm.PHI3_CPU_CONFIG):
        full = rotary_embedding.get_rope(96, adapt_vllm.PHI3_MAX_POSITION, True, parameters, torch.float32)
    rebuilt = adapt_vllm.built_over(chosen, 96, True, parameters, torch.float32)
    assert torch.equal(cache_of(rebuilt), cache_of(full)[chosen])
    assert not torch.equal(cache_of(rebuilt)[:3], full.long_short_cos_sin_cache[chosen[:3]])


def test_each_call_builds_its_own_cache():
    """get_rope memoises by its arguments, and two calls of as many distinct positions pass equal
    counts: the second must still get a cache over its own positions."""
    fn = adapt_vllm.VllmRotary(True, {"rope_theta": 10000.0})
    x = torch.ones(1, 2, 1, 8)
    near = fn(x, torch.tensor([[0, 1]]), None)
    far = fn(x, torch.tensor([[1000, 5000]]), None)
    assert not torch.equal(near, far)
    want = numpy_rotation(x.numpy(), np.array([1000, 5000]), 1 / 10000.0 ** (np.arange(0, 8, 2) / 8), 8, True)
    np.testing.assert_allclose(far.numpy(), want, rtol=0, atol=1e-3)


def test_bf16_rounds_the_cache_and_the_arithmetic_to_bf16():
    """In bf16 the rotation is bf16 arithmetic on a bf16 cache (cache=storage, math=storage): it
    equals x1 * bf16(cos) - x2 * bf16(sin) with each product and the sum rounded to bf16."""
    fn = adapt_vllm.VllmRotary(True, {"rope_theta": 10000.0})
    positions = torch.tensor([[3, 70000, 2**31 - 1]])
    x = torch.from_numpy(np.random.default_rng(9).uniform(-2, 2, size=(1, 3, 2, 16)).astype(np.float32)).to(torch.bfloat16)
    y = fn(x, positions, None)
    module = adapt_vllm.built_over(positions.reshape(-1), 16, True, {"rope_theta": 10000.0}, torch.float32)
    cos, sin = module.cos_sin_cache.to(torch.bfloat16).chunk(2, dim=-1)
    cos, sin = cos[None, :, None, :], sin[None, :, None, :]
    a, b = x[..., :8], x[..., 8:]
    want = torch.cat([a * cos - b * sin, b * cos + a * sin], dim=-1)
    assert y.dtype == torch.bfloat16 and torch.equal(y, want)
