"""adapt_liger_kernel.py's callables, run through Triton's GPU-faithful interpreter, equal bit for
bit transformers' own rotation (modeling_llama.apply_rotary_pos_emb: x * cos + rotate_half(x) *
sin) of x in cos's dtype by the tables transformers' rotary module hands, cast to x's dtype:
float32 tables rotate in float32 and round once, storage-dtype tables round each product and the
sum (the rows' math keys); every batch row at its own positions, up to 2^31 - 1, and the dims past
a partial rotary's rot unchanged. Liger's dispatcher runs its Triton kernel here; Liger writes into
the projection whose transposed view it is handed (FINDINGS.md, found while adapting); and as the
interpreter ships, bf16 tables give NaN (FINDINGS.md, Triton's own). Each float32 row's spec is
what its kernel computes at small positions (triton_adapter_tests.assert_computes_its_spec). Run in
the triton upstream venv: `python -m pytest tools/upstream/test_liger_kernel.py`.
"""
import pytest

from triton_adapter_tests import assert_computes_its_spec, gpu_faithful_or_skip

gpu_faithful_or_skip("liger_kernel", "transformers")
import peconform  # noqa: E402
import peconform.triton  # noqa: E402
import torch  # noqa: E402
from transformers.models.llama.modeling_llama import apply_rotary_pos_emb  # noqa: E402

import adapt_liger_kernel  # noqa: E402

POSITIONS = torch.tensor([[0, 1, 7, 4095, 2**24 + 1, 2**31 - 1], [5, 3, 70000, 8191, 2**24, 100]])
HEADS = 3
DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}


def transformers_rotation(x, cos, sin):
    """x [batch, seq, heads, d] rotated by transformers' apply_rotary_pos_emb in cos's dtype over the
    tables' rot dims, the rest passed through (as Phi's attention cuts them), cast to x's dtype."""
    rot = cos.shape[-1]
    q = x.transpose(1, 2).to(cos.dtype)
    rotated, _ = apply_rotary_pos_emb(q[..., :rot], q[..., :rot], cos, sin)
    return torch.cat([rotated, q[..., rot:]], dim=-1).transpose(1, 2).to(x.dtype)


def x_for(spec, dtype, seed):
    generator = torch.Generator().manual_seed(seed)
    return (torch.rand(*POSITIONS.shape, HEADS, spec.d, generator=generator) * 4 - 2).to(dtype)


@pytest.mark.parametrize("row", adapt_liger_kernel.rows(), ids=lambda r: r.key)
def test_rotates_as_transformers_does_bit_for_bit(row):
    fn = row.kernel()
    dtype = DTYPES[row.key.rsplit("/", 1)[1]]
    for column in [c for c in row.columns if c.execution == "gpu-faithful"]:  # the contrast runs so too
        spec = peconform.Spec(column.spec_text(row.spec))
        x = x_for(spec, dtype, seed=len(column.name))
        y = fn(x, POSITIONS, spec)
        cos, sin = fn.tables(POSITIONS, dtype if spec.cache == "storage" else torch.float32)
        assert y.dtype == dtype and y.shape == x.shape
        assert torch.equal(y, transformers_rotation(x, cos, sin)), column.name
        if spec.rotary_dims < spec.d:
            assert torch.equal(y[..., spec.rotary_dims:], x[..., spec.rotary_dims:])


def test_the_dispatcher_runs_the_triton_kernel():
    from liger_kernel.backends import resolve_impl
    assert resolve_impl("rope").impl_name == "nvidia-triton"
    row = adapt_liger_kernel.rows()[0]
    before = peconform.triton.programs_launched()
    row.kernel()(x_for(peconform.Spec(row.spec), torch.float32, 1), POSITIONS, peconform.Spec(row.spec))
    assert peconform.triton.programs_launched() - before == POSITIONS.numel()  # one program per token


def test_liger_writes_into_the_projection_it_is_handed():
    """Found while adapting: q as a model hands it, a [batch, heads, seq, d] view of a contiguous
    [batch, seq, heads, d] projection, is rotated in that storage, and Liger returns a view of it;
    a q contiguous in its own layout is copied and left as it was."""
    from liger_kernel.transformers.rope import liger_rotary_pos_emb
    spec = peconform.Spec(adapt_liger_kernel.rows()[0].spec)
    x = x_for(spec, torch.float32, 2)
    cos, sin = adapt_liger_kernel.HfCosSin("llama-3.1-8b-v5")(POSITIONS, torch.float32)
    projection = x.clone()
    q, _ = liger_rotary_pos_emb(projection.transpose(1, 2), x.clone().transpose(1, 2), cos, sin)
    assert q.data_ptr() == projection.data_ptr() and torch.equal(projection, transformers_rotation(x, cos, sin))
    own_layout = x.transpose(1, 2).contiguous()
    q, _ = liger_rotary_pos_emb(own_layout, own_layout.clone(), cos, sin)
    assert torch.equal(own_layout, x.transpose(1, 2)) and q.data_ptr() != own_layout.data_ptr()


def test_as_shipped_bf16_tables_give_nan_and_float32_tables_round_toward_zero():
    """Triton's own (FINDINGS.md): the interpreter as shipped runs bf16 products on their bit
    patterns, so bf16 tables give NaN; with float32 tables the rotation is float32, and the store
    truncates to bf16 where the GPU rounds to nearest even (the GPU-faithful result)."""
    row = next(r for r in adapt_liger_kernel.rows() if r.key == "llama-3.1-8b/bf16")
    fn = row.kernel()
    storage = peconform.Spec(row.columns[2].spec_text(row.spec))
    float32 = peconform.Spec(row.columns[0].spec_text(row.spec))
    x = x_for(storage, torch.bfloat16, 3)
    faithful = fn(x, POSITIONS, float32)
    try:
        peconform.triton.select("shipped")
        assert torch.isnan(fn(x, POSITIONS, storage)).any()
        shipped = fn(x, POSITIONS, float32)
    finally:
        peconform.triton.select("gpu-faithful")
    assert not torch.equal(shipped, faithful)
    assert bool((shipped.float().abs() <= faithful.float().abs()).all())  # toward zero, never away from it



@pytest.mark.parametrize("row", [r for r in adapt_liger_kernel.rows() if r.key.endswith("/fp32")], ids=lambda r: r.key)
def test_each_rows_spec_is_what_its_kernel_computes(row):
    assert_computes_its_spec(row)
