"""What the rows of Triton kernels share (adapt_liger_kernel, adapt_flash_attn, adapt_unsloth,
adapt_xformers). Each kernel runs its own Triton source under Triton's interpreter on the CPU,
and the execution mode is part of every column: the interpreter as shipped, and GPU-faithful,
where peconform.triton rounds bf16 arithmetic and every conversion as compiled Triton does on
NVIDIA hardware. A row is one configuration in one storage dtype (fp32, fp16, bf16), so that a
family's table keeps to a few columns: the kernel's recipe with cos and sin in float32, the same
with cos and sin in the storage dtype where the kernel takes them (as transformers hands them to
a bf16 or fp16 model), each in both modes, and the exact-angle contrast.
"""
import contextlib
import dataclasses

import torch

from rows import Column, Row, exact_angle

DTYPES = ("fp32", "fp16", "bf16")
# How each mode is named in a column's heading, and in its meaning (each library's Execution line
# in the matrix says what the modes are).
EXECUTIONS = {
    "shipped": ("as shipped", "Triton's interpreter as shipped"),
    "gpu-faithful": ("GPU-faithful", "Triton's interpreter made GPU-faithful (peconform.triton)"),
}
# The contrast fails by design (float32 angles); it runs once, in the mode nearest the GPU.
CONTRAST_EXECUTION = "gpu-faithful"


def recipe_columns(label, keys, meaning, place="out"):
    """The recipe's column in each mode: "<label> (as shipped)", "<label> (GPU-faithful)"."""
    return tuple(Column(f"{label} ({EXECUTIONS[mode][0]})", keys, f"{meaning}; run through {EXECUTIONS[mode][1]}",
                        place=place, execution=mode) for mode in EXECUTIONS)


def contrast(place="out"):
    return dataclasses.replace(exact_angle(), place=place, execution=CONTRAST_EXECUTION,
                               meaning=exact_angle().meaning + f"; run through {EXECUTIONS[CONTRAST_EXECUTION][1]}")


def with_dtype(spec, dtype):
    return spec if dtype == "fp32" else spec[:-1] + f",dtype={dtype})"


def dtype_rows(library, family, key, name, spec, source, columns, kernel, max_tokens, max_elements=0):
    """One row per storage dtype, columns(dtype) the Columns it is held to, kernel the callable's
    builder (the callable takes its dtype from x, and where it hands cos and sin in from the
    spec's cache key)."""
    return [Row(library, family, f"{key}/{dtype}", f"{name}, {dtype}", with_dtype(spec, dtype), columns(dtype),
                kernel, source, max_tokens=max_tokens, max_elements=max_elements) for dtype in DTYPES]


@contextlib.contextmanager
def no_cuda_device_on_cpu(tensor):
    """Where `tensor` is on the CPU, torch.cuda.device as a null context for the call: flash-attn's
    and xformers' wrappers enter torch.cuda.device(x.device...) to launch on x's GPU, which raises
    for a CPU tensor on a machine without CUDA. A CUDA tensor's call is left as it is."""
    if tensor.device.type != "cpu":
        yield
        return
    entered = torch.cuda.device
    torch.cuda.device = lambda device: contextlib.nullcontext()
    try:
        yield
    finally:
        torch.cuda.device = entered


def projected(x):
    """transformers' [batch, heads, seq, d] view of a fresh contiguous [batch, seq, heads, d] copy of
    x, as a model views its q or k projection. peconform hands x in varied memory orders; Liger and
    Unsloth choose whether to write in place by their input's strides, so they are handed the
    model's layout, whatever x's."""
    return torch.empty(x.shape, dtype=x.dtype, device=x.device).copy_(x).transpose(1, 2)
