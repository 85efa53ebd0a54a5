#!/usr/bin/env bash
# Fuzzes every parser a user's input reaches (fuzz/*_fuzz.cpp: spec text and JSON, Hugging Face
# configs, case strings, regression files) with libFuzzer under AddressSanitizer and
# UndefinedBehaviorSanitizer, SECONDS each (default 60), one after another.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]     e.g. scripts/fuzz.sh 10, scripts/fuzz.sh 300 spec_text
#
# Builds with clang 14 into build/fuzz/ (fuzz/CMakeLists.txt; never part of the main build).
# Each target first replays every seed in fuzz/corpus/<target>/ whole (the inputs of past
# findings among them, as finding-*), then searches with inputs up to 4 KB from a scratch copy
# of them, so the committed corpus never grows by itself, with fuzz/<target>.dict when there
# is one. It prints a line per target with its executions and exec/s. A finding (a
# crash, a sanitizer report, a leak, an exception other than SpecError, a broken invariant, an
# input slower than 10 s or one that needs more than 2 GB) leaves its input in
# build/fuzz/artifacts/<target>/ and the whole log in build/fuzz/logs/<target>.log; the script
# exits 1 when any target has one. Reproduce with: build/fuzz/<target>_fuzz ARTEFACT.
# A new target is one more fuzz/<target>_fuzz.cpp with its fuzz/corpus/<target>/ folder.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
[ $# -gt 0 ] && shift
if ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: scripts/fuzz.sh [SECONDS] [TARGET...]" >&2
  exit 2
fi

scripts/install-deps.sh clang libclang-rt-14-dev libomp-dev

build=build/fuzz
started=$SECONDS
cmake -S fuzz -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++-14 >/dev/null
cmake --build "$build" -j "${PECONFORM_FUZZ_JOBS:-2}"
echo "fuzz targets built in $((SECONDS - started)) s"

if [ $# -gt 0 ]; then
  targets=("$@")
else
  targets=()
  for source in fuzz/*_fuzz.cpp; do
    name=$(basename "$source" _fuzz.cpp)
    targets+=("$name")
  done
fi

passed=0
failed=0
failures=()
for target in "${targets[@]}"; do
  binary="$build/${target}_fuzz"
  if [ ! -x "$binary" ]; then
    echo "FAIL $target: no fuzz target $binary (expected fuzz/${target}_fuzz.cpp)"
    failed=$((failed + 1))
    failures+=("$target")
    continue
  fi
  corpus="$build/run/$target"
  artifacts="$build/artifacts/$target/"
  log="$build/logs/$target.log"
  rm -rf "$corpus"
  mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
  seeds=()
  if [ -d "fuzz/corpus/$target" ]; then
    # The search starts from the seeds within -max_len; the larger ones are replayed whole below.
    find "fuzz/corpus/$target" -maxdepth 1 -type f -size -4097c -exec cp {} "$corpus/" \;
    seeds=("fuzz/corpus/$target"/*)
  else
    echo "note: $target has no seed corpus (fuzz/corpus/$target/)" >&2
  fi
  limits=(-timeout=10 -rss_limit_mb=2048 -artifact_prefix="$artifacts")
  # Inputs up to 4 KB, libFuzzer's default for small seeds: the few larger seeds (inputs nested
  # thousands deep, from findings) would otherwise let it mutate 40 KB inputs, 3 to 10 times
  # slower. Every seed is replayed whole first.
  options=(-max_total_time="$seconds" -max_len=4096 -print_final_stats=1 "${limits[@]}")
  [ -f "fuzz/$target.dict" ] && options+=(-dict="fuzz/$target.dict")

  # Scratch files of the target's own (the regression loader's corpus folder), in memory where
  # the machine has /dev/shm, removed afterwards even when the target crashed.
  scratch=$(mktemp -d "$([ -w /dev/shm ] && echo /dev/shm || echo "${TMPDIR:-/tmp}")/peconform-fuzz.XXXXXX")
  status=0
  phase="replaying the seeds"
  : >"$log"
  if [ ${#seeds[@]} -gt 0 ]; then
    TMPDIR="$scratch" "$binary" "${limits[@]}" "${seeds[@]}" >>"$log" 2>&1 || status=$?
  fi
  if [ "$status" -eq 0 ]; then
    phase="fuzzing"
    TMPDIR="$scratch" "$binary" "${options[@]}" "$corpus" >>"$log" 2>&1 || status=$?
  fi
  rm -rf "$scratch"

  executions=$(awk '/^stat::number_of_executed_units:/ {print $2}' "$log" | tail -n 1)
  rate=$(awk '/^stat::average_exec_per_sec:/ {print $2}' "$log" | tail -n 1)
  artefact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
  if [ "$status" -eq 0 ] && [ -z "$artefact" ] && [ -n "$executions" ]; then
    echo "PASS $target: ${#seeds[@]} seeds, ${executions} executions in ${seconds} s, ${rate} exec/s"
    passed=$((passed + 1))
  else
    echo "FAIL $target: exit status $status while $phase, after ${executions:-?} executions; artefact: ${artefact:-none}; log: $log"
    if [ "$phase" = "replaying the seeds" ]; then
      echo "    seed: $(sed -n 's/^Running: //p' "$log" | tail -n 1)"
    fi
    # The sanitizer's or the invariant's own words, and libFuzzer's summary.
    { grep -E -A1 '^INVARIANT BROKEN' "$log" | head -n 2 || true; } | sed 's/^/    /'
    { grep -E '^(==[0-9]+==ERROR|SUMMARY|terminate called|  what\(\)|.*runtime error:)' "$log" | head -n 4 || true; } | cut -c1-200 | sed 's/^/    /'
    if [ -n "$artefact" ]; then
      echo "    reproduce: $binary $artefact"
    fi
    failed=$((failed + 1))
    failures+=("$target")
  fi
done

echo "$passed passed, $failed failed${failures[*]:+ (${failures[*]})}"
[ "$failed" -eq 0 ]
