"""One-line conformance assertions for pytest (or any test framework that reads AssertionError)."""
from . import check


def assert_conforms(fn, spec, **kwargs):
    """Runs check(fn, spec, **kwargs) and raises AssertionError unless the verdict is conformant
    over a whole run that checked something.

    The message holds the verdict line and, for each failing case, the case string, the first
    failing element, its ratio to the bound and a line that replays the case.
    """
    result = check(fn, spec, **kwargs)
    if not result.conformant:
        raise AssertionError(str(result))
    # A run stopped early or that checked nothing conforms vacuously, which is no pass.
    if result.partial or result.elements == 0:
        raise AssertionError(f"not a pass: {result.verdict_line} (partial: {result.partial}, {result.elements} elements checked)")
    return result
