#!/usr/bin/env bash
# The upstream conformance matrix (reports/upstream/): peconform.check() on each library's own
# positional-encoding code through its adapter (tools/upstream/adapt_<library>.py), under each
# precision class of its family, assembled into matrix.{md,html,json}. Not part of .ci/run: it
# installs each library's pinned packages from PyPI (tools/upstream/requirements/<library>.txt;
# torch's x86_64 wheel alone pulls about 3.6 GB of CUDA libraries; everything runs on the CPU).
#
#   tools/upstream-conformance.sh [--library NAME]... [--venvs DIR] [--build DIR] [--ggml-source DIR] [options]
#
# Without --library, every library that has a requirements file, one after another.
# --ggml-source DIR first remakes ggml's reports (reports/upstream/ggml/) from a ggml source tree at
# the pinned commit with examples/ggml-plugin/rebuild-report.sh (GGML_COMMIT names the commit of an
# unpacked archive); without it the matrix takes ggml's published reports as they are. Each
# requirements file names its virtual environment (`# venv: NAME`, made under --venvs, default
# build/upstream-venvs): libraries whose pins agree share one. Options go to conformance.py:
# --profile P (ci), --cases N, --seed S, --only ROW (repeatable; writes to build/upstream-only
# unless --out says otherwise), --out DIR (reports/upstream); or --library L --row ROW --column C
# --replay 'CASE' to rerun one failing case (each non-conformant cell lists its reproducer), or
# --replay-failures to rerun the first failure of every non-conformant cell the library published.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
venvs="$root/build/upstream-venvs"
build="$root/build/release"
libraries=()
passed=()
ggml_source=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --library) libraries+=("$2"); shift 2 ;;
    --venvs) venvs=$(realpath -m "$2"); shift 2 ;;
    --build) build=$(realpath -m "$2"); shift 2 ;;
    --ggml-source) ggml_source=$(realpath -m "$2"); shift 2 ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) passed+=("$1"); shift ;;
  esac
done

requirements_dir="$root/tools/upstream/requirements"
if [[ ${#libraries[@]} -eq 0 ]]; then
  for file in "$requirements_dir"/*.txt; do libraries+=("$(basename "$file" .txt)"); done
fi
for library in "${libraries[@]}"; do
  if [[ ! -f "$requirements_dir/$library.txt" ]]; then
    echo "no library '$library': there is no $requirements_dir/$library.txt" >&2
    exit 2
  fi
done

"$root/scripts/install-deps.sh" --upstream
if [[ ! -f "$build/build.ninja" && ! -f "$build/Makefile" ]]; then
  echo "no configured build in $build: run cmake --preset release first (or give --build DIR)" >&2
  exit 2
fi
cmake --build "$build" --target _peconform -j "$(nproc)" >&2

if [[ -n "$ggml_source" ]]; then
  echo "== ggml (examples/ggml-plugin/rebuild-report.sh $ggml_source)" >&2
  # Relative to the tree where it lies in it, as the report prints the command it ran.
  PECONFORM=$(realpath -m --relative-to="$root" "$build/tools/peconform") "$root/examples/ggml-plugin/rebuild-report.sh" "$ggml_source" >&2
fi

# Local configs only: transformers must not reach for the Hub.
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
export PYTHONPATH="$build/python${PYTHONPATH:+:$PYTHONPATH}"
cd "$root"
for library in "${libraries[@]}"; do
  requirements="$requirements_dir/$library.txt"
  venv_name=$(sed -n 's/^# venv: *//p' "$requirements" | head -n 1)
  venv="$venvs/${venv_name:-$library}"
  # Debian's interpreter, whose python3-dev the module is built against; --system-site-packages
  # keeps Debian's pytest, while the pinned packages shadow Debian's.
  if [[ ! -x "$venv/bin/python" ]]; then
    echo "making $venv" >&2
    /usr/bin/python3 -m venv --system-site-packages "$venv"
  fi
  "$venv/bin/python" -m pip install --quiet -r "$requirements"
  echo "== $library (in $venv)" >&2
  "$venv/bin/python" tools/upstream/conformance.py --library "$library" \
    --command "tools/upstream-conformance.sh --library $library ${passed[*]}" "${passed[@]}"
done
