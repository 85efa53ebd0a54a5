"""What the Triton adapters' tests share (test_liger_kernel.py, test_flash_attn.py,
test_unsloth.py, test_xformers.py): skipping the module where Triton's interpreter cannot run here
(Debian's torch 1.13, no triton: ctest's upstream_matrix_report_test), else putting the
GPU-faithful mode in force before anything imports triton, as conformance.py does before it
builds a cell's kernel; and test_rows_agree_with_their_specs.py's check of a row's spec against
its kernel, for rows held in place too."""
import importlib.util

import numpy as np
import pytest

# As test_rows_agree_with_their_specs.py: two batch rows of positions up to 200, where float32
# angles are within 200 * 2^-23 rad of exact, so 2^-10 of |x| <= 1 is above every recipe's
# rounding and far below what a wrong base, factor, pairing, head cut or position moves.
POSITIONS = np.array([[0, 1, 2, 5, 17, 100], [3, 4, 9, 64, 150, 200]], dtype=np.int64)
HEADS = 2
TOLERANCE = 2.0**-10


def gpu_faithful_or_skip(*packages):
    """Skips the calling test module, saying what is missing, or selects the GPU-faithful mode.
    `packages`: what the adapter imports besides torch and triton (found, not imported: importing
    them would import triton before the mode is chosen)."""
    import peconform.triton

    missing = peconform.triton.missing()
    if missing:
        pytest.skip(missing, allow_module_level=True)
    for package in packages:
        if importlib.util.find_spec(package) is None:
            pytest.skip(f"{package} is not installed (tools/upstream/requirements/)", allow_module_level=True)
    peconform.triton.select("gpu-faithful")


def assert_computes_its_spec(row):
    """The row's kernel, on float32 x in its first column's place, within TOLERANCE of peconform's
    reference of the row's spec (rope) in every batch row and head."""
    import peconform
    import torch

    column = row.columns[0]
    spec = peconform.Spec(column.spec_text(row.spec))
    x = np.random.default_rng(31).uniform(-1, 1, size=(*POSITIONS.shape, HEADS, spec.d)).astype(np.float32)
    given = torch.from_numpy(x.copy())
    y = row.kernel()(given, torch.from_numpy(POSITIONS), spec)
    y = (given if column.place == "in" else y).numpy().astype(np.float64)
    worst = max(np.max(np.abs(y[b, :, h] - peconform.reference(spec, POSITIONS[b].tolist(), x=x[b, :, h].astype(np.float64))))
                for b in range(POSITIONS.shape[0]) for h in range(HEADS))
    assert worst <= TOLERANCE, f"{row.key}: off its spec by {worst:.3g}"
