#!/bin/sh
# The C++ compiler launcher of the mutation run's scratch build (tools/mutation/score.py). It
# compiles through ccache, with the same arguments as the release build, so that the two builds
# share ccache's objects. While a mutant's own objects are compiled (score.py sets
# PECONFORM_MUTANT_COMPILE for that step alone) it adds -Wfatal-errors: most mutants do not
# compile, and without the flag GCC goes on parsing the file and instantiating its templates
# after the first error: 29% of a failing compile's time over 24 such mutants of six of the
# rooms' files (11% to 53% by file; tools/MUTATION.md, "How the sample is drawn").
# The flag changes no object code, so a mutant that compiles links and runs as it would without.
if command -v ccache >/dev/null 2>&1; then set -- ccache "$@"; fi
if [ -n "${PECONFORM_MUTANT_COMPILE:-}" ]; then exec "$@" -Wfatal-errors; fi
exec "$@"
