"""Runs peconform.check() on transformers' own rotary code for each model of the matrix and writes
the conformance matrix (tools/upstream-conformance.sh runs this in its virtual environment).

    python tools/upstream/conformance.py --out reports/upstream [--profile ci] [--cases N]
    python tools/upstream/conformance.py --model NAME --column COLUMN --replay 'CASE'
"""
import argparse
import datetime
import json
import os
import pathlib
import platform
import subprocess
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import peconform  # noqa: E402
import torch  # noqa: E402
import transformers  # noqa: E402

from adapters import UpstreamRotary  # noqa: E402
from models import COLUMNS, MODELS, ROOT, find_column, find_model  # noqa: E402
import report  # noqa: E402


def cell_spec(model, column):
    """The spec from_hf_config gives for the model, with the column's class keys."""
    base = peconform.Spec.from_hf_config(str(model.config_dir / "config.json"), layer_type=model.layer_type)
    return base, peconform.Spec(column.spec_text(base.canonical))


def reproducer(model, column, case):
    return f"tools/upstream-conformance.sh --model {model.key} --column '{column.name}' --replay '{case}'"


def ratios_by_position(result):
    """The worst error / bound in each position bin (bin b holds [2^(b-1), 2^b), bin 0 position
    0), over the check's cells."""
    worst = []
    for cell in result.cells:
        for b, ratio in enumerate(float(r) for r in cell["worst_ratio_by_position"]):
            worst += [0.0] * (b + 1 - len(worst))
            worst[b] = max(worst[b], ratio)
    return worst


def run_cell(model, column, args):
    base, spec = cell_spec(model, column)
    fn = UpstreamRotary(model.config_dir, model.layer_type or None)
    started = time.monotonic()
    result = peconform.check(fn, spec=spec, profile=args.profile, seed=args.seed, cases=args.cases, array=column.array,
                             place="out")
    cell = {
        "model": model.name, "key": model.key, "column": column.name, "config_spec": base.canonical,
        "spec": spec.canonical, "kernel": fn.__qualname__, "verdict": result.verdict,
        "conformant": bool(result), "elements": result.elements, "worst_ratio": result.worst_ratio,
        "seconds": round(time.monotonic() - started, 1), "failures": [],
        "worst_ratio_by_position": ratios_by_position(result),
    }
    for failure in result.failures[: args.failures_shown]:
        cell["failures"].append({
            "case": failure.case, "element": failure.element, "position": failure.position,
            "reference": failure.reference, "actual": failure.actual, "ratio": failure.ratio,
            "message": failure.message, "reproducer": reproducer(model, column, failure.case),
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
    return f"{platform.system()} {platform.release()}, {cpu}, {os.cpu_count()} CPUs, torch on {torch.get_num_threads()} thread(s)"


def commit():
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True)
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def replay(args):
    model, column = find_model(args.model), find_column(args.column)
    _, spec = cell_spec(model, column)
    fn = UpstreamRotary(model.config_dir, model.layer_type or None)
    result = peconform.check(fn, spec=spec, replay=args.replay, array=column.array, place="out")
    print(result)
    return 0 if result else 1


def write(out, run, cells):
    out.mkdir(parents=True, exist_ok=True)
    (out / "matrix.json").write_text(json.dumps({"run": run, "cells": cells}, indent=1) + "\n")
    (out / "matrix.md").write_text(report.markdown(run, cells))
    (out / "matrix.html").write_text(report.html(run, cells))
    print(f"wrote {out / 'matrix.md'}, matrix.html and matrix.json")


def columns():
    return [{"name": c.name, "keys": c.keys, "meaning": c.meaning} for c in COLUMNS]


def render(out):
    matrix = json.loads((out / "matrix.json").read_text())
    matrix["run"]["columns"] = columns()
    write(out, matrix["run"], matrix["cells"])
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=pathlib.Path, default=ROOT / "reports" / "upstream")
    parser.add_argument("--profile", default="ci")
    parser.add_argument("--cases", type=int, default=None, help="cases per check (default: the profile's)")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--only", action="append", default=[], help="a model key (repeatable); default: every model")
    parser.add_argument("--failures-shown", type=int, default=1, help="failures shown per non-conformant cell")
    parser.add_argument("--command", default=" ".join(sys.argv), help="the command to record in the report")
    parser.add_argument("--model", help="with --column and --replay: rerun one failing case")
    parser.add_argument("--column")
    parser.add_argument("--replay")
    parser.add_argument("--render", action="store_true",
                        help="rewrite matrix.md and matrix.html in --out from its matrix.json, with the current column texts")
    args = parser.parse_args()
    if args.replay:
        return replay(args)
    if args.render:
        return render(args.out)

    torch.set_num_threads(1)
    revision = commit()
    models = [find_model(key) for key in args.only] if args.only else MODELS
    cells = []
    for model in models:
        for column in COLUMNS:
            cell = run_cell(model, column, args)
            cells.append(cell)
            print(f"{model.key:48} {column.name:16} {cell['verdict']:16} worst {cell['worst_ratio']:.3g} "
                  f"({cell['elements']} elements, {cell['seconds']} s)", flush=True)
    run = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "command": args.command, "machine": machine(), "python": platform.python_version(),
        "versions": {"transformers": transformers.__version__, "torch": torch.__version__,
                     "peconform": revision},
        "profile": args.profile, "cases": args.cases, "seed": args.seed if args.seed is not None else peconform.DEFAULT_SEED,
        "columns": columns(),
    }
    write(args.out, run, cells)
    return 0


if __name__ == "__main__":
    sys.exit(main())
