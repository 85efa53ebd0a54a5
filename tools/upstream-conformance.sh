#!/usr/bin/env bash
# The upstream conformance matrix (reports/upstream/): peconform.check() on transformers' own
# rotary code for each model in tools/upstream/models.py, under each precision class. Not part of
# .ci/run: it installs pinned packages from PyPI (torch's x86_64 wheel pulls its CUDA libraries,
# about 3.6 GB; everything runs on the CPU) and takes a while.
#
#   tools/upstream-conformance.sh [--venv DIR] [--build DIR] [conformance.py options]
#
# conformance.py options: --profile P (ci), --cases N, --seed S, --only MODEL (repeatable),
# --out DIR (reports/upstream); or --model MODEL --column COLUMN --replay 'CASE' to rerun one
# failing case of the matrix (each non-conformant cell lists its reproducer).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
venv="$root/build/upstream-venv"
build="$root/build/release"
passed=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --venv) venv=$(realpath -m "$2"); shift 2 ;;
    --build) build=$(realpath -m "$2"); shift 2 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) passed+=("$1"); shift ;;
  esac
done

# Debian's interpreter, whose python3-dev the module is built against; --system-site-packages
# keeps Debian's numpy and pytest, while the venv's pinned torch shadows Debian's 1.13.
if [[ ! -x "$venv/bin/python" ]]; then
  echo "making $venv" >&2
  /usr/bin/python3 -m venv --system-site-packages "$venv"
fi
"$venv/bin/pip" install --quiet -r "$root/tools/upstream/requirements.txt"

if [[ ! -f "$build/build.ninja" && ! -f "$build/Makefile" ]]; then
  echo "no configured build in $build: run cmake --preset release first (or give --build DIR)" >&2
  exit 2
fi
cmake --build "$build" --target _peconform -j "$(nproc)" >&2

# The configs are local files: transformers must not reach for the Hub.
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
export PYTHONPATH="$build/python${PYTHONPATH:+:$PYTHONPATH}"
command="tools/upstream-conformance.sh ${passed[*]}"
cd "$root"
exec "$venv/bin/python" tools/upstream/conformance.py --command "$command" "${passed[@]}"
