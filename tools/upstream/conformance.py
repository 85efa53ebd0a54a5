"""Runs peconform.check() on one library's own positional-encoding code, every row of its adapter
under each of the row's columns, writes the library's results (libraries/<library>.json under
--out) and assembles the matrix from every library's results (matrix.py).
tools/upstream-conformance.sh runs this in the library's virtual environment. A Triton kernel's
cells run in the execution mode their column names (peconform.triton), chosen before its kernel is
built; a slow row bounds its cases' shapes.

    python tools/upstream/conformance.py --library NAME [--only KEY ...] [--profile ci] [--cases N]
    python tools/upstream/conformance.py --library NAME --row KEY --column COLUMN --replay 'CASE'
    python tools/upstream/conformance.py --library NAME --replay-failures
"""
import argparse
import datetime
import importlib
import json
import os
import pathlib
import platform
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))

import peconform  # noqa: E402

import matrix  # noqa: E402


def adapter(library):
    """The library's adapter module: adapt_<library>.py, dashes as underscores."""
    name = "adapt_" + library.replace("-", "_")
    if not (HERE / f"{name}.py").is_file():
        known = sorted(p.stem[len("adapt_"):].replace("_", "-") for p in HERE.glob("adapt_*.py"))
        raise SystemExit(f"no adapter for library '{library}' (tools/upstream/{name}.py); there are: {', '.join(known)}")
    return importlib.import_module(name)


def find_row(rows, key):
    for row in rows:
        if row.key == key:
            return row
    raise SystemExit(f"no row '{key}'; the library has {', '.join(r.key for r in rows)}")


def find_column(row, name):
    for column in row.columns:
        if column.name == name:
            return column
    raise SystemExit(f"row '{row.key}' has no column '{name}'; it has {', '.join(c.name for c in row.columns)}")


def reproducer(row, column, case):
    return (f"tools/upstream-conformance.sh --library {row.library} --row '{row.key}' --column '{column.name}' "
            f"--replay '{case}'")


def ratios_by_position(result):
    """The worst error / bound in each position bin (bin b holds [2^(b-1), 2^b), bin 0 position
    0), over the check's cells."""
    worst = []
    for cell in result.cells:
        for b, ratio in enumerate(float(r) for r in cell["worst_ratio_by_position"]):
            worst += [0.0] * (b + 1 - len(worst))
            worst[b] = max(worst[b], ratio)
    return worst


def prepared(row, column):
    """The row's callable, built after the column's Triton mode is put in force: a Triton kernel is
    interpreted or compiled as triton was imported and the kernel defined, so a Triton adapter
    imports neither before its first callable is built, and each cell selects its own mode (the
    two interpreted modes switch within one process)."""
    if column.execution:
        import peconform.triton
        peconform.triton.select(column.execution)
    return row.kernel()


def bounds(row):
    """A slow row's bounds on its cases' shapes."""
    return {name: getattr(row, name) for name in ("max_tokens", "max_elements") if getattr(row, name)}


def run_cell(row, column, args):
    kernel = prepared(row, column)
    started = time.monotonic()
    result = peconform.check(kernel, spec=column.spec_text(row.spec), profile=args.profile, seed=args.seed,
                             cases=args.cases, array=column.array, place=column.place, **bounds(row))
    cell = {
        "key": row.key, "column": column.name, "spec": column.spec_text(row.spec),
        "kernel": getattr(kernel, "__qualname__", type(kernel).__name__), "verdict": result.verdict,
        "conformant": bool(result), "elements": result.elements, "worst_ratio": result.worst_ratio,
        "seconds": round(time.monotonic() - started, 1), "failures": [],
        "worst_ratio_by_position": ratios_by_position(result),
    }
    if column.execution:
        cell["execution"] = result.execution
    for failure in result.failures[: args.failures_shown]:
        cell["failures"].append({
            "case": failure.case, "kind": failure.kind, "element": failure.element, "position": failure.position,
            "reference": failure.reference, "actual": failure.actual, "ratio": failure.ratio,
            "message": failure.message, "reproducer": reproducer(row, column, failure.case),
        })
    cell["failure_count"] = len(result.failures)
    return cell


def machine():
    cpu = platform.processor() or platform.machine()
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{platform.system()} {platform.release()}, {cpu}, {os.cpu_count()} CPUs"


def commit():
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                             check=True)
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def rerun(row, column, case):
    return peconform.check(prepared(row, column), spec=column.spec_text(row.spec), replay=case, array=column.array,
                           place=column.place, **bounds(row))


def replay(module, args):
    row = find_row(module.rows(), args.row)
    column = find_column(row, args.column)
    if row.awaiting:
        raise SystemExit(f"row '{row.key}' awaits a recipe ({row.awaiting}): it has no verdict to replay")
    result = rerun(row, column, args.replay)
    print(result)
    return 0 if result else 1


def replay_failures(module, args):
    """Reruns the first failure of every non-conformant cell the library's published results hold
    and says whether it fails again, the same way (non-conformant, the same kind); 1 if any does not."""
    published = json.loads((args.out or ROOT / "reports" / "upstream").joinpath("libraries", f"{args.library}.json").read_text())
    rows = {row.key: row for row in module.rows()}
    differ = 0
    for cell in published["cells"]:
        if cell["conformant"] or not cell["failures"]:
            continue
        row = rows[cell["key"]]
        column = find_column(row, cell["column"])
        failure = cell["failures"][0]
        result = rerun(row, column, failure["case"])
        again = [f.kind for f in result.failures]
        same = not result.conformant and failure["kind"] in again
        differ += not same
        print(f"{'fails again' if same else 'DIFFERS':11} {cell['key']:36} {cell['column']:30} {failure['kind']} -> "
              f"{', '.join(again) or 'conformant'}", flush=True)
    return 1 if differ else 0


def describe(row):
    return {"key": row.key, "name": row.name, "family": row.family, "spec": row.spec, "source": row.source,
            "awaiting": row.awaiting,
            "columns": [dict({"name": c.name, "keys": c.keys, "meaning": c.meaning},
                             **({"execution": c.execution} if c.execution else {})) for c in row.columns]}


def run_library(module, args):
    rows = module.rows()
    if args.only:
        rows = [find_row(rows, key) for key in args.only]
    cells = []
    for row in rows:
        if row.awaiting:
            print(f"{row.key:44} awaiting a recipe: {row.awaiting}", flush=True)
            continue
        for column in row.columns:
            cell = run_cell(row, column, args)
            cells.append(cell)
            print(f"{row.key:44} {column.name:32} {cell['verdict']:16} worst {cell['worst_ratio']:.3g} "
                  f"({cell['elements']} elements, {cell['seconds']} s)", flush=True)
    run = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "command": args.command, "machine": machine(), "python": platform.python_version(),
        "versions": dict(module.versions(), peconform=commit()),
        "profile": args.profile, "cases": args.cases,
        "seed": args.seed if args.seed is not None else peconform.DEFAULT_SEED,
    }
    executions = sorted({cell["execution"] for cell in cells if cell.get("execution")})
    if executions:
        # Triton cells: how they ran, and whether a GPU was there to compile them on.
        run["executions"] = executions
        run["gpu"] = gpu()
    return {"library": module.LIBRARY, "run": run, "rows": [describe(row) for row in rows], "cells": cells}


def gpu():
    """The CUDA device torch sees, or None."""
    import torch
    return torch.cuda.get_device_name() if torch.cuda.is_available() else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--library", required=True, help="the library to run (its adapter is tools/upstream/adapt_<library>.py)")
    parser.add_argument("--out", type=pathlib.Path, default=None,
                        help="where libraries/<library>.json and the matrix go (default reports/upstream; with --only, "
                             "build/upstream-only, so a partial run never replaces the published rows)")
    parser.add_argument("--profile", default="ci")
    parser.add_argument("--cases", type=int, default=None, help="cases per check (default: the profile's)")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--only", action="append", default=[], help="a row key (repeatable); default: every row")
    parser.add_argument("--failures-shown", type=int, default=1, help="failures shown per non-conformant cell")
    parser.add_argument("--command", default=" ".join(sys.argv), help="the command to record in the report")
    parser.add_argument("--row", help="with --column and --replay: rerun one failing case")
    parser.add_argument("--column")
    parser.add_argument("--replay")
    parser.add_argument("--replay-failures", action="store_true",
                        help="rerun the first failure of each non-conformant cell of the published results")
    args = parser.parse_args()
    module = adapter(args.library)
    if args.replay:
        return replay(module, args)
    if args.replay_failures:
        return replay_failures(module, args)
    out = args.out or (ROOT / "build" / "upstream-only" if args.only else ROOT / "reports" / "upstream")
    results = run_library(module, args)
    (out / "libraries").mkdir(parents=True, exist_ok=True)
    (out / "libraries" / f"{args.library}.json").write_text(json.dumps(results, indent=1) + "\n")
    matrix.assemble(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
