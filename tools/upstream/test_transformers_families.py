"""The adapters of adapt_transformers_families.py against computations of our own from each
scheme's definition (docs/specs.md, ../shared/notes/variants.md) and upstream's own frequencies:
they must hand upstream the campaign's positions and lay its output out as the row's spec says.
Run in the shared upstream venv:
`PYTHONPATH=build/release/python:tools/upstream python -m pytest tools/upstream/test_transformers_families.py`.
"""
import math

import numpy as np
import pytest

pytest.importorskip("transformers", reason="the transformers adapters need transformers (tools/upstream/requirements/transformers.txt)")
peconform = pytest.importorskip("peconform", reason="needs the peconform module on PYTHONPATH (build/release/python)")
import torch  # noqa: E402

import adapt_transformers_families as families  # noqa: E402
from mrope_sections import mrope_axis  # noqa: E402

U32 = 2.0**-24  # float32's unit roundoff
RNG = np.random.default_rng(7)


def row(key):
    return next(r for r in families.rows() if r.key == key)


def spec_of(key):
    return peconform.Spec(row(key).spec)


# mRoPE

# (t, h, w) rows far apart, so that a pair rotated by the wrong axis is far off.
MROPE_POSITIONS = np.array([[0, 3, 17, 4096, 70000],
                            [5, 1000, 2, 9, 123456],
                            [11, 7, 30000, 655, 1]], dtype=np.int64)


@pytest.mark.parametrize("key,sections,interleaved", [("qwen2-vl-mrope", [16, 24, 24], False),
                                                      ("qwen3-vl-mrope", [24, 20, 20], True)])
def test_mrope_rotates_each_pair_by_its_axis(key, sections, interleaved):
    fn = row(key).kernel()
    d = 128
    x = RNG.uniform(-2, 2, size=(2, MROPE_POSITIONS.shape[1], 3, d)).astype(np.float32)
    positions = np.broadcast_to(MROPE_POSITIONS[:, None, :], (3, 2, MROPE_POSITIONS.shape[1]))
    y = fn(torch.from_numpy(x), torch.from_numpy(positions.copy()), spec_of(key)).numpy()
    inv_freq = fn.rotary.inv_freq.numpy()
    axis = mrope_axis(d // 2, sections, interleaved)
    # Upstream's angle: float32 position times float32 inv_freq, one float32 rounding.
    chosen = MROPE_POSITIONS[axis].T.astype(np.float32)  # [seq, pairs]
    angles = (chosen * inv_freq[None, :]).astype(np.float64)
    c, s = np.cos(angles)[None, :, None, :], np.sin(angles)[None, :, None, :]
    a, b = x[..., : d // 2].astype(np.float64), x[..., d // 2:].astype(np.float64)
    want = np.concatenate([a * c - b * s, b * c + a * s], axis=-1)
    # Upstream rounds cos, sin, both products and the sum in float32 (from the same float32
    # angle): five roundings of terms below |a| + |b| <= 4, and one more for the sin/cos routines.
    np.testing.assert_allclose(y, want, rtol=0, atol=6 * U32 * 4)


def test_vision_rotary_turns_the_first_quarter_pairs_by_h_and_the_second_by_w():
    """rope2d(layout=half) at d = 80: pair k (dims k and k + 40) turns by h for k < 20 and by w
    after, at frequency index k mod 20, with upstream's float32 inv_freq and positions."""
    fn = row("qwen2-vl-vision").kernel()
    d, seq = 80, MROPE_POSITIONS.shape[1]
    x = RNG.uniform(-2, 2, size=(2, seq, 3, d)).astype(np.float32)
    positions = np.broadcast_to(MROPE_POSITIONS[1:, None, :], (2, 2, seq))  # (h, w) far apart
    y = fn(torch.from_numpy(x), torch.from_numpy(positions.copy()), spec_of("qwen2-vl-vision")).numpy()
    inv_freq = fn.rotary.inv_freq.numpy()
    assert inv_freq.shape == (d // 4,)
    chosen = np.concatenate([np.repeat(MROPE_POSITIONS[1:2].T, d // 4, axis=1),
                             np.repeat(MROPE_POSITIONS[2:3].T, d // 4, axis=1)], axis=1).astype(np.float32)
    angles = (chosen * np.tile(inv_freq, 2)[None, :]).astype(np.float64)  # [seq, d/2]
    c, s = np.cos(angles)[None, :, None, :], np.sin(angles)[None, :, None, :]
    a, b = x[..., : d // 2].astype(np.float64), x[..., d // 2:].astype(np.float64)
    want = np.concatenate([a * c - b * s, b * c + a * s], axis=-1)
    np.testing.assert_allclose(y, want, rtol=0, atol=6 * U32 * 4)


@pytest.mark.parametrize("key,config", [("qwen2-vl-mrope", dict(model_type="qwen2_vl", **families.QWEN2_VL)),
                                        ("qwen3-vl-mrope", dict(model_type="qwen3_vl_text", **families.QWEN3_VL))])
def test_mrope_rows_are_what_peconform_reads_from_their_configs(key, config):
    assert peconform.Spec.from_hf_config(config).canonical == row(key).spec


# T5

def exact_bucket(relative, bidirectional, buckets, max_distance):
    """T5's bucket of key - query, with the logarithm's comparison done in integers:
    floor(n·log(r/e)/log(D/e)) >= k exactly when r^n·e^k >= D^k·e^n (e = exact buckets, n = log buckets)."""
    bucket = 0
    if bidirectional:
        buckets //= 2
        bucket = buckets if relative > 0 else 0
        r = abs(relative)
    else:
        r = max(-relative, 0)
    exact = buckets // 2
    if r < exact:
        return bucket + r
    n = buckets - exact
    k = max(k for k in range(n + 1) if r**n * exact**k >= max_distance**k * exact**n)
    return bucket + min(exact + k, buckets - 1)


@pytest.mark.parametrize("key", ["t5-buckets-encoder", "t5-buckets-decoder"])
def test_t5_buckets_are_the_exact_buckets_of_key_minus_query(key):
    spec = spec_of(key)
    bidirectional = spec.keys.get("bidirectional", True)
    queries = np.array([0, 5, 300, 2**31 - 1], dtype=np.int64)
    keys = np.concatenate([np.arange(0, 700), [2**31 - 700, 2**31 - 1]]).astype(np.int64)
    got = row(key).kernel()(torch.from_numpy(queries), torch.from_numpy(keys), spec)
    assert got.dtype == torch.int32 and tuple(got.shape) == (len(queries), len(keys))
    want = [[exact_bucket(int(k) - int(q), bidirectional, spec.keys["buckets"], spec.keys["max_distance"])
             for k in keys] for q in queries]
    np.testing.assert_array_equal(got.numpy(), np.array(want))


def test_t5_sign_convention_is_key_minus_query():
    spec = spec_of("t5-buckets-encoder")
    later_key = row("t5-buckets-encoder").kernel()(torch.tensor([0]), torch.tensor([3]), spec)
    assert int(later_key[0, 0]) == 16 + 3  # rp = +3: the upper half of the 32 buckets


# Shaw (wav2vec2-BERT relative_key)

def test_relative_key_indices_clip_each_side_of_the_query_by_its_own_window():
    spec = spec_of("wav2vec2-bert-relative-key")
    assert (spec.keys["k"], spec.keys["right"]) == (64, 8)
    queries = np.array([0, 100, 2**31 - 1], dtype=np.int64)
    keys = np.concatenate([np.arange(0, 200), [2**31 - 70, 2**31 - 1]]).astype(np.int64)
    got = row("wav2vec2-bert-relative-key").kernel()(torch.from_numpy(queries), torch.from_numpy(keys), spec)
    assert got.dtype == torch.int32 and tuple(got.shape) == (len(queries), len(keys))
    want = [[min(max(int(k) - int(q), -64), 8) + 64 for k in keys] for q in queries]
    np.testing.assert_array_equal(got.numpy(), np.array(want))


# Learned (OPT)

@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_opt_gives_the_tables_rows_at_each_position_bit_for_bit(dtype):
    rows, d = 2048, 768
    table = torch.from_numpy(RNG.uniform(-2, 2, size=(rows, d)).astype(np.float32)).to(dtype)
    positions = np.array([[0, rows - 1, 5, 5, 1000], [2, 1, 0, 7, rows - 2]], dtype=np.int64)
    got = row("opt-learned").kernel()(table, torch.from_numpy(positions), spec_of("opt-learned"))
    assert got.dtype == dtype and torch.equal(got, table[torch.from_numpy(positions)])


def test_relative_key_reads_the_models_own_windows():
    module = row("wav2vec2-bert-relative-key").kernel().module
    assert (module.left_max_position_embeddings, module.right_max_position_embeddings) == (64, 8)


def test_t5_rows_are_what_peconform_reads_from_t5_configs():
    config = dict(model_type="t5", relative_attention_num_buckets=32, relative_attention_max_distance=128)
    assert peconform.Spec.from_hf_config(config).canonical == row("t5-buckets-encoder").spec
    assert peconform.Spec.from_hf_config(dict(config, is_decoder=True)).canonical == row("t5-buckets-decoder").spec


# Sinusoid tables

TABLE_POSITIONS = np.array([0, 1, 2, 7, 100, 1000, 4095, 2, 0], dtype=np.int64)  # any order, repeats


def half_table(angles, odd):
    """[sin..., cos...] over the pairs, with a zero last column for odd d."""
    table = np.concatenate([np.sin(angles), np.cos(angles)], axis=1)
    return np.concatenate([table, np.zeros((len(angles), 1))], axis=1) if odd else table


@pytest.mark.parametrize("key", ["whisper-sinusoids", "speech2text-sinusoids", "speech2text-sinusoids-odd"])
def test_float32_geometric_tables_hold_their_positions_and_layout(key):
    spec = spec_of(key)
    d = spec.d
    got = row(key).kernel()(torch.from_numpy(TABLE_POSITIONS), spec).numpy()
    assert got.shape == (len(TABLE_POSITIONS), d)
    pairs = d // 2
    frequencies = np.exp(-np.arange(pairs) * math.log(10000) / (pairs - 1))
    angles = TABLE_POSITIONS[:, None].astype(np.float64) * frequencies[None, :]
    # Upstream's float32 angle: the step -ln(base)/D rounded (2^-24 relative), k times it rounded
    # (2^-24 of k·|step| <= ln 10^4 < 9.3), exp within 2 ulps and the product with the position
    # rounded: the frequency is within (9.3 + 9.3 + 2 + 1)·2^-24 relative, the angle within 22·2^-24
    # of itself; sin and cos add 2 ulps of a value below 1.
    tolerance = 22 * U32 * np.abs(np.concatenate([angles, angles], axis=1)) + 2 * 2 * U32
    if d % 2:
        tolerance = np.concatenate([tolerance, np.zeros((len(angles), 1))], axis=1)
    assert np.all(np.abs(got - half_table(angles, d % 2)) <= tolerance)


def test_xlnet_table_is_the_modules_own_over_its_own_distances():
    """Over the distances XLNet enumerates itself (klen down to -qlen + 1), the adapter's table is
    the module's, bit for bit."""
    fn = row("xlnet-relative").kernel()
    own = fn.model.relative_positional_encoding(qlen=5, klen=7)[:, 0, :]
    assert torch.equal(fn(torch.arange(7, -5, -1), spec_of("xlnet-relative")), own)


def test_xlnet_table_holds_signed_distances_to_2_31():
    """[sin..., cos...] of distance·10000^(-2i/d) at distances of either sign up to 2^31 - 1: the
    hf table recipe's float32 frequency within 6 u (the exponent's division, pow's ulp, the
    reciprocal), the distance and the product one rounding each, sin and cos 2 ulps."""
    distances = np.array([-2**31 + 1, -70000, -3, 0, 5, 4097, 2**24 + 3, 2**31 - 1], dtype=np.int64)
    got = row("xlnet-relative").kernel()(torch.from_numpy(distances), spec_of("xlnet-relative")).numpy()
    exponents = np.arange(0, 768, 2) / 768
    angles = distances[:, None].astype(np.float64) * np.exp(-exponents * math.log(10000))[None, :]
    tolerance = 8 * U32 * np.abs(np.concatenate([angles, angles], axis=1)) + 2 * 2 * U32
    assert got.shape == (len(distances), 768)
    assert np.all(np.abs(got - half_table(angles, 0)) <= tolerance)


def power_angles(positions, d):
    """p·10000^(-2⌊j/2⌋/d) for every column j (the exponent with d itself, as both builders form it)."""
    exponents = 2 * (np.arange(d) // 2) / d
    return positions[:, None].astype(np.float64) * np.exp(-exponents * math.log(10000))[None, :]


@pytest.mark.parametrize("key", ["distilbert-sinusoids", "distilbert-sinusoids-odd"])
def test_distilbert_table_interleaves_sin_and_cos(key):
    spec = spec_of(key)
    got = row(key).kernel()(torch.from_numpy(TABLE_POSITIONS), spec).numpy()
    angles = power_angles(TABLE_POSITIONS, spec.d)
    want = np.where(np.arange(spec.d) % 2 == 0, np.sin(angles), np.cos(angles))
    # Upstream's float64 angles are within 1e-12 of these up to position 4095; the one float32
    # rounding of a value below 1 is at most 2^-25.
    np.testing.assert_allclose(got, want, rtol=0, atol=U32 / 2 + 1e-12)


def test_marian_table_puts_the_cosines_in_the_second_half():
    spec = spec_of("marian-sinusoids")
    got = row("marian-sinusoids").kernel()(torch.from_numpy(TABLE_POSITIONS), spec).numpy()
    angles = power_angles(TABLE_POSITIONS, spec.d)[:, 0::2]
    # As for DistilBERT: float64 angles, one float32 rounding.
    np.testing.assert_allclose(got, half_table(angles, False), rtol=0, atol=U32 / 2 + 1e-12)


def test_position_hand_off_ends_with_the_call():
    row("distilbert-sinusoids-odd").kernel()(torch.arange(3), spec_of("distilbert-sinusoids-odd"))
    row("whisper-sinusoids").kernel()(torch.arange(3), spec_of("whisper-sinusoids"))
    assert not hasattr(families.modeling_distilbert, "range")
    assert torch.equal(torch.arange(families.PositionCount(3)), torch.tensor([0, 1, 2]))


def test_every_column_spec_parses():
    for r in families.rows():
        for column in r.columns:
            assert peconform.Spec(column.spec_text(r.spec)).family == r.family


@pytest.mark.parametrize("key", ["qwen2-vl-mrope", "qwen3-vl-mrope"])
def test_a_bf16_mrope_call_rounds_in_bf16(key):
    """As test_transformers.py's: rounding each product and the sum in bf16 (the bf16 column's
    math=storage) departs from the float32 result rounded once in some elements."""
    positions = torch.from_numpy(MROPE_POSITIONS).reshape(3, 1, -1)
    x = torch.from_numpy(RNG.uniform(-2, 2, size=(1, MROPE_POSITIONS.shape[1], 2, 128)).astype(np.float32)).bfloat16()
    kernel = row(key).kernel()
    y = kernel(x, positions, spec_of(key))
    assert y.dtype == torch.bfloat16
    assert (y != kernel(x.float(), positions, spec_of(key)).bfloat16()).any()


# ALiBi

def alibi_slopes(heads):
    """The paper's slopes (docs/specs.md, alibi): 2^(-8h/c) for the largest power of two c <= n,
    then every other slope of the 2c series."""
    c = 2 ** int(math.floor(math.log2(heads)))
    return [2.0 ** (-8.0 * (h + 1) / c) for h in range(c)] + [2.0 ** (-4.0 * (2 * k + 1) / c) for k in range(heads - c)]


QUERIES = np.array([3, 4, 5], dtype=np.int64)


@pytest.mark.parametrize("key,heads", [("bloom-alibi-16-fp32", 16), ("bloom-alibi-112-fp32", 112)])
def test_bloom_bias_is_the_slope_times_the_key_position_at_every_query(key, heads):
    # Keys far out (past 2^24) and near 0: the mask's first entry stands for the keys before.
    for first in (0, 7, 2**31 - 20):
        keys = np.arange(first, first + 9, dtype=np.int64)
        bias = row(key).kernel()(torch.from_numpy(QUERIES), torch.from_numpy(keys), spec_of(key)).numpy()
        assert bias.shape == (heads, len(QUERIES), len(keys))
        expected = np.array(alibi_slopes(heads))[:, None, None] * keys[None, None, :].astype(np.float64)
        np.testing.assert_allclose(bias, np.broadcast_to(expected, bias.shape), rtol=8 * U32 * 3, atol=0)


@pytest.mark.parametrize("heads", [32, 24])
def test_mpt_bias_is_the_slope_times_the_distance_back_from_the_last_key(heads):
    key = f"mpt-alibi-{heads}"
    keys = np.arange(1000, 1011, dtype=np.int64)
    bias = row(key).kernel()(torch.from_numpy(QUERIES), torch.from_numpy(keys), spec_of(key)).numpy()
    expected = -np.array(alibi_slopes(heads))[:, None, None] * (keys[-1] - keys)[None, None, :].astype(np.float64)
    np.testing.assert_allclose(bias, np.broadcast_to(expected, bias.shape), rtol=4 * U32, atol=0)


@pytest.mark.parametrize("key,wrong_mode", [("bloom-alibi-16-fp32", "causal"), ("mpt-alibi-24", "key")])
def test_alibi_rows_fail_under_another_mode(key, wrong_mode):
    """The mode is what the row's verdict rests on: held to another one, the same code fails."""
    own = row(key)
    spec = own.columns[0].spec_text(own.spec).replace(f"mode={own.spec.split('mode=')[1].split(',')[0].rstrip(')')}",
                                                     f"mode={wrong_mode}")
    assert f"mode={wrong_mode}" in spec
    result = peconform.check(own.kernel(), spec=spec, array=own.columns[0].array, cases=20, max_failures=1)
    assert not result.conformant


@pytest.mark.parametrize("key,math", [("falcon-alibi-32-bf16", "storage"), ("falcon-alibi-32-fp32", "bf16")])
def test_falcon_alibi_fails_the_float32_arithmetic_recipe(key, math):
    """Falcon rounds its slopes and positions to bf16 and multiplies in bf16, in a bf16 model
    (math=storage) and in a float32 one (math=bf16): held to Bloom's float32 arithmetic (the row's
    column without the math key) the same code fails, so the row's verdict rests on that key."""
    own = row(key)
    spec = own.columns[0].spec_text(own.spec)
    assert f",math={math}" in spec
    result = peconform.check(own.kernel(), spec=spec.replace(f",math={math}", ""), array="torch", cases=20, max_failures=1)
    assert not result.conformant


def test_falcon_alibi_in_a_float32_model_is_bf16_values_in_float32():
    keys = np.arange(300, 340, dtype=np.int64)
    key = "falcon-alibi-32-fp32"
    bias = row(key).kernel()(torch.from_numpy(QUERIES), torch.from_numpy(keys), spec_of(key))
    assert bias.dtype == torch.float32
    assert torch.equal(bias, bias.bfloat16().float()), "every value a bf16 one"
