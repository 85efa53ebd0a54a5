#!/usr/bin/env bash
# The mutation score of peconform's own tests (issue 38): plants universalmutator's mutants, one
# at a time, in a scratch copy of the tree (build/mutation/tree; the working tree is never
# written), rebuilds the room's test binaries, runs them and records killed, survived, did not
# build or timed out (tools/mutation/score.py says how). The budget is N mutants that build per
# room (default 40), the room's files taking turns in an order shuffled by the seed: by default a
# fresh one, never used before, printed and recorded in tools/mutation/seeds.txt. Not part of
# .ci/run: a room of 40 built mutants takes from minutes to most of an hour on 2 cores
# (tools/MUTATION.md has the times).
#
#   scripts/mutation-score.sh [--per-room N] [--seed S|fresh] [--timeout SEC] [ROOM...]
#
# Rooms: precision, harness-verifiers, harness-results, backends-calls, reports, spec,
# tensorfiles, properties-variant, harness-screening, harness-drawing, harness-isolation,
# reference, properties-rotary, properties-catalog (default: all). Results: a table per room on
# standard output (tools/MUTATION.md keeps them), one JSON line per mutant in
# build/mutation/results.jsonl.
# universalmutator comes from PyPI into build/mutation-venv on first use.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=build/mutation-venv
if [ ! -x "$VENV/bin/mutate" ]; then
  /usr/bin/python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet universalmutator==1.14.1
fi
exec /usr/bin/python3 tools/mutation/score.py --mutate "$VENV/bin/mutate" "$@"
