#!/usr/bin/env python3
"""docs/campaign.md's Slurm example, run as written on a real Slurm cluster
(scripts/slurm-test-cluster.sh starts one and runs this inside it, SLURM_CONF set):

1. the page's job array and dependent merge, 4 shards of `--profile ci --cases 200`: the merged
   report is the unsharded run's (scripts/same-report.py);
2. again, with one task cancelled mid-run: the merge names the missing shard, exits non-zero and
   writes no report; the page's rerun of that one shard, merged again, gives the full report;
3. again with a time budget shorter than the work: each shard stops in time with a partial report,
   and the merge says the campaign is partial, naming each shard.

    campaign_on_slurm.py PECONFORM PAGE SAME_REPORT

PAGE is docs/campaign.md. Its blocks are found by the HTML comment before each
(`<!-- slurm-campaign -->`, `<!-- slurm-rerun-shard -->`; tests/docs/fenced_blocks.py); each
block's first line sets its variables, which this replaces with its own; every other line runs as
the page has it.
"""
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

# The block reader the README's quick-start tests use too.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs"))
from fenced_blocks import BlockError, block_lines  # noqa: E402

CAMPAIGN = "--profile ci --cases 200"
SHARDS = 4
LOST_SHARD = 2
# Far below a shard's work: its 50 cases and 49 properties took 2.0 s on an idle 2-core EPYC
# (2 s was once the budget here, and an idle machine finished inside it).
BUDGET_SECONDS = 0.5
# A shard with a budget finishes the case in hand and its property in hand: under load on two
# cores, the longest of them takes this long past the budget.
BUDGET_OVERRUN_SECONDS = 20
DEADLINE_SECONDS = 300
ENDED = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED", "BOOT_FAIL",
         "DEADLINE"}


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def page_block(page, marker, settings_pattern):
    """The lines of the sh block after <!-- marker -->, its settings line first."""
    try:
        return block_lines(page, marker, "sh", settings_pattern)
    except BlockError as error:
        raise Failure(f"docs/campaign.md: {error}") from None


def job_records(job):
    """scontrol's records of a job, or of each task of an array, as dicts."""
    listed = subprocess.run(["scontrol", "--oneliner", "show", "job", job], capture_output=True, text=True)
    check(listed.returncode == 0, f"scontrol show job {job}: {listed.stderr.strip()}")
    return [dict(field.split("=", 1) for field in line.split() if "=" in field) for line in listed.stdout.splitlines()]


def wait_until_ended(job):
    deadline = time.monotonic() + DEADLINE_SECONDS
    while True:
        records = job_records(job)
        if all(r["JobState"] in ENDED for r in records):
            return records
        check(time.monotonic() < deadline, f"job {job} has not ended after {DEADLINE_SECONDS} s: "
              + ", ".join(f"{r['JobId']} {r['JobState']}" for r in records))
        time.sleep(0.5)


def exit_code(record):
    """A batch job's exit status: ExitCode is STATUS:SIGNAL."""
    return int(record["ExitCode"].split(":")[0])


class Checkout:
    """A folder laid out as the page's commands expect of the checkout they are run from."""

    def __init__(self, root, name, peconform):
        self.folder = pathlib.Path(root) / name
        tools = self.folder / "build" / "release" / "tools"
        tools.mkdir(parents=True)
        (tools / "peconform").symlink_to(peconform)

    def submit(self, lines):
        """Runs the lines in bash here; returns the merge's job id (what the page's last sbatch
        prints) and the page's $job (the array's, or the rerun's, id)."""
        script = "set -euo pipefail\n" + "\n".join(lines) + '\necho "$job"\n'
        ran = subprocess.run(["bash", "-c", script], cwd=self.folder, capture_output=True, text=True)
        check(ran.returncode == 0, f"the page's commands failed:\n{script}\n{ran.stdout}{ran.stderr}")
        printed = ran.stdout.split()
        check(len(printed) == 2, f"expected the merge's job id and $job, got {ran.stdout!r}")
        return printed[0], printed[1]

    def report(self, folder):
        path = self.folder / folder / "report.json"
        check(path.exists(), f"no {path}")
        return json.loads(path.read_text())

    def output(self, job):
        """What the job printed, in Slurm's default file for it."""
        return (self.folder / f"slurm-{job}.out").read_text()


def same_report(same_report_script, first, second):
    compared = subprocess.run([sys.executable, same_report_script, first, second], capture_output=True, text=True)
    check(compared.returncode == 0, f"{first} and {second} differ:\n{compared.stdout}")


def merged_whole_campaign(root, blocks, peconform, same_report_script):
    print(f"== 1. {SHARDS} shards of {CAMPAIGN} as a job array, the merge depending on it", flush=True)
    here = Checkout(root, "whole", peconform)
    settings = f"shards={SHARDS} options='{CAMPAIGN}'"
    merge, array = here.submit([settings] + blocks["slurm-campaign"][1:])
    unsharded = subprocess.Popen([str(here.folder / "build/release/tools/peconform"), "run", *CAMPAIGN.split(), "--quiet",
                                  "--out", "unsharded"], cwd=here.folder)
    tasks = wait_until_ended(array)
    check([r["JobState"] for r in tasks] == ["COMPLETED"] * SHARDS, f"the array's tasks: {tasks}")
    record = wait_until_ended(merge)[0]
    check(exit_code(record) == 0, f"the merge exited {record['ExitCode']}:\n{here.output(merge)}")
    check(unsharded.wait() == 0, "the unsharded run failed")
    merged = here.report("out/campaign")
    check(not merged["run"]["partial"] and merged["verdict"] == "conformant", f"merged: {merged['run']}")
    same_report(same_report_script, here.folder / "unsharded/report.json", here.folder / "out/campaign/report.json")
    return here.folder / "unsharded/report.json"


def lost_shard_run_again(root, blocks, peconform, same_report_script, unsharded):
    print(f"== 2. shard {LOST_SHARD} cancelled mid-run, the merge refused, the shard run again", flush=True)
    here = Checkout(root, "lost", peconform)
    settings = f"shards={SHARDS} options='{CAMPAIGN}'"
    merge, array = here.submit([settings] + blocks["slurm-campaign"][1:])
    task = f"{array}_{LOST_SHARD}"
    deadline = time.monotonic() + DEADLINE_SECONDS
    # Mid-run: once its campaign has printed its first line, and long before its report.
    while not (here.folder / f"slurm-{task}.out").exists() or "peconform run:" not in here.output(task):
        check(time.monotonic() < deadline, f"task {task} has not started: {job_records(task)}")
        time.sleep(0.2)
    subprocess.run(["scancel", task], check=True)
    tasks = {r["ArrayTaskId"]: r["JobState"] for r in wait_until_ended(array)}
    check(tasks[str(LOST_SHARD)] == "CANCELLED", f"task {task} was not cancelled mid-run: {tasks}")
    check(not (here.folder / f"out/shard-{LOST_SHARD}/report.json").exists(), f"task {task} wrote its report")
    record = wait_until_ended(merge)[0]
    said = here.output(merge)
    check(exit_code(record) != 0, f"the merge of {SHARDS - 1} shards exited 0:\n{said}")
    check(f"no report of shard {LOST_SHARD}/{SHARDS}" in said, f"the merge does not name shard {LOST_SHARD}/{SHARDS}:\n{said}")
    check(not (here.folder / "out/campaign/report.json").exists(), "the merge of a lost shard wrote a report")
    print(f"   the merge said: {said.strip()}", flush=True)

    rerun = blocks["slurm-rerun-shard"]
    merge, _ = here.submit([settings, f"shard={LOST_SHARD}"] + rerun[1:])
    record = wait_until_ended(merge)[0]
    check(exit_code(record) == 0, f"the merge after the rerun exited {record['ExitCode']}:\n{here.output(merge)}")
    same_report(same_report_script, unsharded, here.folder / "out/campaign/report.json")


def budget_shorter_than_the_work(root, blocks, peconform):
    print(f"== 3. {SHARDS} shards with --time-budget {BUDGET_SECONDS}: partial, and merged as partial", flush=True)
    here = Checkout(root, "budget", peconform)
    settings = f"shards={SHARDS} options='{CAMPAIGN} --time-budget {BUDGET_SECONDS}'"
    merge, array = here.submit([settings] + blocks["slurm-campaign"][1:])
    wait_until_ended(array)
    # Partial whether the budget ended its cases or, after them, its properties.
    for shard in range(1, SHARDS + 1):
        run = here.report(f"out/shard-{shard}")["run"]
        check(run["partial"] and "time budget" in run["partial_reason"], f"shard {shard}: {run}")
        check(run["wall_seconds"] < BUDGET_SECONDS + BUDGET_OVERRUN_SECONDS,
              f"shard {shard} ran {run['wall_seconds']:.1f} s on a budget of {BUDGET_SECONDS} s")
    record = wait_until_ended(merge)[0]
    said = here.output(merge)
    # As `run` on a budget: 0 when nothing failed, the report and the last line saying partial.
    check(exit_code(record) == 0, f"the merge exited {record['ExitCode']}:\n{said}")
    check("PARTIAL" in said, f"the merge does not say the campaign is partial:\n{said}")
    run = here.report("out/campaign")["run"]
    check(run["partial"], f"the merged report is not partial: {run}")
    for shard in range(1, SHARDS + 1):
        check(f"shard {shard}/{SHARDS}: time budget" in run["partial_reason"], f"shard {shard}: {run['partial_reason']}")
    print(f"   the merge said: {said.strip()}", flush=True)


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    peconform, page_path, same_report_script = sys.argv[1:]
    page = pathlib.Path(page_path).read_text()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="peconform-slurm-test.") as root:
        try:
            blocks = {"slurm-campaign": page_block(page, "slurm-campaign", r"shards=\d+ options='[^']*'"),
                      "slurm-rerun-shard": page_block(page, "slurm-rerun-shard", r"shard=\d+")}
            unsharded = merged_whole_campaign(root, blocks, peconform, same_report_script)
            lost_shard_run_again(root, blocks, peconform, same_report_script, unsharded)
            budget_shorter_than_the_work(root, blocks, peconform)
        except Failure as failure:
            print(f"FAIL: {failure}", file=sys.stderr)
            sys.exit(1)
    print(f"passed in {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
