"""One-line conformance assertions for pytest (or any test framework that reads AssertionError)."""
import tempfile

from . import check


def assert_conforms(fn, spec, **kwargs):
    """Runs check(fn, spec, **kwargs) and raises AssertionError unless the verdict is conformant
    over a whole run that checked something; returns the CheckResult when it is.

    The message is short enough to read in a test log: the verdict line, the first failure in
    full (shrunk: the case string, the first failing element, its ratio to the bound, a line that
    replays it), the other failures counted by kind, and the folder holding the reports (check's
    `out`, else a new folder under the system's temporary folder). The error's .result is the
    CheckResult, with every failure in .failures.
    """
    result = check(fn, spec, **kwargs)
    if result.conformant and result.elements > 0:
        return result
    if result.failures:
        if result.reports is None:
            result.write_reports(tempfile.mkdtemp(prefix="peconform-reports-"))
        message = result.summary() + "\n(this AssertionError's .result is the CheckResult)"
    else:
        # A run stopped early, or one that checked nothing, conforms vacuously, which is no pass.
        message = f"not a pass: {result.verdict_line} (partial: {result.partial}, {result.elements} elements checked)"
    error = AssertionError(message)
    error.result = result
    raise error
