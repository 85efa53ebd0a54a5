#!/usr/bin/env python3
"""Compares two report.json files of `peconform run` field by field, leaving out what may differ
between identical runs (the timings, the thread count, the OpenMP wait policy) and what names
the build (commit, version). Prints each difference; exits 0 when there is none, 1 otherwise.

    scripts/same-report.py BEFORE/report.json AFTER/report.json
"""
import json
import sys

TIMINGS = {"threads", "wait_policy", "wall_seconds", "elements_per_second", "draw_seconds", "kernel_seconds",
           "verify_seconds", "verified_elements_per_second", "escalation_seconds", "shrink_seconds", "property_seconds"}
BUILD = {"commit", "tool_version", "compiler"}


def differences(a, b, path):
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                yield f"{path}.{key}: only in {'the first' if key in a else 'the second'}"
            else:
                yield from differences(a[key], b[key], f"{path}.{key}")
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            yield f"{path}: {len(a)} against {len(b)} entries"
        for i, (x, y) in enumerate(zip(a, b)):
            yield from differences(x, y, f"{path}[{i}]")
    elif a != b:
        yield f"{path}: {a!r} against {b!r}"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    reports = []
    for name in sys.argv[1:]:
        with open(name) as f:
            report = json.load(f)
        for key in TIMINGS | BUILD:
            report["run"].pop(key, None)
        reports.append(report)
    found = list(differences(reports[0], reports[1], "report"))
    for line in found:
        print(line)
    print(f"{len(found)} difference(s) beyond timings, threads and build")
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    main()
