"""Campaign shapes for slow callables (issue 48): a check bounds its cost by the largest tensor
(max_elements), by the tokens of a call (max_tokens: a one-program-per-token kernel's launches)
or by a time budget, whose verdict then says PARTIAL."""
import numpy as np
import pytest

import peconform
from rotate_half_numpy import rope as rope_numpy

HF_FP32 = "rope(d=64,layout=half,dtype=fp32,precision=fp32-angle,theta=hf)"


def recording(fn, seen):
    """fn, noting the shape of every array it is handed first and its first position."""
    def called(*arguments):
        first = arguments[0]
        seen.append((first.shape, int(np.asarray(arguments[1]).reshape(-1)[0]) if first.ndim > 1 else int(first[0])))
        return fn(*arguments)
    called.__qualname__ = fn.__name__
    return called


def test_every_call_keeps_within_both_bounds_and_the_report_records_them():
    seen = []
    result = peconform.check(recording(rope_numpy, seen), spec="rope(d=64|128,layout=half,dtype=fp32,precision=fp32-angle,theta=hf)",
                             profile="ci", cases=60, max_elements=8192, max_tokens=16)
    assert result, str(result)
    assert result.report["run"]["max_elements"] == 8192 and result.report["run"]["max_tokens"] == 16
    tokens = [shape[0] * shape[1] for shape, _ in seen]
    sizes = [int(np.prod(shape)) for shape, _ in seen]
    assert max(tokens) == 16 and max(sizes) <= 8192
    assert max(sizes) > 4096  # drawn up to the bound, not far below it
    # Unbounded, the ci profile draws calls far past both.
    unbounded = []
    peconform.check(recording(rope_numpy, unbounded), spec=HF_FP32, profile="ci", cases=60)
    assert max(shape[0] * shape[1] for shape, _ in unbounded) > 16
    assert max(int(np.prod(shape)) for shape, _ in unbounded) > 8192


def test_tables_and_biases_count_rows_queries_and_keys_as_tokens():
    def sinusoid(positions, spec):
        return peconform.reference(spec, positions).astype(np.float32)

    seen = []
    assert peconform.check(recording(sinusoid, seen), spec="sinusoidal(d=16|32,dtype=fp32)", profile="ci", cases=30, max_tokens=8,
                           max_elements=200)
    assert all(shape[0] <= 8 for shape, _ in seen) and max(shape[0] for shape, _ in seen) == 8

    def alibi(queries, keys, spec):
        seen.append((len(queries), len(keys)))
        pairs = np.array([(q, k) for q in queries for k in keys], dtype=np.int64)
        return np.ascontiguousarray(peconform.reference(spec, pairs).reshape(len(queries), len(keys), -1).transpose(2, 0, 1)).astype(np.float32)

    seen.clear()
    assert peconform.check(alibi, spec="alibi(heads=4)", profile="ci", cases=30, max_tokens=8, max_elements=100)
    assert all(q <= 8 and k <= 8 and 4 * q * k <= 100 for q, k in seen), seen


def test_the_same_seed_draws_the_same_bounded_cases_at_any_thread_count():
    drawn = {}
    for threads in (1, 2):
        seen = []
        peconform.check(recording(rope_numpy, seen), spec=HF_FP32, profile="ci", cases=40, max_elements=4096, max_tokens=8,
                        threads=threads)
        drawn[threads] = seen
    assert drawn[1] == drawn[2] and len(drawn[1]) >= 40


@pytest.mark.parametrize("keyword, value, error, named", [
    ("max_elements", 0, peconform.SpecError, "max_elements is 0; expected 1 or more"),
    ("max_tokens", -3, peconform.SpecError, "max_tokens is -3; expected 1 or more"),
    ("max_elements", 63, peconform.SpecError, "max_elements is 63, below the 64 elements of one token of one head of d=64"),
    ("max_elements", 4096.0, TypeError, "max_elements is 4096.0; expected a whole number"),
    ("max_tokens", True, TypeError, "max_tokens is True; expected a whole number"),
])
def test_a_bound_that_cannot_be_kept_is_refused_naming_its_value(keyword, value, error, named):
    with pytest.raises(error, match=named):
        peconform.check(rope_numpy, spec=HF_FP32, profile="smoke", cases=4, **{keyword: value})


def test_a_run_stopped_by_its_time_budget_says_partial():
    calls = []

    def slow(x, positions, spec):
        calls.append(1)
        return rope_numpy(x, positions, spec)

    result = peconform.check(slow, spec=HF_FP32, profile="smoke", cases=50, time_budget=1e-6)
    assert result.partial and result.verdict == "partial" and not result and not result.conformant
    assert result.cases < 50
    assert result.verdict_line.startswith("PARTIAL, conformant so far: 0 failing cases in ")
    assert result.verdict_line.endswith(f"({result.cases} of 50 cases run, time budget of 1e-06 s reached)")
