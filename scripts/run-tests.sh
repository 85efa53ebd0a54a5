#!/usr/bin/env bash
# Builds and runs every test (ctest labels: unit, fixtures, cli, property, mutant, ...), first
# installing what the tests need besides the build: the Python test packages, Chromium for the
# page tests and Slurm for the slurm test (scripts/install-deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --tests --pages --slurm
scripts/build.sh
ctest --preset release -j "$(nproc)" "$@"
