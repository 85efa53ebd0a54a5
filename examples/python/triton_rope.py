"""A GPT-NeoX (half layout) RoPE written from scratch in Triton, with its torch wrapper, gated by
peconform on a CPU through Triton's interpreter (docs/triton.md): conformant in fp32, fp16 and
bf16 under the recipe it computes by, and its planted bug (the position held in fp16, as mlx
#2791 and candle #3520 held it in bf16) caught.

The recipe: Hugging Face's float32 θ (inv_freq = 1 / base^(2i/rot), formed by the wrapper in
torch as transformers forms it), the angle p·θ and its cos and sin in float32 inside the kernel,
the rotation in float32, one rounding to the storage dtype on the store:
rope(layout=half,precision=fp32-angle,theta=hf), cos/sin and arithmetic in the compute format
(cache=compute,math=compute, the defaults) whatever the storage dtype.

    python -m peconform.triton --mode gpu-faithful examples/python/triton_rope.py

(with PYTHONPATH=build/release/python in this tree; pip install torch triton). On a GPU, --mode
compiled runs the same checks on the device.
"""
import sys
import time

import peconform.triton

REASON = peconform.triton.missing()
if REASON is not None:  # CI without torch 2 or triton: nothing to show, said so (ctest's skip code)
    print(f"skipped: {REASON}")
    sys.exit(77)
if peconform.triton.mode() is None:  # run as a plain script: choose before triton is imported
    peconform.triton.select("auto")

import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

import peconform  # noqa: E402
from peconform.testing import assert_conforms  # noqa: E402


@triton.jit
def rope_kernel(x_ptr, y_ptr, positions_ptr, inv_freq_ptr, seq, heads, x_stride_b, x_stride_s, x_stride_h, x_stride_d, y_stride_b,
                y_stride_s, y_stride_h, y_stride_d, positions_stride_b, positions_stride_s, D: tl.constexpr, ROT: tl.constexpr,
                BLOCK_HEADS: tl.constexpr, BLOCK_PAIRS: tl.constexpr, BLOCK_REST: tl.constexpr, POSITION_IN_FP16: tl.constexpr):
    # One program per token: every head of it, every pair.
    token = tl.program_id(0)
    b = token // seq
    s = token % seq
    position = tl.load(positions_ptr + b * positions_stride_b + s * positions_stride_s)
    if POSITION_IN_FP16:
        p = position.to(tl.float16).to(tl.float32)
    else:
        p = position.to(tl.float32)
    pair = tl.arange(0, BLOCK_PAIRS)
    pair_in = pair < ROT // 2
    angle = p * tl.load(inv_freq_ptr + pair, mask=pair_in, other=0.0)
    cos = tl.cos(angle)[None, :]
    sin = tl.sin(angle)[None, :]
    head = tl.arange(0, BLOCK_HEADS)[:, None]
    inside = (head < heads) & pair_in[None, :]
    x_row = x_ptr + b * x_stride_b + s * x_stride_s + head * x_stride_h
    y_row = y_ptr + b * y_stride_b + s * y_stride_s + head * y_stride_h
    # GPT-NeoX pairs element i with element i + rot/2.
    first = tl.load(x_row + pair[None, :] * x_stride_d, mask=inside).to(tl.float32)
    second = tl.load(x_row + (pair[None, :] + ROT // 2) * x_stride_d, mask=inside).to(tl.float32)
    tl.store(y_row + pair[None, :] * y_stride_d, first * cos - second * sin, mask=inside)
    tl.store(y_row + (pair[None, :] + ROT // 2) * y_stride_d, second * cos + first * sin, mask=inside)
    # Past the rotary dims, elements pass through unchanged.
    rest = ROT + tl.arange(0, BLOCK_REST)[None, :]
    rest_in = (head < heads) & (rest < D)
    tl.store(y_row + rest * y_stride_d, tl.load(x_row + rest * x_stride_d, mask=rest_in), mask=rest_in)


def inv_freq(spec, device):
    """Hugging Face's θ: 1 / base^(2i/rot) in float32 (transformers' _compute_default_rope_parameters)."""
    rot = spec.rotary_dims
    return 1.0 / (spec.base ** (torch.arange(0, rot, 2, dtype=torch.int64, device=device).to(torch.float32) / rot))


def launch(x, positions, spec, position_in_fp16):
    batch, seq, heads, d = x.shape
    rot = spec.rotary_dims
    y = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    rope_kernel[(batch * seq, )](x, y, positions, inv_freq(spec, x.device), seq, heads, *x.stride(), *y.stride(), *positions.stride(), D=d,
                                 ROT=rot, BLOCK_HEADS=triton.next_power_of_2(heads), BLOCK_PAIRS=triton.next_power_of_2(rot // 2),
                                 BLOCK_REST=triton.next_power_of_2(max(d - rot, 1)), POSITION_IN_FP16=position_in_fp16)
    return y


def rope(x, positions, spec):
    """x [batch, seq, heads, d] (any strides), positions [batch, seq]; returns y like x."""
    return launch(x, positions, spec, position_in_fp16=False)


def rope_position_in_fp16(x, positions, spec):
    """The same kernel with its planted bug: the position rounded to fp16 before the angle."""
    return launch(x, positions, spec, position_in_fp16=True)


SPEC = "rope(d=64|128,layout=half,dtype={},precision=fp32-angle,theta=hf)"
CASES = 16  # about 70 tokens a case, one program each: 10 to 20 ms a program under the interpreter


def main():
    print(peconform.triton.execution())
    for dtype in ("fp32", "fp16", "bf16"):
        start, launched = time.perf_counter(), peconform.triton.programs_launched()
        result = assert_conforms(peconform.triton.on_device(rope), SPEC.format(dtype), array="torch", profile="smoke", cases=CASES)
        print(f"{dtype}: {result.verdict_line.split(';')[0]}, worst error / bound {result.worst_ratio:.3f} "
              f"({time.perf_counter() - start:.1f} s, {peconform.triton.programs_launched() - launched} programs)")
    caught = peconform.check(peconform.triton.on_device(rope_position_in_fp16), SPEC.format("fp32"), array="torch", profile="smoke",
                             cases=CASES, max_failures=1)
    print(f"position in fp16: {caught.verdict_line}\n\n{caught.failures[0].message}")
    return 0 if not caught.conformant else 1


if __name__ == "__main__":
    sys.exit(main())
