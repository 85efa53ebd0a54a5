"""The tensor-file route gives the verdicts of the in-process check: the same kernel, run once by
check() and once on the files `peconform cases export` writes, verified by `peconform run --outputs`."""
import json
import os
import re
import subprocess

import numpy as np
import pytest

import peconform
from rotate_half_numpy import rope

PECONFORM = os.environ["PECONFORM_CLI"]
SEED, CASES = 7, 10


def run_on_files(tmp_path, spec):
    """Exports the cases, runs `rope` on each one's files, and verifies the outputs; returns report.json."""
    cases = tmp_path / "cases"
    subprocess.run([PECONFORM, "cases", "export", "--spec", spec, "--profile", "smoke", "--seed", str(SEED), "--cases",
                    str(CASES), "--out", str(cases)], check=True, capture_output=True)
    manifest = json.loads((cases / "manifest.json").read_text())
    for case in manifest["cases"]:
        concrete = peconform.Spec(case["spec"])
        ids = np.load(cases / case["ids"]["file"])
        positions = ids[0].astype(np.int64) + case["call"]["id_offset"]
        for given, wanted in zip(case["inputs"], case["outputs"]):
            np.save(cases / wanted["file"], rope(np.load(cases / given["file"]), positions, concrete))
    report = tmp_path / "report"
    verdict = subprocess.run([PECONFORM, "run", "--outputs", str(cases), "--out", str(report), "--quiet"], capture_output=True,
                             text=True)
    assert verdict.returncode in (0, 1), verdict.stderr
    return json.loads((report / "report.json").read_text())


@pytest.mark.parametrize("precision", ["fp32-angle,theta=hf", "exact-angle"])
def test_exported_cases_verify_as_the_in_process_check(tmp_path, precision):
    spec = f"rope(d=64,layout=half,dtype=fp32,precision={precision})"
    in_process = peconform.check(rope, spec=spec, profile="smoke", seed=SEED, cases=CASES)
    on_files = run_on_files(tmp_path, spec)
    assert on_files["verdict"] == in_process.verdict
    assert len(on_files["failures"]) == len(in_process.failures)

    def cells(report):
        keys = ("family", "dtype", "precision", "cases", "failed_cases", "elements", "failed_elements", "worst_ratio")
        return [tuple(cell[key] for key in keys) for cell in report["cells"]]

    assert cells(on_files) == cells(in_process.report)
    # The failing cases are the same draws: shrinking narrows a case (select=), never its seed.
    def seeds(cases):
        return sorted(re.search(r"seed=(0x[0-9a-f]+)", case).group(1) for case in cases)

    assert seeds(f["case"] for f in on_files["failures"]) == seeds(f.case for f in in_process.failures)
