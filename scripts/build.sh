#!/usr/bin/env bash
# Installs what the build lacks (scripts/install-deps.sh, no option: the build's packages alone),
# then configures and builds the release preset.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release
