"""A mutation score for peconform's own tests (issue 38), run by scripts/mutation-score.sh.

For each room named on the command line: copy the tree (tracked and untracked-but-not-ignored
files, as they are in the working tree) to a scratch folder, build it there once and run the
room's tests (they must pass), then plant mutants one at a time in the scratch copy of each
of the room's files. The mutants are universalmutator's C++ rules applied to that file, a fixed
number drawn per file from a seeded generator, so that a run repeats. After each mutant: rebuild
(ninja recompiles the one file and relinks), run the room's tests, record killed (a test failed), survived, did-not-build or
timed-out, then write the original back. The working tree is never written to.

Timestamps: a mutant and the original written back each get a modification time newer than
every object built before them, so ninja always recompiles the file that changed and never
reuses an object built from other text.

Results: one JSON line per mutant (room, file, mutant, status, the changed line) in --log, and a
table per room on standard output, in the form tools/MUTATION.md keeps.
"""
import argparse
import dataclasses
import difflib
import json
import os
import pathlib
import random
import shutil
import subprocess
import sys
import time


@dataclasses.dataclass(frozen=True)
class Room:
    sources: tuple      # the files mutated, relative to the tree
    tests: tuple        # (test binary under tests/, gtest filter or "") pairs


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
         "harness/element_tally.cpp", "harness/verifier.cpp"),
        (("harness_test", ""), ("campaign_test", "BrokenKernels*:*Verifier*"))),
    "harness-results": Room(
        ("harness/shrink.cpp", "harness/campaign_result.cpp", "harness/regression_corpus.cpp"),
        (("harness_test", ""), ("campaign_test", "Shrink*:*Merge*:*Regression*:BrokenKernel*"), ("reports_test", ""))),
    "backends-calls": Room(
        ("backends/kernel_call.cpp", "backends/device_call_checks.cpp", "backends/plugin/abi_spec.cpp",
         "backends/plugin/dl_tensor_view.cpp", "backends/plugin/device_memory.cpp",
         "backends/plugin/plugin_tensor_backend.cpp", "backends/plugin/plugin_library.cpp"),
        (("backends_test", ""), ("plugin_cli_test", ""))),
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


def run(command, timeout, cwd=None):
    try:
        done = subprocess.run(command, cwd=cwd, capture_output=True, timeout=timeout)
        return done.returncode, (done.stdout + done.stderr).decode(errors="replace")
    except subprocess.TimeoutExpired:
        return None, "timed out"


def build(build_dir, timeout):
    """The whole build: a room's tests also run binaries (the CLI, plugins) that link the mutated file."""
    return run(["cmake", "--build", str(build_dir), "-j", str(os.cpu_count() or 2)], timeout)


def test(build_dir, room, timeout):
    """'passed', 'failed' or 'timed-out' over the room's test binaries, stopping at the first failure."""
    for target, gtest_filter in room.tests:
        command = [str(pathlib.Path(build_dir) / "tests" / target), "--gtest_brief=1"]
        if gtest_filter:
            command.append(f"--gtest_filter={gtest_filter}")
        code, _ = run(command, timeout)
        if code is None:
            return "timed-out"
        if code != 0:
            return "failed"
    return "passed"


def mutants_of(mutate, path, work):
    """universalmutator's mutants of `path`, in their number order."""
    out = pathlib.Path(work) / "mutants"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    subprocess.run([mutate, str(path), "cpp", "--noCheck", "--mutantDir", str(out)], check=True, capture_output=True)
    number = lambda p: int(p.name.split(".mutant.")[1].split(".")[0])  # noqa: E731
    return sorted(out.iterdir(), key=number)


def changed_line(original, mutant):
    lines = [line for line in difflib.unified_diff(original.splitlines(), mutant.splitlines(), lineterm="", n=0)
             if line[:1] in "+-" and not line.startswith(("+++", "---"))]
    return " / ".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("rooms", nargs="*", help=f"rooms to score (default: all): {', '.join(ROOMS)}")
    parser.add_argument("--per-file", type=int, default=5, help="mutants drawn per file (default 5; 0: every one)")
    parser.add_argument("--seed", type=int, default=38, help="the draw's seed (default 38)")
    parser.add_argument("--timeout", type=int, default=600, help="seconds for one build or one test binary")
    parser.add_argument("--scratch", default="build/mutation", help="the scratch copy and its build (default build/mutation)")
    parser.add_argument("--log", default="", help="JSON lines, one per mutant (default SCRATCH/results.jsonl)")
    parser.add_argument("--mutate", default="mutate", help="universalmutator's command")
    args = parser.parse_args()
    unknown = [r for r in args.rooms if r not in ROOMS]
    if unknown:
        parser.error(f"unknown room(s) {', '.join(unknown)}; the rooms are {', '.join(ROOMS)}")
    if args.per_file < 0:
        parser.error(f"--per-file {args.per_file} is negative")

    repo = subprocess.run(["git", "rev-parse", "--show-toplevel"], check=True, capture_output=True, text=True).stdout.strip()
    scratch = (pathlib.Path(repo) / args.scratch).resolve()
    tree, build_dir = scratch / "tree", scratch / "tree" / "build" / "mutation"
    log_path = pathlib.Path(args.log) if args.log else scratch / "results.jsonl"
    sync_tree(repo, tree)
    if not (build_dir / "build.ninja").exists():
        code, output = run(["cmake", "-S", str(tree), "-B", str(build_dir), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
                            "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG", "-DPECONFORM_WARNINGS_AS_ERRORS=OFF"], args.timeout)
        if code != 0:
            sys.exit(f"error: configuring the scratch build failed:\n{output[-4000:]}")

    commit = subprocess.run(["git", "-C", repo, "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True).stdout.strip()
    print(f"# mutation score at {commit}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
          f"--per-file {args.per_file} --seed {args.seed}")
    with open(log_path, "a") as log:
        for room_name in args.rooms or list(ROOMS):
            room = ROOMS[room_name]
            code, output = build(build_dir, args.timeout)
            if code != 0 or test(build_dir, room, args.timeout) != "passed":
                sys.exit(f"error: room {room_name}'s tests do not pass without a mutant; fix that first\n{output[-2000:]}")
            tally = {"killed": 0, "survived": 0, "did-not-build": 0, "timed-out": 0}
            survivors = []
            for name in room.sources:
                path = tree / name
                original = path.read_bytes()
                candidates = mutants_of(args.mutate, path, scratch)
                drawn = candidates if args.per_file == 0 else \
                    random.Random(f"{args.seed}:{name}").sample(candidates, min(args.per_file, len(candidates)))
                for mutant in drawn:
                    write_newer(path, mutant.read_bytes())
                    try:
                        code, _ = build(build_dir, args.timeout)
                        if code is None:
                            status = "timed-out"
                        elif code != 0:
                            status = "did-not-build"
                        else:
                            status = {"passed": "survived", "failed": "killed", "timed-out": "timed-out"}[
                                test(build_dir, room, args.timeout)]
                    finally:
                        write_newer(path, original)
                    change = changed_line(original.decode(errors="replace"), mutant.read_text(errors="replace"))
                    tally[status] += 1
                    if status == "survived":
                        survivors.append((name, mutant.name, change))
                    log.write(json.dumps({"commit": commit, "room": room_name, "file": name, "mutant": mutant.name,
                                          "status": status, "change": change}) + "\n")
                    log.flush()
                    print(f"  {room_name} {name} {mutant.name}: {status}", file=sys.stderr)
            scored = tally["killed"] + tally["survived"]
            score = f"{100 * tally['killed'] / scored:.0f}%" if scored else "n/a"
            print(f"\n| {room_name} | {scored + tally['timed-out']} built | {tally['killed']} killed | "
                  f"{tally['survived']} survived | {tally['timed-out']} timed out | {tally['did-not-build']} did not build | "
                  f"score {score} |")
            for name, mutant, change in survivors:
                print(f"- survived: `{name}` {mutant}: `{change}`")


if __name__ == "__main__":
    main()
