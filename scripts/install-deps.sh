#!/usr/bin/env bash
# Installs peconform's build and test dependencies from Debian 12 packages, and any further
# packages named as arguments. Idempotent: when every package is already installed it does
# nothing (and needs no network or root).
set -euo pipefail

packages=(
  g++ cmake ninja-build pkg-config ccache
  libboost-dev libmpfr-dev libgmp-dev
  librapidcheck-dev libgtest-dev
  libomp-dev libcli11-dev nlohmann-json3-dev libfmt-dev libdlpack-dev
  libhwy-dev libxxhash-dev
  python3 python3-mpmath
  python3-numpy
  libxml2-utils chromium python3-jsonschema
  ocl-icd-opencl-dev opencl-c-headers pocl-opencl-icd clinfo
  pybind11-dev python3-dev python3-numpy python3-torch python3-pytest python3-venv python3-pip
  slurmctld slurmd slurm-client munge
  "$@"
)

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "installing: ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
