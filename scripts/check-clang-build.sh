#!/usr/bin/env bash
# Keeps the clang build working (CI runs this after the tests). Builds and runs the CPU kernels'
# unit tests with Debian 12's clang 14 and warnings as errors, which holds clang's own fp16
# storage type (backends/cpu/storage.hpp) to MPFR, then checks every other library and tool file
# with clang's front end alone (-fsyntax-only, warnings as errors): finding GCC-only C++ needs no
# more, since templates are still instantiated and every front-end warning still fires, and it
# skips code generation, about a quarter of clang's time on these files. The other test files are
# left out: they would add half again to CI's time. The CUDA backend is left out
# (PECONFORM_CUDA=OFF): its kernels are nvcc's to compile, which the test build already does, and
# configuring CUDA again would cost time for two small files.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh clang libclang-rt-14-dev libomp-dev
build=build/clang-check
cmake -S . -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DPECONFORM_WARNINGS_AS_ERRORS=ON -DPECONFORM_CUDA=OFF >/dev/null
# The kernels' tests, and the sources the build generates (the OpenCL programs as strings).
mapfile -t generated < <(ninja -C "$build" -t targets rule CUSTOM_COMMAND | grep -v '\.util$')
ninja -C "$build" tests/cpu_kernels_test "${generated[@]}"
"$build/tests/cpu_kernels_test" --gtest_brief=1

# Every other object outside tests/, its compile command with -fsyntax-only in place of
# `-o OBJECT -c`, run $(nproc) at a time; each failure is printed, and any fails the script.
ninja -C "$build" -t inputs tests/cpu_kernels_test >"$build/kernel-test-inputs.txt"
python3 - "$build" "$(nproc)" <<'PY'
import json, os, shlex, subprocess, sys
from concurrent.futures import ThreadPoolExecutor

build, jobs = sys.argv[1], int(sys.argv[2])
built = set(open(os.path.join(build, "kernel-test-inputs.txt")).read().split())
checks = []
for entry in json.load(open(os.path.join(build, "compile_commands.json"))):
    words = shlex.split(entry["command"])
    at = words.index("-o")
    output = words[at + 1]
    if output.startswith("tests/") or output in built:
        continue
    del words[at:at + 2]
    words[words.index("-c")] = "-fsyntax-only"
    checks.append((output, words, entry["directory"]))


def check(job):
    output, words, directory = job
    run = subprocess.run(words, cwd=directory, capture_output=True, text=True)
    return output, run.returncode, run.stdout + run.stderr


failed = 0
with ThreadPoolExecutor(jobs) as pool:
    for output, code, text in pool.map(check, checks):
        if code != 0 or text:
            print(f"{output}:\n{text}", file=sys.stderr)
        failed += code != 0
print(f"clang 14's front end, warnings as errors: {len(checks) - failed} of {len(checks)} files pass")
sys.exit(1 if failed else 0)
PY
