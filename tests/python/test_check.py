"""peconform.check(): the campaign with a Python callable as its kernel."""
import json
import os
import signal

import numpy as np
import pytest

import peconform
from rotate_half_numpy import rope as rope_numpy
from rotate_half_torch import rope as rope_torch

HF_FP32 = "rope(d=64,layout=half,dtype=fp32,precision=fp32-angle,theta=hf)"
SMALL = {"profile": "smoke", "cases": 6}


def test_hf_rotate_half_in_numpy_conforms_under_fp32_angle_theta_hf():
    result = peconform.check(rope_numpy, spec=HF_FP32, **SMALL)
    assert result.conformant and bool(result) and result.verdict == "conformant"
    assert result.failures == [] and result.elements > 0
    assert 0 < result.worst_ratio < 1
    assert [(c["backend"], c["family"], c["dtype"], c["precision"]) for c in result.cells] == [("rope", "rope", "fp32", "fp32-angle")]


def test_the_same_kernel_breaks_exact_angle_at_long_positions_with_a_replay_line():
    result = peconform.check(rope_numpy, spec="rope(d=64,layout=half,dtype=fp32)", **SMALL)
    assert not result and result.verdict == "non-conformant"
    failure = result.failures[0]
    assert failure.ratio > 1 and failure.kind in ("numeric", "sign")
    assert int(failure.position) > 2**16  # float32 angles go wrong far out, not near 0
    assert failure.case in failure.message and failure.replay in failure.message
    assert failure.replay == f"peconform.check(rope, replay={failure.case!r})"  # the callable by its own name
    replayed = peconform.check(rope_numpy, replay=failure.case)
    assert not replayed and replayed.failures[0].case == failure.case


def test_a_pattern_draws_every_choice_and_torch_carries_bf16():
    seen = set()

    def rope64(x, positions, spec):
        import torch
        seen.add((spec.d, spec.dtype))
        rot, half = spec.rotary_dims, spec.rotary_dims // 2
        angles = positions.to(torch.float64)[..., None] * spec.base ** (-torch.arange(0, rot, 2, dtype=torch.float64) / rot)
        cos, sin = torch.cat([angles, angles], -1).cos()[:, :, None, :], torch.cat([angles, angles], -1).sin()[:, :, None, :]
        r = x[..., :rot].to(torch.float64)
        return torch.cat([(r * cos + torch.cat([-r[..., half:], r[..., :half]], -1) * sin).to(x.dtype), x[..., rot:]], -1)

    result = peconform.check(rope64, spec="rope(d=32|64,layout=half,dtype=bf16|fp32)", array="torch", profile="smoke", cases=12)
    assert result.conformant, str(result)
    assert {d for d, _ in seen} == {32, 64} and {t for _, t in seen} == {"bf16", "fp32"}


def test_hf_rotate_half_in_torch_conforms():
    assert peconform.check(rope_torch, spec=HF_FP32, array="torch", **SMALL)


def test_a_callable_that_writes_x_in_place_and_returns_none():
    def in_place(x, positions, spec):
        x[...] = rope_numpy(x, positions, spec)

    assert peconform.check(in_place, spec=HF_FP32, place="in", **SMALL)
    # Out of place, x is the input: writing it is caught.
    result = peconform.check(in_place, spec=HF_FP32, place="out", **SMALL)
    assert not result and result.failures[0].kind == "input-modified"


def test_an_exception_fails_its_case_with_the_traceback():
    def raises(x, positions, spec):
        raise RuntimeError("no kernel for d=%d" % spec.d)

    result = peconform.check(raises, spec=HF_FP32, **SMALL)
    assert not result and len(result.failures) > 0
    failure = result.failures[0]
    assert failure.kind == "exception"
    assert "Traceback (most recent call last)" in failure.message
    assert "RuntimeError: no kernel for d=64" in failure.message
    assert "test_check.py" in failure.message


@pytest.mark.parametrize("returned, expected", [
    (lambda x: np.zeros(3, np.float32), "returned shape (3,); expected a float32 array of shape"),
    (lambda x: x.astype(np.float64), "returned float64 of shape"),
    (lambda x: [1.0, 2.0], "returned a list, which has no __dlpack__; expected a float32 array"),
])
def test_a_wrong_return_names_what_was_expected(returned, expected):
    def wrong(x, positions, spec):
        return returned(x)

    result = peconform.check(wrong, spec=HF_FP32, **SMALL)
    assert not result
    assert result.failures[0].kind == "wrong-return"
    assert expected in result.failures[0].message


def test_tables_and_relative_biases_take_their_own_signatures():
    # The reference's own values rounded once to the dtype: conformant, whatever the case draws.
    def sinusoid(positions, spec):
        assert positions.dtype == np.int64 and positions.ndim == 1
        return peconform.reference(spec, positions).astype(np.float32)

    assert peconform.check(sinusoid, spec="sinusoidal(d=16|32,dtype=fp32)", **SMALL)

    def alibi(queries, keys, spec):
        pairs = np.array([(q, k) for q in queries for k in keys], dtype=np.int64)
        biases = peconform.reference(spec, pairs).reshape(len(queries), len(keys), -1)
        return np.ascontiguousarray(biases.transpose(2, 0, 1)).astype(np.float32)  # [heads, queries, keys]

    assert peconform.check(alibi, spec="alibi(heads=4)", **SMALL)


def test_bf16_with_numpy_is_refused_by_name():
    with pytest.raises(ValueError, match='bf16 needs array="torch"'):
        peconform.check(rope_numpy, spec="rope(d=64,dtype=bf16)", **SMALL)
    with pytest.raises(ValueError, match='bf16 needs array="torch"'):
        peconform.check(rope_numpy, spec="rope(d=64,dtype=*)", dtype="bf16", **SMALL)


def test_reports_are_written_into_out(tmp_path):
    result = peconform.check(rope_numpy, spec=HF_FP32, out=tmp_path, **SMALL)
    assert sorted(os.listdir(tmp_path)) == ["junit.xml", "report.html", "report.json", "summary.md"]
    assert json.loads((tmp_path / "report.json").read_text()) == result.report
    assert result.report["run"]["filters"] == "spec " + HF_FP32


def test_ctrl_c_stops_the_campaign_between_cases_and_keeps_what_it_found(tmp_path):
    calls = []

    def interrupted_on_the_second_call(x, positions, spec):
        calls.append(1)
        if len(calls) == 2:
            os.kill(os.getpid(), signal.SIGINT)
        return rope_numpy(x, positions, spec)

    result = peconform.check(interrupted_on_the_second_call, spec=HF_FP32, profile="smoke", cases=20, out=tmp_path)
    assert result.partial and result.report["run"]["partial_reason"] == "interrupted"
    assert result.report["run"]["cases_run"] == 2 and len(calls) == 2
    assert json.loads((tmp_path / "report.json").read_text())["run"]["partial"] is True
    # Python's own Ctrl-C handling is back once check() returns.
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_callable_may_keep_its_arrays_and_what_it_wrote_still_counts():
    kept = []

    def keeping(x, positions, spec):
        kept.append((x, positions))
        return rope_numpy(x, positions, spec)

    assert peconform.check(keeping, spec=HF_FP32, **SMALL)
    # The arrays outlive the call (Python owns their memory); reading and writing them is harmless.
    for x, positions in kept:
        x[...] = 0
        assert int(positions.sum()) >= 0

    def writes_its_positions(x, positions, spec):
        y = rope_numpy(x, positions, spec)
        positions[...] = 0
        return y

    result = peconform.check(writes_its_positions, spec=HF_FP32, **SMALL)
    assert not result and "position ids" in result.failures[0].message


@pytest.mark.parametrize("keyword, value, named", [("cases", 0, "cases"), ("max_failures", 0, "max_failures"),
                                                   ("time_budget", -1, "time_budget"), ("threads", 0, "threads")])
def test_a_setting_that_would_check_nothing_is_refused_by_name(keyword, value, named):
    with pytest.raises(peconform.SpecError, match=named):
        peconform.check(rope_numpy, spec=HF_FP32, **{**SMALL, keyword: value})
