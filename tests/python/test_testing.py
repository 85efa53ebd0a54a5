"""peconform.testing.assert_conforms: one line in a pytest test."""
import json
import pathlib
import re

import numpy as np
import pytest

import peconform
from peconform.testing import assert_conforms
from rotate_half_numpy import rope as rope_numpy

SMALL = {"profile": "smoke", "cases": 6}


def test_a_conformant_kernel_passes_and_returns_the_result():
    result = assert_conforms(rope_numpy, "rope(d=64,layout=half,dtype=fp32,precision=fp32-angle,theta=hf)", **SMALL)
    assert isinstance(result, peconform.CheckResult) and result.conformant


def test_the_failure_message_holds_the_case_the_element_the_ratio_and_a_replay_line():
    with pytest.raises(AssertionError) as raised:
        assert_conforms(rope_numpy, "rope(d=64,layout=half,dtype=fp32,precision=exact-angle)", max_failures=1, **SMALL)
    message = str(raised.value)
    print(message)  # what pytest shows the user (pytest -s)
    assert message.startswith("non-conformant: ")
    assert message.count("replay: ") == 1
    assert re.search(r"^case: rope\(d=64,base=10000,layout=half\) \| batch=\d+ seq=\d+ ", message, re.M)
    assert re.search(r"^first failure: (numeric|sign) in q element \d+ at \(\d+, \d+, \d+, \d+\)$", message, re.M)
    assert re.search(r"^position: \d+$", message, re.M)
    ratio = float(re.search(r"^error / bound: (\S+)$", message, re.M).group(1))
    assert ratio > 1
    assert re.search(r"^replay: peconform\.check\(rope, replay='rope\(d=64,.*'\)$", message, re.M)


def rope_theta_fp16(x, positions, spec):
    """rotate_half with its inverse frequencies held in fp16: every case fails under fp32-angle."""
    rot, half = spec.rotary_dims, spec.rotary_dims // 2
    exponents = np.arange(0, rot, 2, dtype=np.int64).astype(np.float32) / np.float32(rot)
    inv_freq = (np.float32(1.0) / np.power(np.float32(spec.base), exponents)).astype(np.float16).astype(np.float32)
    both = np.concatenate([positions.astype(np.float32)[..., None] * inv_freq] * 2, axis=-1)
    r, y = x[..., :rot], x.copy()
    with np.errstate(over="ignore", invalid="ignore"):
        y[..., :rot] = r * np.cos(both)[:, :, None, :] + np.concatenate([-r[..., half:], r[..., :half]], axis=-1) * np.sin(both)[:, :, None, :]
    return y


def test_a_run_where_every_case_fails_reads_as_its_first_failure_and_a_count():
    # Issue 48: this message held all 120 failures in full, 141,470 characters in 1,801 lines.
    with pytest.raises(AssertionError) as raised:
        assert_conforms(rope_theta_fp16, "rope(d=64,layout=half,dtype=fp32,precision=fp32-angle,theta=hf)", profile="smoke")
    message, result = str(raised.value), raised.value.result
    print(f"{len(message)} characters, {len(message.splitlines())} lines:\n{message}")
    assert len(result.failures) == result.cases == 120
    lines = message.splitlines()
    assert lines[0] == result.verdict_line and lines[0].startswith("non-conformant: 120 failing cases")
    assert lines[2] == "first failure (case 1 of 120 run), shrunk:"
    assert result.failures[0].message in message
    assert message.count("replay: ") == 1 and message.count("case: ") == 1  # the first failure alone in full
    assert re.search(r"^119 more failing cases \(\d+ (numeric|sign)(, \d+ (numeric|sign))*\)$", message, re.M)
    folder = re.search(r"in the reports in (\S+) \(report\.html", message).group(1)
    assert (pathlib.Path(folder) / "report.html").is_file()
    assert json.loads((pathlib.Path(folder) / "report.json").read_text())["failures"] == result.report["failures"]
    assert len(message) < len(result.failures[0].message) + 500


def test_a_folder_given_as_out_is_the_one_named(tmp_path):
    with pytest.raises(AssertionError, match=f"in the reports in {tmp_path} "):
        assert_conforms(rope_theta_fp16, "rope(d=64,layout=half,dtype=fp32,precision=fp32-angle,theta=hf)", profile="smoke",
                        cases=3, out=tmp_path)


def test_a_run_stopped_by_its_time_budget_is_no_pass():
    # Stopped before its cases ran, or after some: either way what it checked is not the run asked for.
    with pytest.raises(AssertionError, match="not a pass"):
        assert_conforms(rope_numpy, "rope(d=64,layout=half,dtype=fp32,precision=fp32-angle,theta=hf)", time_budget=1e-9, **SMALL)
