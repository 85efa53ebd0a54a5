"""Hugging Face's rotate_half RoPE in NumPy, as transformers computes it, checked by peconform.

transformers forms inv_freq = 1 / base^(2i/rot) in float32, the angles position * inv_freq in
float32, cos and sin of them in float32 cast to x's dtype, and y = x cos + rotate_half(x) sin,
rotate_half(x) = [-x2, x1] for the halves x1, x2 of the rotary dims. Written here from those
formulas. It conforms to `precision=fp32-angle,theta=hf`, the class that says exactly that; under
`exact-angle` (angles correct to float32) it departs at long positions, and the check shows from where.

    PYTHONPATH=build/release/python /usr/bin/python3 examples/python/rotate_half_numpy.py
"""
import sys

import numpy as np

import peconform
from position_report import first_bin_over, print_positions


def inv_freq(spec):
    rot = spec.rotary_dims
    exponents = np.arange(0, rot, 2, dtype=np.int64).astype(np.float32) / np.float32(rot)
    return (np.float32(1.0) / np.power(np.float32(spec.base), exponents)).astype(np.float32)


def rope(x, positions, spec):
    """x [batch, seq, heads, d], positions [batch, seq]; returns y like x."""
    rot, half = spec.rotary_dims, spec.rotary_dims // 2
    angles = positions.astype(np.float32)[..., None] * inv_freq(spec)
    both = np.concatenate([angles, angles], axis=-1)
    cos = np.cos(both).astype(x.dtype)[:, :, None, :]
    sin = np.sin(both).astype(x.dtype)[:, :, None, :]
    r = x[..., :rot]
    rotated = np.concatenate([-r[..., half:], r[..., :half]], axis=-1)
    y = x.copy()
    with np.errstate(over="ignore", invalid="ignore"):  # the campaign draws extreme inputs too; float32 overflows as it does in transformers
        y[..., :rot] = r * cos + rotated * sin
    return y


def main():
    pattern = "rope(d=64|128,layout=half,dtype=fp32,precision={})"
    hf = peconform.check(rope, spec=pattern.format("fp32-angle,theta=hf"), profile="smoke", cases=12)
    print(f"under fp32-angle theta=hf: {hf.verdict_line}")
    exact = peconform.check(rope, spec=pattern.format("exact-angle"), profile="smoke", cases=24)
    print(f"under exact-angle: {exact.verdict_line}")
    print_positions(exact)
    print("\nthe first failure, shrunk:\n" + exact.failures[0].message)
    # What this example shows: conformant under its own class; under exact angles, not past position 0.
    return 0 if hf.conformant and not exact.conformant and first_bin_over(exact) > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
