#!/usr/bin/env bash
# The wheel where nothing else is (label wheel, docs/python.md "Install from the wheel"):
# scripts/build-wheel.sh's wheel installed with `pip install --no-index` into a fresh venv that
# does not see the system's site packages, then, from a scratch folder outside the source tree:
#   - ldd of the command and of the compiled module resolves every library into the wheel's own
#     peconform.libs/ or to glibc and the GCC runtime (libstdc++, libgcc_s) that every manylinux
#     policy counts as the system's, and to nothing else;
#   - `peconform run --profile smoke` conforms, through the console entry point;
#   - with no OpenCL driver listed, `peconform devices` and `--backend opencl` say so; with one
#     (PoCL's .icd under /etc/OpenCL/vendors), the wheel's own ICD loader lists its device;
#   - the README's CMake and pytest quick starts, run from the README's blocks for the wheel
#     (tests/docs/quickstarts.py cmake-wheel, pytest-wheel), pass.
#
#   wheel_test.sh SOURCE_DIR DIST_DIR
#
# Builds the wheel into DIST_DIR first (scripts/build-wheel.sh: minutes when ccache holds a
# release build's objects), unless PECONFORM_WHEEL_BUILT=1 says DIST_DIR already holds it.
# Exits 77 (ctest: skipped) when pip cannot reach PyPI for the build's tools and the NumPy and
# pytest wheels, or when python3 has no venv module.
set -euo pipefail
source_dir=$(realpath "$1") dist=$(realpath -m "$2")
python=/usr/bin/python3
skip() { echo "SKIP: $*"; exit 77; }

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
"$python" -c "import ensurepip, venv" 2>/dev/null || skip "$python has no venv module (Debian: python3-venv)"
if [ "${PECONFORM_WHEEL_BUILT:-0}" != 1 ]; then
  "$python" -m pip download --quiet --disable-pip-version-check --no-deps --dest "$scratch/probe" pytest >/dev/null 2>&1 ||
    skip "pip cannot download from PyPI, where scripts/build-wheel.sh gets scikit-build-core, auditwheel and the NumPy and pytest wheels"
  "$source_dir/scripts/build-wheel.sh" "$dist"
fi
wheels=("$dist"/peconform-*.whl)
[ -f "${wheels[0]}" ] || { echo "FAIL: no peconform wheel in $dist"; exit 1; }
wheel=${wheels[0]}
echo "wheel: $wheel, $(du -k "$wheel" | cut -f1) KiB"

venv=$scratch/venv
"$python" -m venv "$venv"
cd "$scratch"
# Nothing of the build or the source tree in reach: the venv's bin and the system's alone.
export PATH="$venv/bin:/usr/local/bin:/usr/bin:/bin"
unset PYTHONPATH CMAKE_PREFIX_PATH PECONFORM_CLI
# pip's own settings from the environment (an index or find-links of this machine's) would add
# sources beside the wheel's folder.
unset "${!PIP_@}"
start=$(date +%s.%N)
pip install --quiet --disable-pip-version-check --no-index --find-links "$dist/deps" "$wheel" pytest
installed=$(date +%s.%N)
[ "$(command -v peconform)" = "$venv/bin/peconform" ] || { echo "FAIL: peconform on PATH is $(command -v peconform)"; exit 1; }
site=$(python -c "import sysconfig; print(sysconfig.get_paths()['platlib'])")

# Every library resolved into the wheel's peconform.libs/ or to glibc's and the GCC runtime's.
glibc_and_gcc_runtime=" linux-vdso.so.1 ld-linux-x86-64.so.2 libc.so.6 libm.so.6 libdl.so.2 libpthread.so.0 librt.so.1 libstdc++.so.6 libgcc_s.so.1 "
check_libraries() {
  local binary=$1 vendored=0 name path
  while read -r name arrow path _; do
    if [ "$arrow" = "=>" ]; then
      [ "$path" != "not" ] || { echo "FAIL: $binary: $name not found"; exit 1; }
      case $(realpath "$path") in
        "$site"/peconform.libs/*) vendored=$((vendored + 1)); continue ;;
      esac
    fi
    [[ $glibc_and_gcc_runtime == *" $(basename "$name") "* ]] ||
      { echo "FAIL: $binary links $name from ${path:-the system}, neither the wheel's nor glibc's"; exit 1; }
  done < <(ldd "$binary")
  [ "$vendored" -gt 0 ] || { echo "FAIL: $binary links nothing from $site/peconform.libs"; exit 1; }
  echo "ldd $binary: $vendored libraries from the wheel, the rest glibc's and the GCC runtime's"
}
check_libraries "$site/peconform/bin/peconform"
check_libraries "$(echo "$site"/peconform/_peconform*.so)"
# Each library copied in comes with its licence: peconform/licenses/<Debian package>, whose name
# holds the library's (libmpfr-<hash>.so.6.2.0: libmpfr6; libOpenCL: ocl-icd-libopencl1).
for library in "$site"/peconform.libs/*; do
  stem=$(basename "$library" | sed 's/-.*//' | tr '[:upper:]' '[:lower:]')
  compgen -G "$site/peconform/licenses/*$stem*" >/dev/null ||
    { echo "FAIL: no licence for $(basename "$library") in $site/peconform/licenses"; exit 1; }
done
echo "licences: $(ls "$site/peconform/licenses" | tr '\n' ' ')"

# The first verdict, through the console entry point.
peconform run --profile smoke --no-save --out smoke
verdict=$(python -c "import json; print(json.load(open('smoke/report.json'))['verdict'])")
[ "$verdict" = conformant ] || { echo "FAIL: the smoke campaign says $verdict"; exit 1; }
echo "pip install took $(printf %.1f "$(echo "$installed - $start" | bc)") s; its first verdict came $(printf %.1f "$(echo "$(date +%s.%N) - $start" | bc)") s after pip began"

# OpenCL with no driver listed (an empty OCL_ICD_VENDORS folder stands for a machine without
# one): both say so, and the run is refused as the user's setup (exit 2).
mkdir "$scratch/no-opencl-drivers"
said=$(OCL_ICD_VENDORS="$scratch/no-opencl-drivers" peconform devices)
[[ $said == *"lists no OpenCL platform"* ]] || { echo "FAIL: peconform devices without a driver says:"; echo "$said"; exit 1; }
code=0
said=$(OCL_ICD_VENDORS="$scratch/no-opencl-drivers" peconform run --backend opencl --profile smoke --no-save --out opencl 2>&1) || code=$?
[[ $code == 2 && $said == *"no OpenCL platform found"* ]] ||
  { echo "FAIL: --backend opencl without a driver exited $code saying:"; echo "$said"; exit 1; }
echo "without an OpenCL driver: $(echo "$said" | tail -1)"
if compgen -G "/etc/OpenCL/vendors/*.icd" >/dev/null; then
  devices=$(peconform devices --json | python -c "import json, sys; print(len(json.load(sys.stdin)['opencl']['devices']))")
  [ "$devices" -gt 0 ] || { echo "FAIL: /etc/OpenCL/vendors lists a driver, but the wheel's ICD loader finds no device"; exit 1; }
  echo "the wheel's ICD loader lists $devices OpenCL device(s) from /etc/OpenCL/vendors"
fi

[ -f "$(python -m peconform --cmake-dir)/peconformConfig.cmake" ] || { echo "FAIL: python -m peconform --cmake-dir has no peconformConfig.cmake"; exit 1; }
"$python" "$source_dir/tests/docs/quickstarts.py" cmake-wheel "$source_dir/README.md" "$venv"
"$python" "$source_dir/tests/docs/quickstarts.py" pytest-wheel "$source_dir/README.md" "$venv"
