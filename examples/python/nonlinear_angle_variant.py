"""A research variant with no Spec: a rotation whose angle grows with the square root of the
position times theta_i (instead of position times theta_i, as in RoPE). No reference defines it,
but the catalog's relations that need only the implementation still apply: it keeps the norm of
each pair, is the identity at position 0 and is linear in x, yet the logit <f(q, m), f(k, n)> no
longer depends on m - n alone, which is what RoPE is for. peconform.properties() says which hold.

    PYTHONPATH=build/release/python /usr/bin/python3 examples/python/nonlinear_angle_variant.py
"""
import sys

import numpy as np

import peconform

D = 64
BASE = 10000.0


def sqrt_angle_rotation(x, positions):
    """Pairs (x[i], x[i + d/2]) turned by sqrt(p) * base^(-2i/d), computed in float64, stored as x."""
    theta = BASE ** (-np.arange(0, D, 2, dtype=np.float64) / D)
    angles = np.sqrt(positions.astype(np.float64))[:, None] * theta
    cos, sin = np.cos(angles), np.sin(angles)
    first, second = x[:, : D // 2].astype(np.float64), x[:, D // 2 :].astype(np.float64)
    y = np.concatenate([first * cos - second * sin, first * sin + second * cos], axis=1)
    return y.astype(x.dtype)


def main():
    # The declaration bounds the angle by max_frequency * |p| (default 1): sqrt(p) * theta_i <= p
    # for every integer position, so the exact-angle bound the relations are held to is sound.
    result = peconform.properties(sqrt_angle_rotation, kind="rotary", d=D, dtype="fp32", precision="exact-angle",
                                  pairing="half", max_position=2**20, cases=100)
    print(result)
    print()
    print(f"held: {', '.join(result.held)}")
    print(f"failed: {', '.join(result.failed)}")
    keeps_norm = "rotationPreservesNormPerPair" in result.held
    loses_relative = "innerProductDependsOnlyOnRelativePosition" in result.failed
    return 0 if keeps_norm and loses_relative else 1


if __name__ == "__main__":
    sys.exit(main())
