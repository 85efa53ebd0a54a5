"""LieRE (Ostmeier et al. 2024, "LieRE: Generalizing rotary position encodings"), over two position
axes: R(p) = exp(p_x A_x + p_y A_y) with learned skew-symmetric generators A_x, A_y acting on the
whole vector, a dense rotation with no pairs to declare (pairing="unknown": the norm is checked
on the whole vector). Liu et al. 2025 ("Rethinking RoPE: a mathematical blueprint for
N-dimensional positional embedding") show such a map is relative, and composes, exactly when the
generators commute. Two variants, each checked by peconform.properties(..., axes=2):

- commuting generators, A_a = Q B_a Q^T with B_a block-diagonal on shared 2x2 blocks (RoPE in a
  basis Q; STRING, Schenck et al. 2025, is this form): relative, and it composes;
- generic learned generators (they do not commute): relativity and composition over Z^2 and
  across the two axes fail, while along each axis alone it still composes, and the norm,
  R(0) = I, R(-p) = R(p)^T and linearity hold.

    PYTHONPATH=build/release/python /usr/bin/python3 examples/python/liere_2d.py
"""
import sys

import numpy as np

import peconform

D = 16
AXES = 2
_rng = np.random.default_rng(49)


def unit_spectral_norm(generator):
    """The generator scaled so that its largest |eigenvalue| is 1 (then |angle| <= |p_x| + |p_y|)."""
    return generator / np.max(np.abs(np.linalg.eigvals(generator)))


def generic_generators():
    """Skew-symmetric (B - B^T) / 2 for random B, one per axis: they do not commute."""
    out = []
    for _ in range(AXES):
        b = _rng.standard_normal((D, D))
        out.append(unit_spectral_norm((b - b.T) / 2))
    return np.stack(out)


def commuting_generators():
    """Q B_a Q^T, B_a block-diagonal with 2x2 blocks [[0, -w], [w, 0]] on the same pairs."""
    q, _ = np.linalg.qr(_rng.standard_normal((D, D)))
    out = []
    for _ in range(AXES):
        b = np.zeros((D, D))
        for pair, w in enumerate(_rng.uniform(-1, 1, D // 2)):
            b[2 * pair + 1, 2 * pair], b[2 * pair, 2 * pair + 1] = w, -w
        out.append(unit_spectral_norm(q @ b @ q.T))
    return np.stack(out)


def lie_rotation(generators):
    """x -> exp(sum_a p_a A_a) x, the exponential of a skew-symmetric M from the eigenvectors of
    the Hermitian i M (exp(M) = V diag(exp(-i w)) V^H), in float64, stored as x."""

    def rotate(x, positions):
        m = np.einsum("ra,aij->rij", positions.astype(np.float64), generators)
        w, v = np.linalg.eigh(1j * m)
        rotation = np.real(np.einsum("rij,rj,rkj->rik", v, np.exp(-1j * w), v.conj()))
        return np.einsum("rij,rj->ri", rotation, x.astype(np.float64)).astype(x.dtype)

    return rotate


HOLDS_FOR_ANY_GENERATORS = {
    "rotationPreservesNormPerPair": "held",
    "rotationsComposeAdditively[axis 0]": "held",
    "rotationsComposeAdditively[axis 1]": "held",
    "rotationAtPositionZeroIsTheIdentity": "held",
    "rotationAtNegatedPositionIsTheTranspose": "held",
    "rotationIsLinearInX": "held",
    "distinctPositionsGiveDistinctRotations": "held",
    "partialRotaryLeavesPassThroughDimsBitIdentical": "refused",
}
NEEDS_COMMUTING_GENERATORS = ["innerProductDependsOnlyOnRelativePosition", "rotationsComposeAdditively",
                              "rotationsComposeAdditively[axes 0,1]"]


def check(name, generators, commuting):
    # Positions up to 255 per axis keep float64's eigen-decomposition error (about d 2^-52 |M|)
    # far inside exact-angle's bound for float32 outputs.
    result = peconform.properties(lie_rotation(generators), kind="rotary", d=D, dtype="fp32", precision="exact-angle",
                                  pairing="unknown", axes=AXES, max_position=255, negative_positions=True, cases=60)
    print(f"== {name}\n{result}\n")
    expected = dict(HOLDS_FOR_ANY_GENERATORS)
    expected.update({relation: "held" if commuting else "failed" for relation in NEEDS_COMMUTING_GENERATORS})
    verdicts = {outcome.name: outcome.verdict for outcome in result.outcomes}
    wrong = {relation: (verdicts.get(relation), want) for relation, want in expected.items() if verdicts.get(relation) != want}
    for relation, (got, want) in wrong.items():
        print(f"MISMATCH {name}, {relation}: {got}, the theory says {want}")
    norm = result["rotationPreservesNormPerPair"]
    if "whole rotated slice" not in norm.scope:
        print(f"MISMATCH {name}: the norm was checked over {norm.scope!r}, not the whole vector")
        return False
    return not wrong


def main():
    commuting = commuting_generators()
    generic = generic_generators()
    print(f"generic generators commute to within {np.max(np.abs(generic[0] @ generic[1] - generic[1] @ generic[0])):.3f} "
          f"(largest entry of [A_x, A_y]); the commuting ones to {np.max(np.abs(commuting[0] @ commuting[1] - commuting[1] @ commuting[0])):.1e}\n")
    ok = check("LieRE, commuting generators", commuting, True)
    ok = check("LieRE, generic generators", generic, False) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
