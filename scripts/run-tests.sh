#!/usr/bin/env bash
# Builds and runs every test (ctest labels: unit, fixtures, cli, property, mutant).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
ctest --preset release -j "$(nproc)" "$@"
