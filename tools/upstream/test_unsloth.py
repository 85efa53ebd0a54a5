"""adapt_unsloth.py's callables, run through Triton's GPU-faithful interpreter down both paths of
fast_rope_embedding, rotate x by the tables they hand Unsloth (transformers' cos and sin): each
element within what the kernel's fma forms allow of the float64 rotation by those tables (below),
every batch row at its own positions (a call per batch row where they differ, one for the batch
where they agree), up to 2^31 - 1. The positions path rotates the projection it is handed in place
and the indices path writes a fresh tensor, as the docstring says; the file comes from the pinned
wheel, and its device probe answers for a CPU tensor without CUDA; as the interpreter ships, bf16
tables give NaN (FINDINGS.md, Triton's own). Each float32 row's spec is what its kernel computes at
small positions (triton_adapter_tests.assert_computes_its_spec). Run in the triton upstream venv:
`python -m pytest tools/upstream/test_unsloth.py` (its first run has pip fetch the pinned wheel).

The bound: out0 = fma(a, c, -(b * s)) with the product b * s rounded to the compute dtype (u_c:
float32's 2^-24 with float32 tables, the storage dtype's with storage tables) and the fma rounded
once more, then the store to the storage dtype (u_s): |out0 - exact| <= u_c |b s| + (u_c + u_s)
|exact| to first order; |a c| + |b s| bounds |b s|, and out1 = fma(a, s, b * c) likewise.
"""
import pytest

from triton_adapter_tests import assert_computes_its_spec, gpu_faithful_or_skip

gpu_faithful_or_skip("transformers")
import peconform  # noqa: E402
import peconform.triton  # noqa: E402
import torch  # noqa: E402

import adapt_unsloth  # noqa: E402

POSITIONS = torch.tensor([[0, 1, 7, 4095, 2**24 + 1, 2**31 - 1], [5, 3, 70000, 8191, 2**24, 100]])
HEADS = 3
DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}
UNIT = {torch.float32: 2.0**-24, torch.float16: 2.0**-11, torch.bfloat16: 2.0**-8}


def x_for(d, dtype, seed):
    generator = torch.Generator().manual_seed(seed)
    return (torch.rand(*POSITIONS.shape, HEADS, d, generator=generator) * 4 - 2).to(dtype)


def assert_within_the_fma_bound(y, x, cos, sin):
    """y against the float64 rotation of x by cos and sin ([batch, seq, d], repeated halves)."""
    half = x.shape[-1] // 2
    a, b = x[..., :half].double(), x[..., half:].double()
    c, s = cos[:, :, None, :half].double(), sin[:, :, None, :half].double()
    exact = torch.cat([a * c - b * s, b * c + a * s], dim=-1)
    u_c, u_s = UNIT[cos.dtype], UNIT[y.dtype]
    magnitude = (a * c).abs() + (b * s).abs()
    bound = (u_c * torch.cat([magnitude, magnitude], dim=-1) + (u_c + u_s) * exact.abs()) * (1 + 2.0**-7)
    assert bool(((y.double() - exact).abs() <= bound).all()), float(((y.double() - exact).abs() / bound).max())


@pytest.mark.parametrize("row", adapt_unsloth.rows(), ids=lambda r: r.key)
@pytest.mark.parametrize("shared", [False, True], ids=["own-positions", "shared-positions"])
def test_rotates_by_the_tables_within_the_fma_bound(row, shared):
    fn = row.kernel()
    dtype = DTYPES[row.key.rsplit("/", 1)[1]]
    positions = POSITIONS[:1].expand_as(POSITIONS) if shared else POSITIONS
    for column in [c for c in row.columns if c.execution == "gpu-faithful"]:
        spec = peconform.Spec(column.spec_text(row.spec))
        x = x_for(spec.d, dtype, seed=len(column.name))
        before = x.clone()
        y = fn(x, positions, spec)
        assert torch.equal(x, before) and y.dtype == dtype and y.shape == x.shape
        cos, sin = fn.tables(positions, dtype if spec.cache == "storage" else torch.float32)
        assert_within_the_fma_bound(y, x, cos, sin)


def test_the_positions_path_rotates_in_place_and_the_indices_path_out_of_place():
    module = adapt_unsloth.rope_embedding()
    x = x_for(128, torch.float32, 7)
    cos, sin = adapt_unsloth.HfCosSin("qwen3-8b-v5")(POSITIONS[:1], torch.float32)
    q = adapt_unsloth.projected(x)
    out, _ = module.fast_rope_embedding(q, adapt_unsloth.projected(x), cos[0], sin[0])
    assert out.data_ptr() == q.data_ptr() and not torch.equal(q, x.transpose(1, 2))
    q = adapt_unsloth.projected(x)
    out, _ = module.fast_rope_embedding(q, adapt_unsloth.projected(x), cos[0], sin[0],
                                        torch.arange(POSITIONS.shape[1]).expand(POSITIONS.shape))
    assert out.data_ptr() != q.data_ptr() and torch.equal(q, x.transpose(1, 2))


def test_the_kernel_file_is_the_pinned_wheels_and_its_probe_answers_on_the_cpu():
    module = adapt_unsloth.rope_embedding()
    assert "unsloth-2026.10.9" in module.__file__ and module.__file__.endswith("unsloth/kernels/rope_embedding.py")
    assert module._eviction_hints_ok(torch.device("cpu")) is True


def test_as_shipped_bf16_tables_give_nan():
    row = next(r for r in adapt_unsloth.rows() if r.key.endswith("/bf16"))
    spec = peconform.Spec(row.columns[2].spec_text(row.spec))
    assert spec.cache == "storage"
    try:
        peconform.triton.select("shipped")
        assert torch.isnan(row.kernel()(x_for(128, torch.bfloat16, 8), POSITIONS, spec)).any()
    finally:
        peconform.triton.select("gpu-faithful")



@pytest.mark.parametrize("row", [r for r in adapt_unsloth.rows() if r.key.endswith("/fp32")], ids=lambda r: r.key)
def test_each_rows_spec_is_what_its_kernel_computes(row):
    assert_computes_its_spec(row)
