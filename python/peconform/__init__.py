"""peconform from Python: specs, the reference, and the conformance campaign on any callable.

    import peconform
    result = peconform.check(my_rope, spec="rope(d=64,dtype=fp32,precision=fp32-angle,theta=hf)")
    assert result, result

The campaign is the one `peconform run` runs (the same cases for the same seed, the same
verification, shrinking and reports); the callable is its kernel. README.md, "Python", has the
callable signatures and examples.
"""
import json
import os
import tempfile

from ._peconform import Spec, SpecError, list_families, reference, reference_digits
from . import _peconform

__all__ = ["Spec", "SpecError", "list_families", "reference", "reference_digits", "check", "CheckResult", "Failure"]

# The seed `peconform run` uses unless told otherwise, so that both draw the same cases.
DEFAULT_SEED = 20261121


class Failure:
    """One failing case, shrunk: where it first breaks its bound, and how to replay it."""

    def __init__(self, record, message):
        first = record["first_failure"]
        self.case = record["case"]
        self.kind = first["kind"]
        self.element = first["element"]
        self.at = tuple(first["at"])
        self.position = first["position"]
        self.reference = first["reference"]
        self.actual = first["actual"]
        self.ratio = float(first["ratio"])  # report.json writes non-finite numbers as "inf", "nan"
        self.replay = record["replay"]
        self.message = message

    def __repr__(self):
        return f"<peconform.Failure {self.kind} {self.case}>"

    def __str__(self):
        return self.message


class CheckResult:
    """What check() found: the verdict, the cells, the failures and the whole report."""

    def __init__(self, answer):
        self.report = json.loads(answer["report"])
        self.verdict = self.report["verdict"]
        self.conformant = self.verdict == "conformant"
        self.verdict_line = answer["verdict_line"]
        self.cells = self.report["cells"]
        self.elements = self.report["total_elements"]
        self.partial = self.report["run"]["partial"]
        self.failures = [Failure(record, message) for record, message in zip(self.report["failures"], answer["messages"])]
        ratios = [float(cell["worst_ratio"]) for cell in self.cells] + [f.ratio for f in self.failures]
        self.worst_ratio = max(ratios, default=0.0)

    def __bool__(self):
        return self.conformant

    def __repr__(self):
        return f"<peconform.CheckResult {self.verdict_line}>"

    def __str__(self):
        return "\n\n".join([self.verdict_line] + [f.message for f in self.failures])


def _names(value, what):
    if value is None:
        return []
    if isinstance(value, str):
        return [part for part in value.split(",")]
    if isinstance(value, (list, tuple)):
        return list(value)
    raise TypeError(f"{what} takes a name, a comma-separated string or a list of names, not {type(value).__name__}")


def _callable_name(fn):
    return getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or type(fn).__name__


def check(fn, spec=None, profile="ci", seed=None, cases=None, out=None, array="numpy", *, place=None, family=None,
          dtype=None, precision=None, replay=None, regressions=None, time_budget=None, max_failures=None, threads=None):
    """Runs the conformance campaign with `fn` as the kernel and returns a CheckResult.

    spec: a spec or a spec pattern (`rope(d=64|128,layout=*,dtype=fp32,precision=fp32-angle,theta=hf)`,
    several separated by ';') whose specs fn serves; None: every spec of every family.
    family, dtype, precision: filters, as `peconform run --family/--dtype/--precision`.
    array: "numpy" or "torch", what fn is handed (bf16 needs "torch").
    place: "in" if fn only writes x in place (returning None), "out" if it may only be called out of
    place; None: both (out of place, x is the input, which fn must not write).
    out: a folder for report.json, junit.xml, summary.md and report.html.
    replay: run exactly this case string (a failure's .case) and nothing else.
    regressions: a corpus folder to replay and to save failures into; None: neither.
    Ctrl-C stops the campaign between cases; the result is then partial (.partial), reports written.
    """
    if regressions is None:
        with tempfile.TemporaryDirectory(prefix="peconform-no-corpus-") as empty:
            return _check(fn, spec, profile, seed, cases, out, array, place, family, dtype, precision, replay, empty, False,
                          time_budget, max_failures, threads)
    return _check(fn, spec, profile, seed, cases, out, array, place, family, dtype, precision, replay, os.fspath(regressions), True,
                  time_budget, max_failures, threads)


def _check(fn, spec, profile, seed, cases, out, array, place, family, dtype, precision, replay, regressions, save, time_budget,
           max_failures, threads):
    if isinstance(spec, Spec):
        spec = spec.canonical
    answer = _peconform._check(
        fn, name=_callable_name(fn), spec=spec, profile=profile, seed=DEFAULT_SEED if seed is None else seed, cases=cases,
        out=None if out is None else os.fspath(out), array=array, place=place, families=_names(family, "family"),
        dtypes=_names(dtype, "dtype"), precisions=_names(precision, "precision"), replay=replay, regressions=regressions,
        save_regressions=save, time_budget=time_budget, max_failures=max_failures, threads=threads)
    return CheckResult(answer)
