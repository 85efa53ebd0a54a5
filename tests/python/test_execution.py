"""check(execution=): where and how the callable ran, in the reports and the verdict line; taken
from peconform.triton's interpreter mode when that module is imported (issue 48)."""
import json
import sys
import types

import pytest

import peconform
from rotate_half_numpy import rope as rope_numpy

HF_FP32 = "rope(d=64,layout=half,dtype=fp32,precision=fp32-angle,theta=hf)"
SMALL = {"profile": "smoke", "cases": 4}


def test_the_execution_is_in_every_report_and_the_verdict_line(tmp_path):
    result = peconform.check(rope_numpy, spec=HF_FP32, out=tmp_path, execution="cpu, numpy", **SMALL)
    assert result and result.execution == "cpu, numpy"
    assert result.verdict_line.endswith("; execution: cpu, numpy")
    assert json.loads((tmp_path / "report.json").read_text())["run"]["execution"] == "cpu, numpy"
    assert "| execution | cpu, numpy |" in (tmp_path / "summary.md").read_text()
    assert "<tr><th>execution</th><td>cpu, numpy</td></tr>" in (tmp_path / "report.html").read_text()


def test_unset_it_is_absent(monkeypatch):
    monkeypatch.delitem(sys.modules, "peconform.triton", raising=False)
    result = peconform.check(rope_numpy, spec=HF_FP32, **SMALL)
    assert result.execution is None and "execution" not in result.report["run"]
    assert "execution" not in result.verdict_line


def test_peconform_triton_states_it_when_imported(monkeypatch):
    fake = types.ModuleType("peconform.triton")
    fake.execution = lambda: "triton 3.9.0 interpreter, GPU-faithful"
    monkeypatch.setitem(sys.modules, "peconform.triton", fake)
    result = peconform.check(rope_numpy, spec=HF_FP32, **SMALL)
    assert result.report["run"]["execution"] == "triton 3.9.0 interpreter, GPU-faithful"
    assert result.verdict_line.endswith("; execution: triton 3.9.0 interpreter, GPU-faithful")
    # The caller's words win; a module that states nothing leaves it unset.
    assert peconform.check(rope_numpy, spec=HF_FP32, execution="mine", **SMALL).execution == "mine"
    fake.execution = lambda: None
    assert "execution" not in peconform.check(rope_numpy, spec=HF_FP32, **SMALL).report["run"]


@pytest.mark.parametrize("value, error, named", [
    (3, TypeError, "execution is 3; expected a one-line description"),
    (" ", ValueError, "execution is ' '; expected a description"),
    ("two\nlines", peconform.SpecError, "execution is 'two\nlines'; expected one line"),
])
def test_an_execution_that_is_no_description_is_refused_by_name(value, error, named):
    with pytest.raises(error, match=named):
        peconform.check(rope_numpy, spec=HF_FP32, execution=value, **SMALL)
