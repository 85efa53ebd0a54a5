"""Out-of-place callables and unwritten output (issue 48): what a callable returns is its own
array, which peconform never filled; and output="argument" hands it peconform's, filled, instead."""
import collections

import numpy as np
import pytest

import peconform
from rotate_half_numpy import rope as rope_numpy

HF_FP32 = "rope(d=64,layout=half,dtype=fp32,precision=fp32-angle,theta=hf)"
SMALL = {"profile": "smoke", "cases": 6}


def all_but_the_last_token(x, positions, spec, out):
    """A launch grid one program short: every token written but the last (flattened batch x seq)."""
    y = rope_numpy(x, positions, spec)
    written = np.ones(x.shape[:2], dtype=bool)
    written.reshape(-1)[-1] = False
    out[written] = y[written]


def test_bits_of_a_peconform_sentinel_in_the_callables_own_array_are_not_its_sentinel():
    # numpy.empty hands out memory a freed peconform buffer held, sentinels and all; emulated
    # here exactly: the last token holds x's first guard element (x.base is the staged buffer).
    def short_grid(x, positions, spec):
        out = np.empty(x.shape, x.dtype)
        out[...] = x.base[:4].view(x.dtype)[0]
        all_but_the_last_token(x, positions, spec, out)
        return out

    result = peconform.check(short_grid, spec=HF_FP32, place="out", **SMALL)
    assert not result and len(result.failures) == 6
    for failure in result.failures:
        assert failure.kind == "nan", failure.message  # a NaN where a number belongs, not an out-of-bounds read
        assert failure.actual.startswith("bits 0x") and "in the kernel's own array, which peconform never filled" in failure.actual
        assert failure.actual.endswith("the guard sentinel of input q"), failure.actual
        assert not failure.flaky


def test_garbage_that_changes_from_run_to_run_is_one_failure_and_not_flaky():
    # What an unwritten element of numpy.empty holds changes between calls: here a NaN, a zero, a
    # huge number or -x in turn, which fail as nan, numeric or sign. The defect is the same every
    # run: replays that fail another of those ways reproduce it, so nothing is flaky (and no
    # replays walk back towards the drawn case, which made such a run five times slower).
    calls = []

    def short_grid(x, positions, spec):
        calls.append(1)
        out = np.empty(x.shape, x.dtype)
        out[...] = -x if len(calls) % 4 == 3 else [np.nan, 0.0, 3e38][len(calls) % 4]
        all_but_the_last_token(x, positions, spec, out)
        return out

    result = peconform.check(short_grid, spec=HF_FP32, place="out", profile="smoke", cases=12)
    assert not result and len(result.failures) == 12
    assert [f.flaky for f in result.failures] == [False] * 12, [f.message for f in result.failures if f.flaky][:1]
    assert len({f.kind for f in result.failures}) > 1  # the garbage did vary the kinds


def test_a_replay_that_passes_by_chance_is_flaky_and_the_note_says_why():
    # Leftover memory can hold the right values (the last call's output, freed and handed out
    # again): a replay then passes. That is flaky, and the note names the callable's own array.
    calls = []

    def stale_memory(x, positions, spec):
        calls.append(1)
        out = np.full(x.shape, np.nan, x.dtype)
        if len(calls) % 3 == 0:
            return rope_numpy(x, positions, spec)
        all_but_the_last_token(x, positions, spec, out)
        return out

    result = peconform.check(stale_memory, spec=HF_FP32, place="out", profile="smoke", cases=3)
    flaky = [f for f in result.failures if f.flaky]
    assert flaky, [f.message for f in result.failures]
    assert all("the kernel returned an array of its own" in f.message for f in flaky)


def test_output_argument_fills_out_so_an_unwritten_element_fails_as_unwritten():
    def short_grid(x, positions, spec, out):
        all_but_the_last_token(x, positions, spec, out)

    # Out of place (in place, out is x, and what is left unwritten still holds the input).
    result = peconform.check(short_grid, spec=HF_FP32, output="argument", place="out", **SMALL)
    assert not result and len(result.failures) == 6
    for failure in result.failures:
        assert failure.kind == "unwritten" and not failure.flaky
        assert failure.actual.endswith("(the unwritten sentinel of output q)"), failure.actual
        assert failure.replay.endswith(', output="argument")')
    replayed = peconform.check(short_grid, replay=result.failures[0].case, output="argument")
    assert not replayed and replayed.failures[0].kind == "unwritten"


def test_output_argument_is_x_itself_in_an_in_place_call():
    seen = collections.Counter()

    def writes_out(x, positions, spec, out):
        seen[out is x] += 1
        out[...] = rope_numpy(x, positions, spec)

    assert peconform.check(writes_out, spec=HF_FP32, output="argument", profile="smoke", cases=20)
    assert seen[True] > 0 and seen[False] > 0  # both calls were drawn
    seen.clear()
    assert peconform.check(writes_out, spec=HF_FP32, output="argument", place="in", **SMALL)
    assert seen == {True: seen[True]}


def test_output_argument_serves_every_family_signature():
    def sinusoid(positions, spec, out):
        out[...] = peconform.reference(spec, positions)

    assert peconform.check(sinusoid, spec="sinusoidal(d=16|32,dtype=fp32)", output="argument", **SMALL)

    def alibi(queries, keys, spec, out):
        pairs = np.array([(q, k) for q in queries for k in keys], dtype=np.int64)
        out[...] = peconform.reference(spec, pairs).reshape(len(queries), len(keys), -1).transpose(2, 0, 1)

    assert peconform.check(alibi, spec="alibi(heads=4)", output="argument", **SMALL)


def test_output_argument_with_torch_tensors():
    torch = pytest.importorskip("torch")

    def short_grid(x, positions, spec, out):
        assert isinstance(out, torch.Tensor) and out.shape == x.shape
        y = torch.from_numpy(rope_numpy(x.numpy(), positions.numpy(), spec))
        out[:, :-1] = y[:, :-1]  # every batch row's last token left unwritten

    result = peconform.check(short_grid, spec=HF_FP32, array="torch", output="argument", place="out", **SMALL)
    assert not result and {f.kind for f in result.failures} == {"unwritten"}


def test_output_argument_refuses_a_returned_array_and_output_names_its_choices():
    def returns_its_own(x, positions, spec, out):
        return rope_numpy(x, positions, spec)

    result = peconform.check(returns_its_own, spec=HF_FP32, output="argument", **SMALL)
    assert not result and result.failures[0].kind == "wrong-return"
    assert 'with output="argument" fn writes into out and returns None or out itself; it returned a ndarray' in result.failures[0].message
    with pytest.raises(ValueError, match="output is 'buffer'; expected 'return'"):
        peconform.check(rope_numpy, spec=HF_FP32, output="buffer", **SMALL)


def test_the_cases_run_are_counted_and_numbered_from_1():
    result = peconform.check(rope_numpy, spec="rope(d=64,layout=half,dtype=fp32)", **SMALL)
    assert result.cases == 6 == result.report["run"]["cases_run"]
    assert result.failures and all(1 <= f.index <= result.cases for f in result.failures)
    assert result.failures[0].index == result.report["failures"][0]["case_index"]
