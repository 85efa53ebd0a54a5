"""RoPE-Mixed (Heo et al. 2024, "Rotary position embedding for vision transformer"), written as a
research variant over two position axes: every pair i turns by p_x w_x,i + p_y w_y,i, frequencies
that the network learns for both axes at once (axial 2-D RoPE is the case where each pair has
one of them zero). The generators of the two axes are block-diagonal on the same pairs, so they
commute, and by Liu et al. 2025 ("Rethinking RoPE: a mathematical blueprint for N-dimensional
positional embedding") the logit <f(q, m), f(k, n)> depends on n - m alone: relative in Z^2 and
along each axis. peconform.properties(..., axes=2) checks that, and everything else a rotation
keeps, on the variant's own code.

    PYTHONPATH=build/release/python /usr/bin/python3 examples/python/rope_mixed_2d.py
"""
import sys

import numpy as np

import peconform

D = 64
PAIRS = D // 2
# "Learned" frequencies: any real values will do for the relations; these are drawn once, each
# pair's magnitude log-spaced in [1e-4, 1] and its direction in the (x, y) plane at random. Each
# |w_a,i| <= 1, so the default max_frequency = 1 bounds |phi| by |p_x| + |p_y|, as declared.
_rng = np.random.default_rng(2024)
_magnitude = 10.0 ** -np.linspace(0, 4, PAIRS)
_direction = _rng.uniform(0, 2 * np.pi, PAIRS)
FREQUENCIES = np.stack([_magnitude * np.cos(_direction), _magnitude * np.sin(_direction)])  # [2, PAIRS]


def rope_mixed(x, positions):
    """Interleaved pairs (2i, 2i+1) turned by positions @ FREQUENCIES, in float64, stored as x."""
    angles = positions.astype(np.float64) @ FREQUENCIES
    cos, sin = np.cos(angles), np.sin(angles)
    even, odd = x[:, 0::2].astype(np.float64), x[:, 1::2].astype(np.float64)
    y = np.empty(x.shape, dtype=np.float64)
    y[:, 0::2] = even * cos - odd * sin
    y[:, 1::2] = even * sin + odd * cos
    return y.astype(x.dtype)


# The paper's claim (relative in Z^2) and every relation a rotation keeps.
EXPECTED = {
    "rotationPreservesNormPerPair": "held",
    "innerProductDependsOnlyOnRelativePosition": "held",
    "innerProductDependsOnlyOnRelativePosition[axis 0]": "held",
    "innerProductDependsOnlyOnRelativePosition[axis 1]": "held",
    "rotationsComposeAdditively": "held",
    "rotationsComposeAdditively[axis 0]": "held",
    "rotationsComposeAdditively[axis 1]": "held",
    "rotationsComposeAdditively[axes 0,1]": "held",
    "rotationAtPositionZeroIsTheIdentity": "held",
    "rotationAtNegatedPositionIsTheTranspose": "held",
    "rotationIsLinearInX": "held",
    "partialRotaryLeavesPassThroughDimsBitIdentical": "refused",
    "distinctPositionsGiveDistinctRotations": "held",
}


def main():
    # Patch grids up to 1024 x 1024; the float64 angle's error there (|phi| 2^-52) is far below
    # exact-angle's bound for float32 outputs.
    result = peconform.properties(rope_mixed, kind="rotary", d=D, dtype="fp32", precision="exact-angle",
                                  pairing="interleaved", axes=2, max_position=1023, negative_positions=True, cases=100)
    print(result)
    verdicts = {outcome.name: outcome.verdict for outcome in result.outcomes}
    wrong = {name: (verdicts.get(name), expected) for name, expected in EXPECTED.items() if verdicts.get(name) != expected}
    print(f"\nrelative along each axis: {result.along('innerProductDependsOnlyOnRelativePosition')}")
    for name, (got, expected) in wrong.items():
        print(f"MISMATCH {name}: {got}, the paper says {expected}")
    return 1 if wrong or len(verdicts) != len(EXPECTED) else 0


if __name__ == "__main__":
    sys.exit(main())
