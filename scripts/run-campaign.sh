#!/usr/bin/env bash
# The main job: the default conformance campaign, which writes out/selfcheck-report.json.
# Until the fuzzing harness lands it is the reference self-check: the exact tier against the
# independent mpmath golden vectors, and the fast tier against the exact tier.
# Extra arguments go to `peconform selfcheck` (e.g. --seed N --samples N --report PATH).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
build/release/tools/peconform selfcheck "$@"
