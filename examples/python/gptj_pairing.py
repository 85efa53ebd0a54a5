"""A classic RoPE bug: GPT-J's pairing, (x[2i], x[2i+1]), applied to data in GPT-NeoX's layout,
where pair i is (x[i], x[i + rot/2]) (Hugging Face's rotate_half). Every element of the output is
a plausible rotation, the norm of each head is kept, and a model loaded this way still runs; the
values are wrong. peconform catches it on the first case and prints a one-line reproducer.

    PYTHONPATH=build/release/python /usr/bin/python3 examples/python/gptj_pairing.py
"""
import sys

import numpy as np

import peconform


def rope_gptj(x, positions, spec):
    """GPT-J: pair i is (x[2i], x[2i+1]), rotated by position * base^(-2i/rot), in float64."""
    rot = spec.rotary_dims
    theta = spec.base ** (-np.arange(0, rot, 2, dtype=np.float64) / rot)
    angles = positions.astype(np.float64)[..., None, None] * theta  # [batch, seq, 1, rot/2]
    cos, sin = np.cos(angles), np.sin(angles)
    even, odd = x[..., 0:rot:2].astype(np.float64), x[..., 1:rot:2].astype(np.float64)
    y = x.copy()
    y[..., 0:rot:2] = even * cos - odd * sin
    y[..., 1:rot:2] = even * sin + odd * cos
    return y


def main():
    # The GPT-J kernel is right for GPT-J's own layout...
    own = peconform.check(rope_gptj, spec="rope(d=64,layout=interleaved,dtype=fp32)", profile="smoke", cases=6)
    print(f"on interleaved (GPT-J) data: {own.verdict_line}")
    # ...and wrong on NeoX-layout data, which a Llama or NeoX checkpoint holds.
    neox = peconform.check(rope_gptj, spec="rope(d=64,layout=half,dtype=fp32)", profile="smoke", cases=6, max_failures=1)
    print(f"on half (NeoX) data: {neox.verdict_line}")
    failure = neox.failures[0]
    print(f"\nreproduce it with one line:\n  {failure.replay}\n\n{failure.message}")
    return 0 if own.conformant and not neox.conformant else 1


if __name__ == "__main__":
    sys.exit(main())
