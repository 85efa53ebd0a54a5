"""Every judged rope, rope2d and mrope row of every installed library, in float32, held to peconform's exact reference of the
row's own spec at small positions, where float32 angles are still close to exact: the kernel a
row builds must compute the spec the row states (and a row whose `finding` says the library
departs from it must still depart, or the finding is stale). A spec naming another base, factor, pairing or
head cut than the kernel is built with, or an adapter handing upstream one batch row's positions
for every row, fails here, rather than reaching the matrix as the library's failure. Skips a
library that is not installed (its adapter does not import).
"""
import importlib

import numpy as np
import pytest

peconform = pytest.importorskip("peconform", reason="the peconform module is not built (build/release/python)")

LIBRARIES = ["transformers", "torchtune", "rotary_embedding_torch", "x_transformers", "timm", "keras_hub",
             "onnxruntime", "mlx", "vllm"]
# Two batch rows with different positions, all up to 200 (rope2d and mrope: the other axes' are
# these reversed, and these plus 7).
POSITIONS = np.array([[0, 1, 2, 5, 17, 100], [3, 4, 9, 64, 150, 200]], dtype=np.int64)
HEADS = 2
# Up to position 200 a float32 angle is within 200 * 16 * 2^-23 rad of the exact one for any
# frequency up to 16 (rotary-embedding-torch's pixel frequencies reach 5 pi), and the rotation's
# roundings add a few 2^-24: 2^-10 of |x| <= 1 is above that and well below what a wrong base,
# factor, pairing or position moves an element by.
TOLERANCE = 2.0**-10


def adapter(library):
    try:
        return importlib.import_module(f"adapt_{library}")
    except ImportError as missing:
        pytest.skip(f"{library} is not installed ({missing})")


def as_array(values, array):
    if array == "numpy":
        return values
    import torch
    return torch.from_numpy(values)


AXES = {"rope": 1, "rope2d": 2, "mrope": 3}


def call_positions(family):
    """What the callable takes (docs/python.md): [batch, seq], rope2d's [2, batch, seq], mrope's
    [3, batch, seq]."""
    axes = [POSITIONS, POSITIONS[:, ::-1], POSITIONS + 7][:AXES[family]]
    return POSITIONS if family == "rope" else np.stack(axes)


def reference_positions(family, batch):
    """The batch row's positions as peconform.reference takes them: one row of 2 or 3 per token
    for rope2d and mrope."""
    if family == "rope":
        return POSITIONS[batch].tolist()
    return np.stack(call_positions(family)[:, batch], 1).tolist()


@pytest.mark.parametrize("library", LIBRARIES)
def test_rows_agree_with_the_reference_of_their_spec(library):
    module = adapter(library)
    # Each row's float32 column (a row held only to a bf16 module cast is x-transformers' finding).
    checked = [(row, column) for row in module.rows() if not row.awaiting and row.family in AXES
               for column in row.columns[:1] if "dtype=" not in column.keys]
    assert checked, f"{library} has no float32 rope, rope2d or mrope row"
    rng = np.random.default_rng(31)
    for row, column in checked:
        spec = peconform.Spec(column.spec_text(row.spec))
        x = rng.uniform(-1, 1, size=(*POSITIONS.shape, HEADS, spec.d)).astype(np.float32)
        y = row.kernel()(as_array(x, column.array), as_array(call_positions(row.family), column.array), spec)
        y = np.asarray(y if column.array == "numpy" else y.numpy(), dtype=np.float64)
        worst = max(np.max(np.abs(y[batch, :, head, :] - peconform.reference(
                        spec, reference_positions(row.family, batch), x=x[batch, :, head, :].astype(np.float64))))
                    for batch in range(POSITIONS.shape[0]) for head in range(HEADS))
        if row.finding:
            assert worst > TOLERANCE, f"{row.key} agrees with its spec (worst {worst:.3g}): is '{row.finding}' fixed?"
        else:
            assert worst <= TOLERANCE, f"{row.key}: off by {worst:.3g}"
