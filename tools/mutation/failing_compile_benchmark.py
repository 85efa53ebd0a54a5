"""What -Wfatal-errors saves on mutants that do not compile (tools/mutation/first_error_launcher.sh).

For each source file named, draws universalmutator's mutants of it (shuffled by --seed), and for
the first --per-file of them that fail to compile, times the release build's own compile command
(build/release/compile_commands.json) on the mutant without and then with -Wfatal-errors, one
after the other, so that both see the same load. Prints each pair and the ratio of the sums.

  /usr/bin/python3 tools/mutation/failing_compile_benchmark.py [--per-file N] [--seed S] FILE...

Needs build/release configured (it is, after the README's test command) and universalmutator in
build/mutation-venv (scripts/mutation-score.sh installs it). Writes only under a temporary folder:
the working tree is never written.
"""
import argparse
import json
import pathlib
import random
import shlex
import subprocess
import sys
import tempfile
import time


def compile_command(entries, name, mutant):
    """The release build's compile of `name`, as a list, on `mutant` in its place and writing its
    object to /dev/null. The tree's includes are all from the include paths (-I), so the mutant
    compiles from another folder as the file does from its own."""
    source = (pathlib.Path.cwd() / name).resolve()
    for entry in entries:
        if pathlib.Path(entry["file"]) == source:
            words = shlex.split(entry["command"])
            words[words.index("-o") + 1] = "/dev/null"
            words[words.index("-c") + 1] = str(mutant)
            return words, entry["directory"]
    sys.exit(f"error: {name} is not compiled by build/release (compile_commands.json)")


def timed(command, cwd):
    start = time.monotonic()
    code = subprocess.run(command, cwd=cwd, capture_output=True).returncode
    return code, time.monotonic() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+", help="sources of the tree (.cpp), relative to the repository root")
    parser.add_argument("--per-file", type=int, default=5, help="failing mutants timed per file (default 5)")
    parser.add_argument("--seed", type=int, default=1, help="the mutants' shuffle (default 1)")
    args = parser.parse_args()
    if args.per_file < 1:
        parser.error(f"--per-file {args.per_file} is not a positive count")
    entries = json.loads(pathlib.Path("build/release/compile_commands.json").read_text())
    totals = [0.0, 0.0]
    with tempfile.TemporaryDirectory() as scratch:
        for name in args.files:
            out = pathlib.Path(scratch) / pathlib.Path(name).stem
            out.mkdir()
            subprocess.run(["build/mutation-venv/bin/mutate", name, "cpp", "--noCheck", "--mutantDir", str(out)],
                           check=True, capture_output=True)
            mutants = sorted(out.iterdir())
            random.Random(args.seed).shuffle(mutants)
            timed_here = 0
            for mutant in mutants:
                if timed_here == args.per_file:
                    break
                command, cwd = compile_command(entries, name, mutant)
                code, plain = timed(command, cwd)
                if code == 0:
                    continue
                _, fatal = timed([*command, "-Wfatal-errors"], cwd)
                timed_here += 1
                totals[0] += plain
                totals[1] += fatal
                print(f"{name} {mutant.name}: {plain:.1f} s, with -Wfatal-errors {fatal:.1f} s", flush=True)
    print(f"sum: {totals[0]:.1f} s, with -Wfatal-errors {totals[1]:.1f} s, ratio {totals[1] / totals[0]:.2f}")


if __name__ == "__main__":
    main()
