"""adapt_flash_attn.py's callables, run through Triton's GPU-faithful interpreter, equal bit for
bit the float32 rotation of x (widened) by the tables they hand apply_rotary (transformers' cos and
sin, widened to float32 too), rounded once to x's dtype: transformers' apply_rotary_pos_emb for
NeoX pairs, x[2i] * c - x[2i+1] * s and x[2i] * s + x[2i+1] * c for interleaved ones (the kernel's
own order, each product and sum rounded to float32); every batch row at its own positions (through
seqlen_offsets, or cu_seqlens with two sequences per batch row), up to 2^31 - 1; the dims past a
partial rotary's rot unchanged; in place, x itself written; x in any memory order. The launches are
flash-attn's grid, one program per 2 heads, 8 tokens (4 above 128 rotary dims) and sequence. Each
float32 row's spec is what its kernel computes at small positions
(triton_adapter_tests.assert_computes_its_spec). Run in the triton upstream venv: `python -m pytest
tools/upstream/test_flash_attn.py` (its first run has pip fetch the pinned sdist).
"""
import math

import pytest

from triton_adapter_tests import assert_computes_its_spec, gpu_faithful_or_skip

gpu_faithful_or_skip("transformers")
import peconform  # noqa: E402
import peconform.triton  # noqa: E402
import torch  # noqa: E402
from transformers.models.llama.modeling_llama import apply_rotary_pos_emb  # noqa: E402

import adapt_flash_attn  # noqa: E402

POSITIONS = torch.tensor([[0, 1, 7, 4095, 2**24 + 1, 2**31 - 1, 9, 10, 11],
                          [5, 3, 70000, 8191, 2**24, 100, 2, 1, 0]])
HEADS = 3
DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}


def float32_rotation(x, cos, sin, interleaved):
    """x [batch, seq, heads, d] rotated in float32 over the tables' rot dims ([batch, seq, rot],
    transformers' repeated halves), the rest passed through, rounded once to x's dtype."""
    rot = cos.shape[-1]
    q = x.float().transpose(1, 2)
    cos, sin = cos.float(), sin.float()
    if interleaved:
        c, s = cos[:, None, :, : rot // 2], sin[:, None, :, : rot // 2]
        even, odd = q[..., 0:rot:2], q[..., 1:rot:2]
        rotated = torch.stack([even * c - odd * s, even * s + odd * c], dim=-1).flatten(-2)
    else:
        rotated, _ = apply_rotary_pos_emb(q[..., :rot], q[..., :rot], cos, sin)
    return torch.cat([rotated, q[..., rot:]], dim=-1).transpose(1, 2).to(x.dtype)


def x_for(spec, dtype, seed, order=(0, 1, 2, 3)):
    """x [batch, seq, heads, d] laid out in memory in `order` (a permutation of its dims)."""
    shape = (*POSITIONS.shape, HEADS, spec.d)
    generator = torch.Generator().manual_seed(seed)
    laid_out = torch.rand(*(shape[i] for i in order), generator=generator) * 4 - 2
    return laid_out.permute(*(order.index(i) for i in range(4))).to(dtype)


@pytest.mark.parametrize("row", adapt_flash_attn.rows(), ids=lambda r: r.key)
def test_rotates_in_float32_bit_for_bit(row):
    fn = row.kernel()
    dtype = DTYPES[row.key.rsplit("/", 1)[1]]
    for column in [c for c in row.columns if c.execution == "gpu-faithful"]:
        spec = peconform.Spec(column.spec_text(row.spec))
        x = x_for(spec, dtype, seed=len(column.name))
        before = x.clone()
        y = fn(x, POSITIONS, spec)
        if column.place == "in":
            assert y is None
            y = x
        else:
            assert torch.equal(x, before)
        cos, sin = fn.tables(POSITIONS, dtype if spec.cache == "storage" else torch.float32)
        assert y.dtype == dtype and torch.equal(y, float32_rotation(before, cos, sin, fn.interleaved)), column.name
        if spec.rotary_dims < spec.d:
            assert torch.equal(y[..., spec.rotary_dims:], before[..., spec.rotary_dims:])


@pytest.mark.parametrize("order", [(2, 0, 3, 1), (3, 1, 0, 2)], ids=["hbds", "dsbh"])
def test_any_memory_order(order):
    row = adapt_flash_attn.rows()[0]
    spec = peconform.Spec(row.columns[1].spec_text(row.spec))
    x = x_for(spec, torch.float32, 4, order)
    assert not x.is_contiguous()
    y = row.kernel()(x, POSITIONS, spec)
    assert torch.equal(y, row.kernel()(x.contiguous(), POSITIONS, spec))


def launches(key):
    """Programs flash-attn's grid launches for one call at POSITIONS' shape and HEADS heads."""
    row = next(r for r in adapt_flash_attn.rows() if r.key == key)
    spec = peconform.Spec(row.spec)
    before = peconform.triton.programs_launched()
    row.kernel()(x_for(spec, torch.float32, 5), POSITIONS, spec)
    return peconform.triton.programs_launched() - before


def test_the_kernel_launches_flash_attns_grid():
    batch, seq = POSITIONS.shape
    assert launches("neox/llama-3.1-8b/fp32") == batch * math.ceil(seq / 8) * math.ceil(HEADS / 2)
    # Varlen: seq 9 cuts into sequences of 5 and 4; the grid spans max_seqlen 5, one block each.
    assert launches("varlen/qwen2-7b/fp32") == 2 * batch * math.ceil(HEADS / 2)



@pytest.mark.parametrize("row", [r for r in adapt_flash_attn.rows() if r.key.endswith("/fp32")], ids=lambda r: r.key)
def test_each_rows_spec_is_what_its_kernel_computes(row):
    assert_computes_its_spec(row)
