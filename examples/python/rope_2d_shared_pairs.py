"""A plausible slip in a 2-D RoPE: the y axis meant to turn its own pairs reuses x's, so every
pair turns by (p_x + p_y) theta_i. Nothing a 1-D check looks at breaks: each pair keeps its norm,
the generators of x and y are one and the same (so they commute) and the logit depends on the
offset in Z^2 alone. What breaks is reversibility (Liu et al. 2025, "Rethinking RoPE: a
mathematical blueprint for N-dimensional positional embedding": R should be injective on the
positions of interest): (x, y) and (x + m, y - m) get one rotation, so the model cannot tell a
patch from its neighbour along the anti-diagonal. peconform prints the colliding pair.

    PYTHONPATH=build/release/python /usr/bin/python3 examples/python/rope_2d_shared_pairs.py
"""
import sys

import numpy as np

import peconform

D = 64
THETA = 100.0 ** (-np.arange(0, D // 2, dtype=np.float64) / (D // 2))


def rope_2d_shared_pairs(x, positions):
    """Interleaved pairs turned by (p_x + p_y) theta_i: the intended (p_x on the first half of the
    pairs, p_y on the second) lost in an index slip."""
    angles = positions.astype(np.float64).sum(axis=1)[:, None] * THETA
    cos, sin = np.cos(angles), np.sin(angles)
    even, odd = x[:, 0::2].astype(np.float64), x[:, 1::2].astype(np.float64)
    y = np.empty(x.shape, dtype=np.float64)
    y[:, 0::2] = even * cos - odd * sin
    y[:, 1::2] = even * sin + odd * cos
    return y.astype(x.dtype)


def main():
    result = peconform.properties(rope_2d_shared_pairs, kind="rotary", d=D, dtype="fp32", precision="exact-angle",
                                  pairing="interleaved", axes=2, max_position=1023, negative_positions=True, cases=100)
    print(result)
    collision = result["distinctPositionsGiveDistinctRotations"]
    relative = result["innerProductDependsOnlyOnRelativePosition"]
    print(f"\nreversibility: {collision.verdict}; relative: {relative.verdict}; "
          f"composition across axes: {result.across('rotationsComposeAdditively')}")
    keeps = [name for name in ("rotationPreservesNormPerPair", "innerProductDependsOnlyOnRelativePosition",
                               "rotationsComposeAdditively", "rotationAtNegatedPositionIsTheTranspose") if result[name].verdict == "held"]
    shows_pair = "does not tell these positions apart" in collision.counterexample
    return 0 if collision.verdict == "failed" and shows_pair and len(keeps) == 4 else 1


if __name__ == "__main__":
    sys.exit(main())
