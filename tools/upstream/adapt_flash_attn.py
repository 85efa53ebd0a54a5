"""flash-attn's Triton rotary kernel (flash_attn/ops/triton/rotary.py `rotary_kernel`, launched by
`apply_rotary`), under Triton's interpreter on the CPU (triton_rows.py: as shipped and
GPU-faithful), in the calls flash-attn offers: NeoX and interleaved (GPT-J) pairs, partial rotary,
`seqlen_offsets` per batch row, variable-length batches through `cu_seqlens`, and in place.

`apply_rotary(x, cos, sin, seqlen_offsets, cu_seqlens, max_seqlen, interleaved, inplace)` takes
cos and sin as [seqlen_ro, rot/2] tables and rotates token s of batch row b by table row
s + seqlen_offsets[b]. The callable hands it the first half of each row of transformers' tables
(hf_cos_sin.py; transformers repeats the frequencies, flash-attn's own RotaryEmbedding does not),
one table row per token of the call, and seqlen_offsets b * seq, so every batch row reads its own
positions. In float32 or, as a bf16 or fp16 model has them, in the storage dtype (the column's
cache key); the kernel widens x, cos and sin to float32, rotates in float32 and rounds once to
x's dtype at the store (math=compute). A variable-length call flattens the batch to [tokens,
heads, d] and cuts each batch row into two sequences of unequal length (the kernel masks each
sequence's last block of rows by its own length), each with its offset into the table.

Only the one file is taken from the pinned sdist (pinned_sources.py): installing flash-attn
compiles its CUDA extension. pip prepares the sdist's metadata by running its setup.py, which
imports torch and, unless FLASH_ATTENTION_SKIP_CUDA_BUILD is set, looks for nvcc; it is set.
`apply_rotary` enters `torch.cuda.device(x.device.index)`, which raises on a machine without CUDA:
for a CPU tensor the call runs with that context a null one (triton_rows.no_cuda_device_on_cpu).
"""
import importlib.metadata

import torch

import pinned_sources
from hf_cos_sin import HfCosSin
from triton_rows import contrast, dtype_rows, no_cuda_device_on_cpu, recipe_columns

LIBRARY = "flash-attn"
VERSION = "2.8.3.post2"
SDIST_SHA256 = "d0f9f0b08a986cdeadbffcf5ec8b3a8f514366c68ad1853d3ab061bc83cc340b"
SOURCE = "flash_attn/ops/triton/rotary.py: rotary_kernel, apply_rotary"
# One program per 2 heads and 8 tokens of a batch row (4 tokens above 128 rotary dims), each
# program about 40 ms here: up to 32 tokens and 2048 elements a case (4096 took 31 to 113 s per
# row of 20 cases a cell).
MAX_TOKENS = 32
MAX_ELEMENTS = 2048


def rotary():
    """flash_attn.ops.triton.rotary from the pinned sdist (loaded once; it imports triton)."""
    sdist = pinned_sources.archive("flash-attn", VERSION, SDIST_SHA256, sdist=True,
                                   environment={"FLASH_ATTENTION_SKIP_CUDA_BUILD": "TRUE"})
    return pinned_sources.load("flash_attn.ops.triton.rotary",
                               pinned_sources.extracted(sdist, "flash_attn/ops/triton/rotary.py"))


class FlashRotary:
    """fn(x, positions, spec) for peconform.check(): x [batch, seq, heads, d], positions [batch, seq]
    (or [seq] for every batch row). `varlen`: through cu_seqlens; `inplace`: writes x, returns None."""

    def __init__(self, tables, interleaved=False, varlen=False, inplace=False):
        self.tables, self.interleaved, self.varlen, self.inplace = tables, interleaved, varlen, inplace
        options = [name for name, on in (("interleaved=True", interleaved), ("cu_seqlens=...", varlen),
                                         ("inplace=True", inplace)) if on]
        self.__qualname__ = f"flash_attn.ops.triton.rotary.apply_rotary({', '.join(options)})"

    def __call__(self, x, positions, spec):
        apply_rotary = rotary().apply_rotary
        batch, seq, heads, d = x.shape
        position_ids = torch.as_tensor(positions).to(torch.long).reshape(-1, seq).expand(batch, seq)
        cos, sin = self.tables(position_ids, x.dtype if spec.cache == "storage" else torch.float32)
        half = cos.shape[-1] // 2
        # One table row per token, batch row after batch row.
        cos, sin = (table.reshape(batch * seq, -1)[:, :half] for table in (cos, sin))
        options = dict(interleaved=self.interleaved, inplace=self.inplace)
        with no_cuda_device_on_cpu(x):
            y = self.rotate(apply_rotary, x, cos, sin, options)
        return None if self.inplace else y

    def rotate(self, apply_rotary, x, cos, sin, options):
        batch, seq, heads, d = x.shape
        if self.varlen:
            lengths = [length for _ in range(batch) for length in ((seq + 1) // 2, seq // 2) if length]
            starts = torch.cumsum(torch.tensor([0] + lengths), 0).to(torch.int32)
            y = apply_rotary(x.reshape(batch * seq, heads, d), cos, sin, seqlen_offsets=starts[:-1].clone(),
                             cu_seqlens=starts, max_seqlen=max(lengths), **options)
            return y.reshape(batch, seq, heads, d)
        offsets = torch.arange(batch, dtype=torch.int32) * seq
        return apply_rotary(x, cos, sin, seqlen_offsets=offsets, **options)


FLOAT32_MEANING = ("cos and sin in float32 as transformers' rotary module forms them (theta=hf, the model's plan), "
                   "x widened to float32, the rotation in float32 and one rounding to x's dtype at the store")
STORAGE_MEANING = ("cos and sin in the storage dtype as transformers hands them to a bf16 or fp16 model "
                   "(cache=storage), widened to float32 with x; the rotation in float32, one rounding at the store")


def columns_for(place):
    float32 = recipe_columns("float32 cos/sin", "precision=fp32-angle,theta=hf", FLOAT32_MEANING, place)
    storage = recipe_columns("storage cos/sin", "precision=fp32-angle,theta=hf,cache=storage", STORAGE_MEANING, place)
    return lambda dtype: float32 + (() if dtype == "fp32" else storage) + (contrast(place),)


def configuration(key, name, shape, interleaved=False, varlen=False, inplace=False):
    tables = HfCosSin(shape)
    spec = tables.spec.replace("layout=half", "layout=interleaved") if interleaved else tables.spec
    kernel = FlashRotary(tables, interleaved, varlen, inplace)
    return dtype_rows(LIBRARY, "rope", key, f"{kernel.__qualname__.split('.')[-1]}, {name}", spec, SOURCE,
                      columns_for("in" if inplace else "out"), lambda: FlashRotary(tables, interleaved, varlen, inplace),
                      MAX_TOKENS, MAX_ELEMENTS)


def versions():
    return {"flash-attn": f"{VERSION} (flash_attn/ops/triton/rotary.py from its sdist)",
            **{name: importlib.metadata.version(name) for name in ("triton", "torch", "transformers")}}


def rows():
    return (configuration("neox/llama-3.1-8b", "Llama 3.1 8B (llama3), seqlen_offsets per batch row", "llama-3.1-8b-v5")
            + configuration("interleaved/llama-2-7b", "Llama 2 7B in Meta's interleaved pairs", "llama-2-7b",
                            interleaved=True)
            + configuration("partial/phi-2", "Phi-2 (partial rotary 0.4)", "phi-2-v5")
            + configuration("varlen/qwen2-7b", "Qwen2 7B, two sequences per batch row", "qwen2-7b", varlen=True)
            + configuration("inplace/mistral-7b", "Mistral 7B v0.1", "mistral-7b-v0.1-v5", inplace=True))
