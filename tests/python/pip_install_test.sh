#!/usr/bin/env bash
# `pip install .` into a fresh `python3 -m venv --system-site-packages`, then `import peconform`
# and one check() from the installed package, nowhere near the build tree.
#
#   pip_install_test.sh SOURCE_DIR PYTHON BUILD_DIR [CMAKE_DEFINE...]
#
# BUILD_DIR (relative to SOURCE_DIR) is where scikit-build-core builds; CMAKE_DEFINEs (NAME=VALUE)
# are passed to its configure. With a BUILD_DIR as deep as the main build's and the main build's
# flags and compiler launcher (tests/python/CMakeLists.txt passes them), ccache, whose base_dir
# makes paths relative, gives the pip build the main build's objects instead of compiling them again.
set -euo pipefail
source_dir=$1 python=$2 build_dir=$3
shift 3
settings=(--config-settings=build-dir="$build_dir")
for define in "$@"; do settings+=(--config-settings=cmake.define."$define"); done

# A fresh build every time, as in CI: what it costs is the compiles ccache does not have.
rm -rf "${source_dir:?}/$build_dir"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
"$python" -m venv --system-site-packages "$scratch/venv"
start=$(date +%s)
"$scratch/venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input "${settings[@]}" "$source_dir"
echo "pip install took $(( $(date +%s) - start )) s"

cd "$scratch"
env -u PYTHONPATH "$scratch/venv/bin/python" - "$scratch/venv" <<'PY'
import sys

import numpy as np

import peconform

venv = sys.argv[1]
assert peconform.__file__.startswith(venv), f"imported {peconform.__file__}, not the venv's package"


def scale_rope(x, positions, spec):
    half = spec.rotary_dims // 2
    angles = positions[..., None, None].astype(np.float64) * spec.base ** (-np.arange(half) / half)
    a, b = x[..., :half].astype(np.float64), x[..., half:2 * half].astype(np.float64)
    y = x.copy()
    y[..., :half], y[..., half:2 * half] = a * np.cos(angles) - b * np.sin(angles), a * np.sin(angles) + b * np.cos(angles)
    return y


result = peconform.check(scale_rope, spec="rope(d=32,layout=half,dtype=fp32)", profile="smoke", cases=4)
assert result.conformant and result.elements > 0, str(result)
print(f"installed {peconform.__file__}: {result.verdict_line}")
PY
