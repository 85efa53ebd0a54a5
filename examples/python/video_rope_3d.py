"""A 3-D video RoPE: positions (t, h, w), each axis turning its own pairs, as Qwen2-VL's mRoPE
does (Hugging Face's modeling_qwen2_vl: for head dim 128, mrope_section [16, 24, 24], so that
frequency indices 0-15 follow t, 16-39 follow h and 40-63 follow w, in the half layout with
theta_i = 10000^(-2i/128)). Each axis's generator acts on pairs no other axis touches, so the
three commute: by Liu et al. 2025 ("Rethinking RoPE: a mathematical blueprint for N-dimensional
positional embedding") the logit depends on the offset in Z^3, and on each axis's offset alone
when only that axis moves. peconform.properties(..., axes=3) checks each axis's verdict apart.

    PYTHONPATH=build/release/python /usr/bin/python3 examples/python/video_rope_3d.py
"""
import sys

import numpy as np

import peconform

D = 128
SECTIONS = (16, 24, 24)  # frequency indices per axis: t, h, w
THETA = 10000.0 ** (-np.arange(0, D, 2, dtype=np.float64) / D)
AXIS_OF_FREQUENCY = np.repeat(np.arange(3), SECTIONS)  # [D / 2]


def video_rope(x, positions):
    """Half-layout pairs (i, i + D/2) turned by p[axis of i] * theta_i, in float64, stored as x."""
    angles = positions.astype(np.float64)[:, AXIS_OF_FREQUENCY] * THETA
    cos, sin = np.cos(angles), np.sin(angles)
    first, second = x[:, : D // 2].astype(np.float64), x[:, D // 2 :].astype(np.float64)
    return np.concatenate([first * cos - second * sin, first * sin + second * cos], axis=1).astype(x.dtype)


def expected_verdicts():
    """Relative per axis (and over Z^3), and every relation a rotation keeps."""
    names = ["rotationPreservesNormPerPair", "innerProductDependsOnlyOnRelativePosition", "rotationsComposeAdditively",
             "rotationAtPositionZeroIsTheIdentity", "rotationAtNegatedPositionIsTheTranspose", "rotationIsLinearInX",
             "distinctPositionsGiveDistinctRotations"]
    names += [f"innerProductDependsOnlyOnRelativePosition[axis {a}]" for a in range(3)]
    names += [f"rotationsComposeAdditively[axis {a}]" for a in range(3)]
    names += [f"rotationsComposeAdditively[axes {a},{b}]" for a in range(3) for b in range(a + 1, 3)]
    expected = {name: "held" for name in names}
    expected["partialRotaryLeavesPassThroughDimsBitIdentical"] = "refused"
    return expected


def main():
    # Clips of up to 1024 frames of 64 x 64 patches, each axis its own range; the float64 angle's
    # error there is far inside exact-angle's bound for float32 outputs.
    result = peconform.properties(video_rope, kind="rotary", d=D, dtype="fp32", precision="exact-angle", pairing="half",
                                  axes=3, max_position=(1023, 63, 63), negative_positions=True, cases=60)
    print(result)
    print(f"\nrelative along each axis (t, h, w): {result.along('innerProductDependsOnlyOnRelativePosition')}")
    verdicts = {outcome.name: outcome.verdict for outcome in result.outcomes}
    expected = expected_verdicts()
    wrong = {name: (verdicts.get(name), want) for name, want in expected.items() if verdicts.get(name) != want}
    for name, (got, want) in wrong.items():
        print(f"MISMATCH {name}: {got}, expected {want}")
    return 1 if wrong or len(verdicts) != len(expected) else 0


if __name__ == "__main__":
    sys.exit(main())
