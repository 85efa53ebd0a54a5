#!/usr/bin/env bash
# Installs, from Debian 12, the packages a script of ours needs and the machine lacks: always the
# build's and the main job's (scripts/run-campaign.sh), and the groups its options name, each
# asked for by the script that uses it; then any further packages named as arguments.
#
#   scripts/install-deps.sh [--python] [--tests] [--pages] [--slurm] [--upstream] [PACKAGE...]
#
#   (always)    the C++ build and the campaign on our CPU and OpenCL kernels (PoCL's CPU device)
#   --python    the Python module and pip: scripts/build-wheel.sh
#   --tests     what ctest runs besides: the module's pytest tests and examples (NumPy, PyTorch),
#               the fixture generator's mpmath, the report tests' xmllint and jsonschema
#               (scripts/run-tests.sh; includes --python)
#   --pages     Chromium, which renders report.html in the page tests (run-tests.sh) and
#               scripts/report-screenshot.sh
#   --slurm     Slurm and munge, for the slurm test (run-tests.sh, scripts/slurm-test-cluster.sh)
#   --upstream  the module, venvs and Debian's pytest for tools/upstream-conformance.sh
#
# Idempotent: when every package is already installed it does nothing (and needs no network or root).
set -euo pipefail

packages=(
  g++ cmake ninja-build pkg-config ccache
  libboost-dev libmpfr-dev libgmp-dev libxxhash-dev libhwy-dev
  libcli11-dev nlohmann-json3-dev libfmt-dev libdlpack-dev
  librapidcheck-dev libgtest-dev
  python3
  ocl-icd-opencl-dev opencl-c-headers pocl-opencl-icd
)
python=(pybind11-dev python3-dev python3-numpy python3-venv python3-pip)
tests=("${python[@]}" python3-pytest python3-torch python3-mpmath libxml2-utils python3-jsonschema clinfo)
pages=(chromium)
slurm=(slurmctld slurmd slurm-client munge)
upstream=("${python[@]}" python3-pytest)
while [ $# -gt 0 ]; do
  case $1 in
    --python) packages+=("${python[@]}") ;;
    --tests) packages+=("${tests[@]}") ;;
    --pages) packages+=("${pages[@]}") ;;
    --slurm) packages+=("${slurm[@]}") ;;
    --upstream) packages+=("${upstream[@]}") ;;
    -*) echo "install-deps.sh: no option $1 (--python, --tests, --pages, --slurm, --upstream)" >&2; exit 2 ;;
    *) packages+=("$1") ;;
  esac
  shift
done

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0
mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)

echo "installing: ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
