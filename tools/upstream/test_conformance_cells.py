"""conformance.py's cells of Triton kernels: a column's execution mode is put in force before the
row's kernel is built (a Triton kernel is interpreted or compiled as triton was imported), and a
slow row's shape bounds reach peconform.check. The bounds need nothing but Python; the modes need
torch 2 and triton (the triton upstream venv) and skip elsewhere."""
import pytest

import conformance
from rows import Column, Row


def row_with(columns, **bounds):
    built = []

    def kernel():
        import peconform.triton
        built.append(peconform.triton.mode())
        return lambda x, positions, spec: x

    return Row("lib", "rope", "key", "name", "rope(d=8)", tuple(columns), kernel, **bounds), built


def test_only_a_rows_own_bounds_reach_check():
    assert conformance.bounds(row_with([])[0]) == {}
    assert conformance.bounds(row_with([], max_tokens=4)[0]) == {"max_tokens": 4}
    assert conformance.bounds(row_with([], max_tokens=4, max_elements=2048)[0]) == {"max_tokens": 4, "max_elements": 2048}


def test_each_cell_builds_its_kernel_under_its_columns_mode():
    import peconform.triton
    missing = peconform.triton.missing()
    if missing:
        pytest.skip(missing)
    columns = [Column("a", "", "m", execution="shipped"), Column("b", "", "m", execution="gpu-faithful"),
               Column("c", "", "m", execution="shipped")]
    row, built = row_with(columns)
    for column in columns:
        conformance.prepared(row, column)
    assert built == ["shipped", "gpu-faithful", "shipped"]
