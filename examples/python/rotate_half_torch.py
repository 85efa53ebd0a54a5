"""Hugging Face's rotate_half RoPE in PyTorch, as transformers computes it, checked by peconform
on torch tensors (array="torch"): the same formulas as rotate_half_numpy.py, in torch's float32
operations. Conformant under `fp32-angle theta=hf`, non-conformant under `exact-angle`.

    PYTHONPATH=build/release/python /usr/bin/python3 examples/python/rotate_half_torch.py
"""
import sys

import torch

import peconform
from position_report import first_bin_over, print_positions


def inv_freq(spec):
    rot = spec.rotary_dims
    return 1.0 / (spec.base ** (torch.arange(0, rot, 2, dtype=torch.int64).to(torch.float32) / rot))


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat([-x[..., half:], x[..., :half]], dim=-1)


def rope(x, positions, spec):
    """x [batch, seq, heads, d], positions [batch, seq]; returns y like x."""
    rot = spec.rotary_dims
    angles = positions.to(torch.float32)[..., None] * inv_freq(spec)
    both = torch.cat([angles, angles], dim=-1)
    cos = both.cos().to(x.dtype)[:, :, None, :]
    sin = both.sin().to(x.dtype)[:, :, None, :]
    r = x[..., :rot]
    return torch.cat([r * cos + rotate_half(r) * sin, x[..., rot:]], dim=-1)


def main():
    pattern = "rope(d=64|128,layout=half,dtype=fp32,precision={})"
    hf = peconform.check(rope, spec=pattern.format("fp32-angle,theta=hf"), profile="smoke", cases=12, array="torch")
    print(f"under fp32-angle theta=hf: {hf.verdict_line}")
    exact = peconform.check(rope, spec=pattern.format("exact-angle"), profile="smoke", cases=24, array="torch")
    print(f"under exact-angle: {exact.verdict_line}")
    print_positions(exact)
    print("\nthe first failure, shrunk:\n" + exact.failures[0].message)
    return 0 if hf.conformant and not exact.conformant and first_bin_over(exact) > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
