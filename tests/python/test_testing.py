"""peconform.testing.assert_conforms: one line in a pytest test."""
import re

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
    assert re.search(r"^case: rope\(d=64,base=10000,layout=half\) \| batch=\d+ seq=\d+ ", message, re.M)
    assert re.search(r"^first failure: (numeric|sign) in q element \d+ at \(\d+, \d+, \d+, \d+\)$", message, re.M)
    assert re.search(r"^position: \d+$", message, re.M)
    ratio = float(re.search(r"^error / bound: (\S+)$", message, re.M).group(1))
    assert ratio > 1
    assert re.search(r"^replay: peconform\.check\(rope, replay='rope\(d=64,.*'\)$", message, re.M)


def test_a_run_stopped_by_its_time_budget_is_no_pass():
    # Stopped before its cases ran, or after some: either way what it checked is not the run asked for.
    with pytest.raises(AssertionError, match="not a pass"):
        assert_conforms(rope_numpy, "rope(d=64,layout=half,dtype=fp32,precision=fp32-angle,theta=hf)", time_budget=1e-9, **SMALL)
