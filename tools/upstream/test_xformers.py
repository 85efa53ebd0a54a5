"""adapt_xformers.py's callables, run through Triton's GPU-faithful interpreter, equal bit for bit
xformers' recipe computed by NumPy in float32: θ_k = powf(theta, fl(2k / -d)), the angle fl(fl(p)
θ_k), cos and sin of it in float32, the pair (a, b) rotated as a c - b s and b c + a s in float32
and rounded once to x's dtype; in both pairings, for the queries read from out_q and the keys read
from their slots of the padded decode cache, every token at its own position up to 2^31 - 1. And
the premise of float32_pow: under the interpreter, xformers' own libdevice_find("pow") gives the
empty declaration, which returns None (triton issue 8825). Each float32 row's spec is what its
kernel computes at small positions (triton_adapter_tests.assert_computes_its_spec). Run in the
triton upstream venv: `python -m pytest tools/upstream/test_xformers.py` (its first run has pip
fetch the pinned wheel).
"""
import numpy as np
import pytest

from triton_adapter_tests import assert_computes_its_spec, gpu_faithful_or_skip

gpu_faithful_or_skip()
import peconform  # noqa: E402
import torch  # noqa: E402

import adapt_xformers  # noqa: E402

POSITIONS = torch.tensor([[0, 1, 4095, 2**24 + 1], [2**31 - 1, 3, 70000, 100]])
HEADS = 2
DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}


def recipe(x, positions, theta, interleaved):
    """xformers' rotation of x [batch, seq, heads, d] in NumPy float32, rounded to x's dtype."""
    d = x.shape[-1]
    k = np.arange(d // 2, dtype=np.float32)
    inv_freq = np.power(np.float32(theta), (k * np.float32(2)) / np.float32(-d))
    angle = positions.numpy().astype(np.float32)[:, :, None, None] * inv_freq
    cos, sin = np.cos(angle), np.sin(angle)
    values = x.float().numpy()
    first = slice(0, d, 2) if interleaved else slice(0, d // 2)
    second = slice(1, d, 2) if interleaved else slice(d // 2, d)
    a, b = values[..., first], values[..., second]
    y = np.empty_like(values)
    y[..., first], y[..., second] = a * cos - b * sin, b * cos + a * sin
    return torch.from_numpy(y).to(x.dtype)


@pytest.mark.parametrize("row", adapt_xformers.rows(), ids=lambda r: r.key)
def test_rotates_by_xformers_float32_recipe_bit_for_bit(row):
    fn = row.kernel()
    dtype = DTYPES[row.key.rsplit("/", 1)[1]]
    spec = peconform.Spec(row.columns[1].spec_text(row.spec))
    generator = torch.Generator().manual_seed(11)
    x = (torch.rand(*POSITIONS.shape, HEADS, spec.d, generator=generator) * 4 - 2).to(dtype)
    y = fn(x, POSITIONS, spec)
    assert y.dtype == dtype and torch.equal(y, recipe(x, POSITIONS, fn.theta, fn.adjacents))


def test_the_interpreters_libdevice_pow_is_an_empty_declaration():
    adapt_xformers.modules()
    from xformers.triton.importing import libdevice_find
    assert libdevice_find("pow")(2.0, 3.0) is None
    import xformers.ops._triton.rope_padded_kernels as kernels
    assert kernels.pow is adapt_xformers.float32_pow



@pytest.mark.parametrize("row", [r for r in adapt_xformers.rows() if r.key.endswith("/fp32")], ids=lambda r: r.key)
def test_each_rows_spec_is_what_its_kernel_computes(row):
    assert_computes_its_spec(row)
