#!/usr/bin/env bash
# The mutation score of peconform's own tests (issue 38): plants universalmutator's mutants, a
# seeded sample per file, one at a time in a scratch copy of the tree (build/mutation/tree; the
# working tree is never written), rebuilds, runs the room's tests and records killed, survived,
# did not build or timed out (tools/mutation/score.py says how). Not part of .ci/run: each mutant
# is a rebuild and a test run, about a minute on 2 cores.
#
#   scripts/mutation-score.sh [--per-file N] [--seed S] [--timeout SEC] [ROOM...]
#
# Rooms: precision, harness-verifiers, harness-results, backends-calls, reports, spec,
# tensorfiles, properties-variant (default: all). Results: a table per room on standard output
# (tools/MUTATION.md keeps them), one JSON line per mutant in build/mutation/results.jsonl.
# universalmutator comes from PyPI into build/mutation-venv on first use.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=build/mutation-venv
if [ ! -x "$VENV/bin/mutate" ]; then
  /usr/bin/python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet universalmutator==1.14.1
fi
exec /usr/bin/python3 tools/mutation/score.py --mutate "$VENV/bin/mutate" "$@"
