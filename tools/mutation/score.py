"""A mutation score for peconform's own tests (issue 38), run by scripts/mutation-score.sh.

For each room named on the command line: copy the tree (tracked and untracked-but-not-ignored
files, as they are in the working tree) to a scratch folder, build it there and run the room's
tests (they must pass; their time sets each binary's timeout), then plant mutants one at a time
in the scratch copy of the room's files. The mutants are universalmutator's C++ rules applied to
a file, taken in an order shuffled by a seeded generator, so that a run repeats.

Most of universalmutator's mutants do not compile (a `<` of a template turned into `==`), so the
budget counts mutants that build: the room's files take turns, each turn taking its file's next
mutants until one builds, until the room has --per-room of them. A mutant is first compiled alone
(the object files of its file, or of the header's own .cpp), stopping at the first error
(tools/mutation/first_error_launcher.sh), and only then are the room's test binaries relinked,
with what they run (the CLI, the plugins: their add_dependencies); a mutant that fails either
step did not build. Then the room's tests run, stopping at the first failure:
killed, survived or timed out. The original is written back after each. The working tree is
never written to.

Timestamps: a mutant and the original written back each get a modification time newer than
every object built before them, so ninja always recompiles the file that changed and never
reuses an object built from other text. Each room starts with a build of the whole tree, so
no target outside the room keeps an object built from another room's mutant.

Seeds: a measurement is honest only on mutants no test was written against, so by default each
run draws a fresh seed that no earlier run used (tools/mutation/seeds.txt keeps every seed a run
has used, with its commit, date and rooms; the file is committed with the results) and prints
it. --seed N repeats an earlier draw, to check that the tests written since kill its survivors.

Results: one JSON line per mutant (room, file, mutant, status, the changed line, seconds) in
--log, and a table per room on standard output, in the form tools/MUTATION.md keeps, with the
room's cost: its whole time, and the seconds spent on mutants that built and on those that did
not.
"""
import argparse
import dataclasses
import difflib
import fcntl
import json
import os
import pathlib
import random
import secrets
import shlex
import shutil
import subprocess
import sys
import time


@dataclasses.dataclass(frozen=True)
class Room:
    sources: tuple      # the files mutated, relative to the tree
    tests: tuple        # (test binary, its path under the build's tests/; gtest filter or "") pairs
    environment: tuple = ()  # (name, value) pairs set for the room's test runs


# The property binaries' CI profile runs 4000 cases a property (minutes a run); a mutant in the
# properties or the reference is run against 300 (RC_PARAMS applies on top of the profile:
# tests/properties/property_profile.hpp). A mutant that makes a property reject the reference
# only on rarer draws survives here and is counted so: the room's score is a lower bound.
# mutant_test sets its own 2000 cases, and stops at each planted bug's first rejection.
PROPERTY_BUDGET = (("RC_PARAMS", "max_success=300"),)
# The campaign tests that run whole campaigns on broken kernels: each verifier, screen and
# drawing decision a verdict rests on is reached there.
BROKEN_KERNEL_CAMPAIGNS = "BrokenKernel*:Campaign/BrokenKernel*"


# The rooms that decide verdicts (issue 38). Each room's tests are the binaries that exercise its
# files, with filters where a binary also runs long campaigns that add no coverage of the room.
ROOMS = {
    "precision": Room(
        ("precision/error_model.cpp", "precision/claimed_bounds.cpp", "precision/float32_representable.cpp",
         "precision/error_model.hpp"),
        (("precision_test", ""), ("upstream_anchor_test", ""), ("reference_test", ""))),
    "harness-verifiers": Room(
        ("harness/rotary_verifier.cpp", "harness/table_verifiers.cpp", "harness/index_verifiers.cpp",
         "harness/tiny_pair_screen.cpp", "harness/rotary_row_screen.cpp", "harness/escalation.cpp",
         "harness/element_tally.cpp", "harness/verifier.cpp", "harness/scaled_gather_verifier.cpp"),
        (("harness_test", ""), ("campaign_test", BROKEN_KERNEL_CAMPAIGNS))),
    "harness-results": Room(
        ("harness/shrink.cpp", "harness/campaign_result.cpp", "harness/regression_corpus.cpp"),
        (("harness_test", ""), ("campaign_test", "Shrink*:" + BROKEN_KERNEL_CAMPAIGNS), ("reports_test", ""))),
    "backends-calls": Room(
        ("backends/kernel_call.cpp", "backends/device_call_checks.cpp", "backends/plugin/abi_spec.cpp",
         "backends/plugin/dl_tensor_view.cpp", "backends/plugin/device_memory.cpp",
         "backends/plugin/plugin_tensor_backend.cpp", "backends/plugin/plugin_library.cpp"),
        # cuda_threads_test runs the CUDA backend's kernels on the host, in every build: the
        # device call checks' refusals, which no other test of the room reaches; the OpenCL
        # plugin's test (on PoCL) is the one call through device_memory's copies.
        (("backends_test", ""), ("plugin_cli_test", ""), ("backends/cuda/cuda_threads_test", ""),
         ("plugins/opencl/opencl_plugin_test", ""))),
    "reports": Room(
        ("reports/campaign_reports.cpp", "reports/junit_xml.cpp", "reports/report_facts.cpp", "reports/report_html.cpp",
         "reports/summary_markdown.cpp", "reports/svg_plot.cpp", "reports/xml_escape.cpp", "reports/atomic_file.cpp"),
        (("reports_test", ""),)),
    "spec": Room(
        ("spec/spec.cpp", "spec/call_syntax.cpp", "spec/hf_config.cpp", "spec/hf_config_models.cpp", "spec/decimal.cpp"),
        (("spec_test", ""),)),
    "tensorfiles": Room(
        ("tensorfiles/npy_file.cpp", "tensorfiles/manifest.cpp", "tensorfiles/call_arrays.cpp",
         "tensorfiles/outputs_check.cpp"),
        (("tensorfiles_test", ""), ("tensor_files_cli_test", ""))),
    "properties-variant": Room(
        ("properties/variant_declaration.cpp", "properties/variant_subject.cpp", "properties/variant_runner.cpp",
         "properties/variant_rotary_relations.cpp", "properties/variant_table_relations.cpp",
         "properties/variant_bias_relations.cpp"),
        (("variant_plugin_test", ""), ("variant_property_test", ""))),
    # Issue 51's rooms: what else decides a verdict.
    "harness-screening": Room(
        ("harness/screened_cos_sin.cpp", "harness/reduced_angles.cpp", "harness/xpos_factor.cpp",
         "harness/sixteen_bit_rows.cpp"),
        (("harness_test", ""), ("campaign_test", BROKEN_KERNEL_CAMPAIGNS))),
    "harness-drawing": Room(
        ("harness/case_generator.cpp", "harness/activation_draw.cpp"),
        (("harness_test", ""), ("campaign_test", BROKEN_KERNEL_CAMPAIGNS + ":Shrink*"))),
    "harness-isolation": Room(
        ("harness/isolated_backend.cpp", "harness/case_run.cpp"),
        (("isolation_test", ""), ("harness_test", ""), ("campaign_test", BROKEN_KERNEL_CAMPAIGNS))),
    "reference": Room(
        ("reference/tier_bounds.cpp", "reference/fast_tier.cpp", "reference/point.cpp"),
        (("reference_test", ""), ("harness_test", ""), ("property_test", "FastTier.*")),
        PROPERTY_BUDGET),
    # The 49 catalog properties, in two rooms so that each runs its tests in minutes: a mutant
    # that makes a property reject the reference fails property_test, one that makes it accept a
    # planted bug fails mutant_test; property_support_test holds checks.cpp's verdicts and the
    # generators' draws to what they state.
    "properties-rotary": Room(
        ("properties/rotary_properties.cpp", "properties/rotary_support.cpp", "properties/frequency_plan_properties.cpp",
         "properties/checks.cpp"),
        (("property_support_test", ""), ("property_test", "FastTier.*"), ("mutant_test", "")),
        PROPERTY_BUDGET),
    "properties-catalog": Room(
        ("properties/table_properties.cpp", "properties/relative_bias_properties.cpp",
         "properties/conformance_properties.cpp", "properties/generators.cpp", "properties/property_catalog.cpp"),
        (("property_support_test", ""), ("property_test", "FastTier.*"), ("mutant_test", "")),
        PROPERTY_BUDGET),
}

# Each room's whole time at 40 built mutants on seed 441157640 (tools/MUTATION.md, sessions 41 and
# 42, 2 cores), used only to hand out the longest rooms first when rooms run in several jobs: the
# jobs then end close together (longest processing time first).
MEASURED_MINUTES = {
    "precision": 41, "harness-verifiers": 18, "harness-results": 14, "backends-calls": 17, "reports": 9,
    "spec": 12, "tensorfiles": 14, "properties-variant": 21, "harness-screening": 24, "harness-drawing": 30,
    "harness-isolation": 32, "reference": 33, "properties-rotary": 53, "properties-catalog": 50,
}


def tree_files(repo):
    listed = subprocess.run(["git", "-C", repo, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            check=True, capture_output=True).stdout.split(b"\0")
    return [name.decode() for name in listed if name and (pathlib.Path(repo) / name.decode()).is_file()]


def sync_tree(repo, scratch):
    """Copies the files whose content differs, so that unchanged files keep their timestamps, and
    removes those the tree no longer has (the scratch build under build/ stays)."""
    names = tree_files(repo)
    kept = set(names)
    for path in pathlib.Path(scratch).rglob("*"):
        name = path.relative_to(scratch).as_posix()
        if path.is_file() and not name.startswith("build/") and name not in kept:
            path.unlink()
    for name in names:
        source, target = pathlib.Path(repo) / name, pathlib.Path(scratch) / name
        data = source.read_bytes()
        if target.is_file() and target.read_bytes() == data:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        shutil.copymode(source, target)


def write_newer(path, data):
    """Writes `data` with a modification time past every object built so far."""
    path.write_bytes(data)
    now = time.time_ns() + 1_000_000_000
    os.utime(path, ns=(now, now))


def run(command, timeout, cwd=None, environment=()):
    try:
        done = subprocess.run(command, cwd=cwd, capture_output=True, timeout=timeout, env={**os.environ, **dict(environment)})
        return done.returncode, (done.stdout + done.stderr).decode(errors="replace")
    except subprocess.TimeoutExpired:
        return None, "timed out"


def build(build_dir, targets, timeout, environment=()):
    """ninja on `targets` (every target when empty)."""
    return run(["ninja", "-C", str(build_dir), "-j", str(os.cpu_count() or 2), *targets], timeout, environment=environment)


def room_targets(room):
    """The room's test binaries, which depend on what they run (the CLI, plugins), and the CLI."""
    return ["peconform", *dict.fromkeys(pathlib.PurePath(binary).name for binary, _ in room.tests)]


def objects_of(build_dir, tree, name):
    """The object files compiled from `name` (a header: from the .cpp beside it), from the build's
    compile_commands.json; empty when none is listed, and then only the room's build checks it."""
    source = tree / name
    if source.suffix in (".hpp", ".h"):
        source = source.with_suffix(".cpp")
    entries = json.loads((build_dir / "compile_commands.json").read_text())
    objects = []
    for entry in entries:
        if pathlib.Path(entry["file"]) == source:
            words = shlex.split(entry["command"])
            objects.append(words[words.index("-o") + 1])
    return objects


def test_command(build_dir, binary, gtest_filter):
    command = [str(pathlib.Path(build_dir) / "tests" / binary), "--gtest_brief=1", "--gtest_fail_fast"]
    if gtest_filter:
        command.append(f"--gtest_filter={gtest_filter}")
    return command


def test(build_dir, room, timeouts):
    """'passed', 'failed' or 'timed-out' over the room's test binaries, stopping at the first failure."""
    for (binary, gtest_filter), timeout in zip(room.tests, timeouts):
        code, _ = run(test_command(build_dir, binary, gtest_filter), timeout, environment=room.environment)
        if code is None:
            return "timed-out"
        if code != 0:
            return "failed"
    return "passed"


def baseline(build_dir, room, timeout):
    """Each test binary's timeout: five times what it takes without a mutant, and at least a minute."""
    timeouts = []
    for binary, gtest_filter in room.tests:
        start = time.monotonic()
        code, output = run(test_command(build_dir, binary, gtest_filter), timeout, environment=room.environment)
        if code != 0:
            sys.exit(f"error: {binary} does not pass without a mutant; fix that first\n{output[-2000:]}")
        timeouts.append(max(60, round(5 * (time.monotonic() - start))))
    return timeouts


def mutants_of(mutate, path, out, seed, name):
    """universalmutator's mutants of `path`, in an order shuffled by `seed` and the file's name."""
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    subprocess.run([mutate, str(path), "cpp", "--noCheck", "--mutantDir", str(out)], check=True, capture_output=True)
    number = lambda p: int(p.name.split(".mutant.")[1].split(".")[0])  # noqa: E731
    mutants = sorted(out.iterdir(), key=number)
    random.Random(f"{seed}:{name}").shuffle(mutants)
    return mutants


def changed_line(original, mutant):
    lines = [line for line in difflib.unified_diff(original.splitlines(), mutant.splitlines(), lineterm="", n=0)
             if line[:1] in "+-" and not line.startswith(("+++", "---"))]
    return " / ".join(lines)


# Set for the mutant's own compile: the scratch build's launcher then stops at the first error.
MUTANT_COMPILE = (("PECONFORM_MUTANT_COMPILE", "1"),)


def try_mutant(build_dir, tree, room, name, mutant_text, timeouts, timeout):
    """Plants one mutant, builds, tests and writes the original back; returns its status."""
    path = tree / name
    original = path.read_bytes()
    write_newer(path, mutant_text)
    try:
        objects = objects_of(build_dir, tree, name)
        code, _ = build(build_dir, objects, timeout, MUTANT_COMPILE) if objects else (0, "")
        if code == 0:
            code, _ = build(build_dir, room_targets(room), timeout)
        if code is None:
            return "timed-out"
        if code != 0:
            return "did-not-build"
        return {"passed": "survived", "failed": "killed", "timed-out": "timed-out"}[test(build_dir, room, timeouts)]
    finally:
        write_newer(path, original)


def score_room(args, room_name, tree, build_dir, scratch, commit, log):
    room = ROOMS[room_name]
    room_start = time.monotonic()
    code, output = build(build_dir, [], args.timeout)
    if code != 0:
        sys.exit(f"error: the scratch tree does not build without a mutant\n{output[-2000:]}")
    timeouts = baseline(build_dir, room, args.timeout)
    queues = {name: mutants_of(args.mutate, tree / name, scratch / "mutants" / str(index), args.seed, name)
              for index, name in enumerate(room.sources)}
    tally = {"killed": 0, "survived": 0, "did-not-build": 0, "timed-out": 0}
    seconds = {"built": 0.0, "did-not-build": 0.0}
    survivors = []
    built = 0
    while any(queues.values()) and (args.per_room == 0 or built < args.per_room):
        for name, queue in queues.items():
            # This file's turn: its next mutants until one builds (with --per-room 0, every one).
            while queue and (args.per_room == 0 or built < args.per_room):
                mutant = queue.pop(0)
                original = (tree / name).read_text(errors="replace")
                start = time.monotonic()
                status = try_mutant(build_dir, tree, room, name, mutant.read_bytes(), timeouts, args.timeout)
                elapsed = time.monotonic() - start
                change = changed_line(original, mutant.read_text(errors="replace"))
                tally[status] += 1
                seconds["did-not-build" if status == "did-not-build" else "built"] += elapsed
                if status == "survived":
                    survivors.append((name, mutant.name, change))
                log.write(json.dumps({"commit": commit, "room": room_name, "file": name, "mutant": mutant.name,
                                      "status": status, "change": change, "seconds": round(elapsed, 1)}) + "\n")
                log.flush()
                print(f"  {room_name} {name} {mutant.name}: {status} ({elapsed:.0f} s)", file=sys.stderr)
                if status != "did-not-build":
                    built += 1
                    if args.per_room != 0:
                        break
    scored = tally["killed"] + tally["survived"]
    score = f"{100 * tally['killed'] / scored:.0f}%" if scored else "n/a"
    print(f"\n| {room_name} | {built} built | {tally['killed']} killed | {tally['survived']} survived | "
          f"{tally['timed-out']} timed out | {tally['did-not-build']} did not build | score {score} | "
          f"{(time.monotonic() - room_start) / 60:.0f} min in all: {seconds['built']:.0f} s on built mutants, "
          f"{seconds['did-not-build']:.0f} s on the others |")
    for name, mutant, change in survivors:
        print(f"- survived: `{name}` {mutant}: `{change}`")
    sys.stdout.flush()
    shutil.rmtree(scratch / "mutants")  # thousands of copies of each file


SEEDS = "tools/mutation/seeds.txt"


def fresh_seed(ledger, commit, rooms):
    """A seed no run in the ledger has used (each line: seed, commit, date, rooms), recorded there."""
    used = {int(line.split()[0]) for line in ledger.read_text().splitlines() if line.strip() and not line.startswith("#")}
    seed = secrets.randbelow(2**31)
    while seed in used:
        seed = secrets.randbelow(2**31)
    with open(ledger, "a") as out:
        out.write(f"{seed} {commit} {time.strftime('%Y-%m-%d', time.gmtime())} {','.join(rooms)}\n")
    return seed


def next_room(queue):
    """Takes the first room off the queue file (one room a line), under a lock the jobs share;
    None when it is empty."""
    with open(queue, "r+") as file:
        fcntl.flock(file, fcntl.LOCK_EX)
        rooms = file.read().split()
        file.seek(0)
        file.truncate()
        file.write("".join(f"{room}\n" for room in rooms[1:]))
        return rooms[0] if rooms else None


def score_in_jobs(args, repo, rooms):
    """Scores the rooms in --jobs processes of this script, each in its own scratch copy, with the
    one seed drawn here and one log; a job that finishes a room takes the next from a queue, the
    longest (MEASURED_MINUTES) first; prints their tables in job order. The rooms are independent
    (each starts from a build of the whole tree), so a room's results do not depend on the job it
    ran in."""
    log = args.log or str(pathlib.Path(repo) / args.scratch / "results.jsonl")
    pathlib.Path(log).parent.mkdir(parents=True, exist_ok=True)
    queue = pathlib.Path(repo) / args.scratch / "rooms-queue"
    queue.write_text("".join(f"{room}\n" for room in sorted(rooms, key=lambda room: -MEASURED_MINUTES[room])))
    jobs = []
    for index in range(min(args.jobs, len(rooms))):
        scratch = args.scratch if index == 0 else f"{args.scratch}-{index + 1}"
        command = [sys.executable, __file__, "--jobs", "1", "--seed", str(args.seed), "--per-room", str(args.per_room),
                   "--timeout", str(args.timeout), "--scratch", scratch, "--log", log, "--mutate", args.mutate,
                   "--queue", str(queue)]
        jobs.append(subprocess.Popen(command, cwd=repo, stdout=subprocess.PIPE, text=True))
    outputs = [job.communicate()[0] for job in jobs]
    for output in outputs:
        sys.stdout.write(output)
    failed = [index + 1 for index, job in enumerate(jobs) if job.returncode != 0]
    if failed:
        sys.exit(f"error: job(s) {', '.join(map(str, failed))} failed; their rooms' tables above are incomplete")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("rooms", nargs="*", help=f"rooms to score (default: all): {', '.join(ROOMS)}")
    parser.add_argument("--per-room", type=int, default=40,
                        help="mutants that build, per room, its files taking turns (default 40; 0: every mutant)")
    parser.add_argument("--seed", default="fresh",
                        help="the draw's seed: an integer repeats that draw; 'fresh' (the default) draws one no run in "
                             "tools/mutation/seeds.txt has used, and records it there")
    parser.add_argument("--timeout", type=int, default=3600, help="seconds for one build or one baseline test run")
    parser.add_argument("--scratch", default="build/mutation", help="the scratch copy and its build (default build/mutation)")
    parser.add_argument("--log", default="", help="JSON lines, one per mutant (default SCRATCH/results.jsonl)")
    parser.add_argument("--mutate", default="mutate", help="universalmutator's command")
    parser.add_argument("--jobs", type=int, default=2,
                        help="rooms scored at once, each job in its own scratch copy (SCRATCH, SCRATCH-2, ...), taking the "
                             "next room, longest first, when it finishes one; default 2: a mutant's compile and most tests "
                             "use one core")
    parser.add_argument("--queue", default="", help=argparse.SUPPRESS)  # the rooms' queue a job of --jobs takes from
    args = parser.parse_args()
    unknown = [r for r in args.rooms if r not in ROOMS]
    if unknown:
        parser.error(f"unknown room(s) {', '.join(unknown)}; the rooms are {', '.join(ROOMS)}")
    if args.per_room < 0:
        parser.error(f"--per-room {args.per_room} is negative")
    if args.seed != "fresh" and not args.seed.isdigit():
        parser.error(f"--seed {args.seed} is neither a non-negative integer nor 'fresh'")
    if args.jobs < 1:
        parser.error(f"--jobs {args.jobs} is not a positive number of jobs")

    repo = subprocess.run(["git", "rev-parse", "--show-toplevel"], check=True, capture_output=True, text=True).stdout.strip()
    commit = subprocess.run(["git", "-C", repo, "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True).stdout.strip()
    rooms = args.rooms or list(ROOMS)
    args.seed = fresh_seed(pathlib.Path(repo) / SEEDS, commit, rooms) if args.seed == "fresh" else int(args.seed)
    if args.jobs > 1 and len(rooms) > 1 and not args.queue:
        return score_in_jobs(args, repo, rooms)
    scratch = (pathlib.Path(repo) / args.scratch).resolve()
    tree, build_dir = scratch / "tree", scratch / "tree" / "build" / "release"
    log_path = pathlib.Path(args.log) if args.log else scratch / "results.jsonl"
    sync_tree(repo, tree)
    # The scratch build is the release preset's, as CI builds (-Werror: a mutant that makes our
    # code warn never passes CI, so it did not build). It lies two folders below its tree, as
    # build/release does below the working tree, so with ccache's base_dir at the working tree the
    # two builds compile the same relative paths and share ccache's objects.
    os.environ.setdefault("CCACHE_BASEDIR", repo)
    code, output = run(["cmake", "--preset", "release", "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON",
                        f"-DCMAKE_CXX_COMPILER_LAUNCHER={tree / 'tools/mutation/first_error_launcher.sh'}"], args.timeout, cwd=tree)
    if code != 0:
        sys.exit(f"error: configuring the scratch build failed:\n{output[-4000:]}")

    print(f"# mutation score at {commit}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
          f"--per-room {args.per_room} --seed {args.seed}")
    sys.stdout.flush()
    with open(log_path, "a") as log:
        if args.queue:
            while (room_name := next_room(args.queue)) is not None:
                score_room(args, room_name, tree, build_dir, scratch, commit, log)
        else:
            for room_name in rooms:
                score_room(args, room_name, tree, build_dir, scratch, commit, log)


if __name__ == "__main__":
    main()
