"""peconform from Python: specs, the reference, and the conformance campaign on any callable.

    import peconform
    result = peconform.check(my_rope, spec="rope(d=64,dtype=fp32,precision=fp32-angle,theta=hf)")
    assert result, result

The campaign is the one `peconform run` runs (the same cases for the same seed, the same
verification, shrinking and reports); the callable is its kernel. docs/python.md has the
callable signatures and examples.
"""
import collections
import json
import numbers
import os
import sys
import tempfile

from ._peconform import Spec, SpecError, VariantError, list_families, reference, reference_digits
from . import _peconform

__all__ = ["Spec", "SpecError", "VariantError", "list_families", "reference", "reference_digits", "check", "CheckResult",
           "Failure", "properties", "PropertiesResult", "PropertyOutcome"]

# The seed `peconform run` uses unless told otherwise, so that both draw the same cases.
DEFAULT_SEED = 20261121


class Failure:
    """One failing case, shrunk: where it first breaks its bound, and how to replay it."""

    def __init__(self, record, message):
        first = record["first_failure"]
        self.case = record["case"]
        self.index = record["case_index"]  # the drawn case's number, from 1; 0 for a saved regression or a replay
        self.flaky = record["flaky"]
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

    def __init__(self, answer, reports=None):
        self.report = json.loads(answer["report"])
        run = self.report["run"]
        self.partial = run["partial"]
        # A run that stopped early (time_budget, Ctrl-C) with no failure proves nothing about the
        # cases it did not run: its verdict is "partial", and it is not conformant.
        found = self.report["verdict"]
        self.verdict = "partial" if self.partial and found == "conformant" else found
        self.conformant = self.verdict == "conformant"
        self.verdict_line = answer["verdict_line"]
        self.cells = self.report["cells"]
        self.elements = self.report["total_elements"]
        self.cases = run["cases_run"] + run["regressions_replayed"]
        self.execution = run.get("execution")
        self.reports = reports  # the folder check(out=) wrote the reports into, or None
        self.failures = [Failure(record, message) for record, message in zip(self.report["failures"], answer["messages"])]
        ratios = [float(cell["worst_ratio"]) for cell in self.cells] + [f.ratio for f in self.failures]
        self.worst_ratio = max(ratios, default=0.0)

    def __bool__(self):
        return self.conformant

    def __repr__(self):
        return f"<peconform.CheckResult {self.verdict_line}>"

    def __str__(self):
        return self.summary()

    def write_reports(self, folder):
        """Writes report.json, junit.xml, summary.md and report.html into `folder` (made if absent)
        and returns it; what check(out=folder) would have written."""
        _peconform._write_reports(json.dumps(self.report), os.fspath(folder))
        self.reports = os.fspath(folder)
        return self.reports

    def summary(self):
        """The verdict line, then the first failure in full (shrunk, with its replay line), then a
        count of the rest by kind and where to find them all: short enough to read in a test log.
        Every failure is in .failures, and in the reports."""
        lines = [self.verdict_line]
        if not self.failures:
            return lines[0]
        first = self.failures[0]
        number = f"case {first.index} of {self.cases} run" if first.index > 0 else "a replayed case"
        lines += ["", f"first failure ({number}{', flaky' if first.flaky else ''}), shrunk:", first.message]
        rest = self.failures[1:]
        if rest:
            kinds = collections.Counter(f.kind for f in rest)
            lines += ["", f"{len(rest)} more failing case{'s' if len(rest) > 1 else ''} ("
                      + ", ".join(f"{count} {kind}" for kind, count in kinds.most_common()) + ")"]
        reports = "report.html, summary.md, report.json and junit.xml"
        where = f"in the reports in {self.reports} ({reports})" if self.reports else f"in {reports}, which .write_reports(folder) writes"
        lines.append(f"every failure is in the CheckResult's .failures and {where}")
        return "\n".join(lines)


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


def _bound(value, what):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} is {value!r}; expected a whole number of 1 or more, or None")
    return value


def _execution(execution):
    """What check() records as the run's execution: the caller's words, else what peconform.triton
    says of the interpreter mode it set up (when it has been imported), else nothing."""
    if execution is None:
        triton = sys.modules.get("peconform.triton")
        described = getattr(triton, "execution", None)
        stated = described() if callable(described) else None
        return stated if isinstance(stated, str) and stated else ""
    if not isinstance(execution, str):
        raise TypeError(f"execution is {execution!r}; expected a one-line description (str) or None")
    if not execution.strip():
        raise ValueError(f"execution is {execution!r}; expected a description such as 'cpu, numpy 1.24', or None")
    return execution


def check(fn, spec=None, profile="ci", seed=None, cases=None, out=None, array="numpy", *, place=None, family=None,
          dtype=None, precision=None, replay=None, regressions=None, time_budget=None, max_failures=None, threads=None,
          output="return", max_elements=None, max_tokens=None, execution=None):
    """Runs the conformance campaign with `fn` as the kernel and returns a CheckResult.

    spec: a spec or a spec pattern (`rope(d=64|128,layout=*,dtype=fp32,precision=fp32-angle,theta=hf)`,
    several separated by ';') whose specs fn serves; None: every spec of every family.
    family, dtype, precision: filters, as `peconform run --family/--dtype/--precision`.
    array: "numpy" or "torch", what fn is handed (bf16 needs "torch").
    place: "in" if fn only writes x in place (returning None), "out" if it may only be called out of
    place; None: both (out of place, x is the input, which fn must not write).
    output: "return", fn returns its result; "argument", fn takes one more argument, out (x itself
    in an in-place call), filled so that an element fn leaves unwritten fails as `unwritten`, writes
    it and returns None (or out).
    max_elements: no tensor of a call has more elements; max_tokens: no call has more tokens
    (batch x seq; a table's rows; a bias's queries and keys): a slow kernel's cost, drawn within
    them the same way for the same seed.
    execution: where and how fn ran, in words, for the reports and the verdict line; None takes
    peconform.triton's interpreter mode when that module is imported.
    out: a folder for report.json, junit.xml, summary.md and report.html.
    replay: run exactly this case string (a failure's .case) and nothing else.
    regressions: a corpus folder to replay and to save failures into; None: neither.
    time_budget: seconds, after which the case in hand is finished and the run stops, partial.
    Ctrl-C stops the campaign between cases; the result is then partial (.partial), reports written.
    """
    settings = dict(time_budget=time_budget, max_failures=max_failures, threads=threads, output=output,
                    max_elements=_bound(max_elements, "max_elements"), max_tokens=_bound(max_tokens, "max_tokens"),
                    execution=_execution(execution))
    if regressions is None:
        with tempfile.TemporaryDirectory(prefix="peconform-no-corpus-") as empty:
            return _check(fn, spec, profile, seed, cases, out, array, place, family, dtype, precision, replay, empty, False, settings)
    return _check(fn, spec, profile, seed, cases, out, array, place, family, dtype, precision, replay, os.fspath(regressions), True,
                  settings)


def _check(fn, spec, profile, seed, cases, out, array, place, family, dtype, precision, replay, regressions, save, settings):
    if isinstance(spec, Spec):
        spec = spec.canonical
    answer = _peconform._check(
        fn, name=_callable_name(fn), spec=spec, profile=profile, seed=DEFAULT_SEED if seed is None else seed, cases=cases,
        out=None if out is None else os.fspath(out), array=array, place=place, families=_names(family, "family"),
        dtypes=_names(dtype, "dtype"), precisions=_names(precision, "precision"), replay=replay, regressions=regressions,
        save_regressions=save, **settings)
    return CheckResult(answer, None if out is None else os.fspath(out))


class PropertyOutcome:
    """One catalog property on a variant: held, failed (with its shrunk counterexample), not
    constrained (the declared bound constrains nothing it compares) or refused (it does not apply)."""

    def __init__(self, entry):
        self.name = entry["name"]
        self.relation = entry["relation"]
        self.scope = entry["scope"]
        self.verdict = entry["verdict"]
        self.reason = entry["reason"]
        self.counterexample = entry["counterexample"]
        self.seed = entry["seed"]
        self.cases = entry["cases"]
        self.unconstrained_cases = entry["unconstrained_cases"]

    def __repr__(self):
        return f"<peconform.PropertyOutcome {self.name}: {self.verdict}>"

    def __str__(self):
        lines = [f"{self.name}: {self.verdict} ({self.relation})"]
        if self.scope:
            lines.append(f"  checked over {self.scope}")
        if self.verdict in ("held", "not constrained"):
            lines.append(f"  {self.cases} cases, seed {self.seed}")
        lines += ["  " + line for text in (self.reason, self.counterexample) if text for line in text.splitlines()]
        return "\n".join(lines)


class PropertiesResult:
    """What properties() found: one PropertyOutcome per catalog property of the declared kind."""

    def __init__(self, answer):
        self.variant = answer["variant"]
        self.outcomes = [PropertyOutcome(entry) for entry in answer["properties"]]
        self.held = [o.name for o in self.outcomes if o.verdict == "held"]
        self.failed = [o.name for o in self.outcomes if o.verdict == "failed"]

    def __getitem__(self, name):
        for outcome in self.outcomes:
            if outcome.name == name:
                return outcome
        raise KeyError(f"no property named {name!r} ran on {self.variant}; ran: {[o.name for o in self.outcomes]}")

    def along(self, name):
        """The verdicts of `name` along each axis alone, {axis: verdict} (empty over one axis)."""
        prefix = name + "[axis "
        return {int(o.name[len(prefix):-1]): o.verdict for o in self.outcomes if o.name.startswith(prefix)}

    def across(self, name):
        """The verdicts of `name` across each pair of axes, {(a, b): verdict} (empty over one axis)."""
        prefix = name + "[axes "
        return {tuple(int(axis) for axis in o.name[len(prefix):-1].split(",")): o.verdict
                for o in self.outcomes if o.name.startswith(prefix)}

    def __bool__(self):
        return not self.failed

    def __repr__(self):
        return f"<peconform.PropertiesResult {self.variant}: {len(self.held)} held, {len(self.failed)} failed>"

    def __str__(self):
        return "\n".join([self.variant] + [str(outcome) for outcome in self.outcomes])


# The NumPy dtypes a variant's values cross in; bf16 has none and goes through torch.
_NUMPY_DTYPES = {"fp64": "float64", "fp32": "float32", "fp16": "float16"}


def _variant_adapter(fn, kind, dtype, array):
    """fn as the C++ side calls it: float64 arrays in and out, the declared dtype in between."""
    import numpy

    if array == "torch" or dtype == "bf16":
        import torch

        torch_dtype = {"fp64": torch.float64, "fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}[dtype]

        def values(x):
            return None if x is None else torch.from_numpy(x).to(torch_dtype)

        def indices(p):
            return None if p is None else torch.from_numpy(p)

        def back(y):
            return y.detach().to(torch.float64).cpu().numpy() if isinstance(y, torch.Tensor) else numpy.asarray(y, dtype=numpy.float64)
    elif array == "numpy":
        numpy_dtype = _NUMPY_DTYPES[dtype]

        def values(x):
            return None if x is None else x.astype(numpy_dtype)

        def indices(p):
            return p

        def back(y):
            return numpy.asarray(y, dtype=numpy.float64)
    else:
        raise ValueError(f"array: {array!r} is not an array library; expected 'numpy' or 'torch'")

    def returned(y):
        # The shape is checked where the rows and d are known (properties_bindings.cpp).
        try:
            return back(y)
        except (TypeError, ValueError) as error:
            raise TypeError(f"wrong-return: the variant returned {type(y).__name__}, not an array of numbers ({error})") from None

    def adapter(positions, keys, inputs):
        if kind == "rotary":
            return returned(fn(values(inputs), indices(positions)))
        if kind == "table":
            return returned(fn(indices(positions)))
        return returned(fn(indices(positions), indices(keys)))

    return adapter


def _axis_max_positions(max_position, axes):
    """[] for one integer max_position (every axis), or its N integers, one per axis."""
    if isinstance(max_position, numbers.Integral) and not isinstance(max_position, bool):
        return []
    if isinstance(max_position, (str, bytes)) or not hasattr(max_position, "__len__"):
        raise VariantError(f"max_position: {max_position!r} is neither an integer nor one integer per axis")
    values = list(max_position)
    if len(values) != axes:
        raise VariantError(f"max_position: {max_position!r} has {len(values)} entries; the declaration has axes={axes}")
    for value in values:
        if not isinstance(value, numbers.Integral) or isinstance(value, bool):
            raise VariantError(f"max_position: {max_position!r} holds {value!r}, which is not an integer")
    return [int(value) for value in values]


def properties(fn, kind="rotary", d=None, dtype="fp32", precision="exact-angle", *, pairing="unknown", rot=0, rot_at="first",
               amplitude=1, max_frequency=1, theta="hf", base=10000, max_position=2**31 - 1, negative_positions=False,
               symmetric=False, axes=1, seed=None, cases=200, array="numpy"):
    """Runs every catalog property that needs only the implementation on a variant without a Spec.

    kind "rotary": fn(x, positions) -> y, x a [rows, d] array of dtype, positions [rows] int64;
    kind "table": fn(positions) -> [rows, d]; kind "bias": fn(query_positions, key_positions) ->
    [rows, heads] (d = heads). axes=N > 1: every position is [rows, N] int64 instead (an image's
    (x, y), a video's (t, h, w)), each coordinate in [0, max_position], or in [0, max_position[a]]
    when max_position gives one integer per axis (a VariantError names any other shape or value);
    max_frequency then bounds
    |angle| by max_frequency * (|p_1| + ... + |p_N|), and the relative, composition and translation
    relations also run along each axis ("name[axis a]") and composition across each pair of axes
    ("name[axes a,b]"): PropertiesResult.along() and .across() collect them. The declaration says what the relations may assume (properties/README.md,
    "Variants without a Spec"): pairing "interleaved", "half" or "unknown"; rot, rot_at: the rotated
    elements (the rest must pass through bit-identical); amplitude: |f(x, p)| = amplitude |x|;
    max_frequency: the largest angle per unit of position; theta, base: the float32 recipe under
    fp32-angle; negative_positions: the transpose relation needs them; symmetric: a bias with
    b(i, j) = b(j, i). Tolerances follow from the declared precision class.
    Returns a PropertiesResult; bool(result) is False when a property failed.
    """
    if kind not in ("rotary", "table", "bias"):
        raise VariantError(f"kind: {kind!r} is not a variant kind; expected 'rotary', 'table' or 'bias'")
    if not isinstance(d, int) or isinstance(d, bool):
        raise VariantError(f"d: {d!r} is not a count; give the elements per vector (rotary, table) or the heads (bias)")
    if dtype not in ("fp64", "fp32", "fp16", "bf16"):
        raise VariantError(f"dtype: {dtype!r} is not a dtype; expected fp64, fp32, fp16 or bf16")
    integers = {}
    for key, value in (("axes", axes), ("rot", rot)):
        if not isinstance(value, numbers.Integral) or isinstance(value, bool):
            raise VariantError(f"{key}: {value!r} is not an integer")
        integers[key] = int(value)
    axis_max_positions = _axis_max_positions(max_position, integers["axes"])
    declaration = dict(kind=kind, d=d, dtype=dtype, precision=precision, pairing=pairing, rot=integers["rot"], rot_at=rot_at,
                       amplitude=amplitude, max_frequency=max_frequency, theta=theta, base=base,
                       max_position=max(axis_max_positions) if axis_max_positions else max_position,
                       negative_positions=negative_positions, symmetric=symmetric, axes=integers["axes"],
                       axis_max_positions=axis_max_positions)
    answer = _peconform._properties(_variant_adapter(fn, kind, dtype, array), declaration,
                                    seed=DEFAULT_SEED if seed is None else seed, cases=cases)
    return PropertiesResult(answer)
