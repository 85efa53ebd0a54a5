#!/usr/bin/env bash
# c_plugin_package_test.sh BUILD_DIR EXAMPLE_DIR CMAKE CTEST
#
# What a kernel author's CI does with peconform's CMake package, end to end:
#  1. `cmake --install BUILD_DIR --prefix TMP`;
#  2. configure and build EXAMPLE_DIR (examples/c-plugin) with -DCMAKE_PREFIX_PATH=TMP only, and
#     run its ctest: the NeoX kernel must conform, with its reports under its build tree;
#  3. build it again with -DEXAMPLE_BUG=ON (GPT-J pairing on NeoX data): its ctest must fail
#     and print a one-line replay command, which, run as printed, fails the same case again.
set -euo pipefail

build_dir=$1 example_dir=$2 cmake=$3 ctest=$4
profile=${PECONFORM_PLUGIN_TEST_PROFILE:-smoke}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/peconform-plugin-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "== $* ($SECONDS s)"; }

step "install $build_dir into $tmp/prefix"
"$cmake" --install "$build_dir" --prefix "$tmp/prefix" > "$tmp/install.log" || { cat "$tmp/install.log"; fail "cmake --install failed"; }
for file in bin/peconform include/peconform/kernel_abi.h; do
  [[ -e $tmp/prefix/$file ]] || fail "the install has no $file"
done
config=$(find "$tmp/prefix" -name peconformConfig.cmake)
[[ -n $config && -e $(dirname "$config")/peconformConfigVersion.cmake ]] || fail "the install has no peconformConfig.cmake and version file"

# configure_and_build NAME [CMAKE OPTIONS...]: the example in $tmp/NAME against the prefix alone.
configure_and_build() {
  local name=$1
  shift
  "$cmake" -S "$example_dir" -B "$tmp/$name" -G Ninja -DCMAKE_PREFIX_PATH="$tmp/prefix" \
    -DEXAMPLE_PROFILE="$profile" "$@" > "$tmp/$name.configure.log" 2>&1 \
    || { cat "$tmp/$name.configure.log"; fail "configuring the example ($name) against the installed package failed"; }
  grep -q "^peconform_DIR:PATH=$tmp/prefix/" "$tmp/$name/CMakeCache.txt" \
    || fail "the example ($name) found a peconform package outside $tmp/prefix: $(grep '^peconform_DIR' "$tmp/$name/CMakeCache.txt")"
  "$cmake" --build "$tmp/$name" > "$tmp/$name.build.log" 2>&1 \
    || { cat "$tmp/$name.build.log"; fail "building the example ($name) failed"; }
}

step "the example as written, profile $profile: its ctest must pass"
configure_and_build good
if ! (cd "$tmp/good" && "$ctest" --output-on-failure) > "$tmp/good.ctest.log" 2>&1; then
  cat "$tmp/good.ctest.log"
  fail "the correct NeoX kernel did not conform"
fi
for report in report.json junit.xml summary.md report.html; do
  [[ -s $tmp/good/peconform/neox_rope_conforms/$report ]] || { cat "$tmp/good.ctest.log"; fail "no $report under the example's build tree"; }
done
grep -q '"verdict": *"conformant"' "$tmp/good/peconform/neox_rope_conforms/report.json" \
  || fail "report.json does not say conformant: $(grep -m1 '"verdict"' "$tmp/good/peconform/neox_rope_conforms/report.json")"

step "the example with -DEXAMPLE_BUG=ON: its ctest must fail with a replay line"
configure_and_build bug -DEXAMPLE_BUG=ON
if (cd "$tmp/bug" && "$ctest" --output-on-failure) > "$tmp/bug.ctest.log" 2>&1; then
  cat "$tmp/bug.ctest.log"
  fail "GPT-J pairing on NeoX data passed the conformance test"
fi
replay=$(grep -m1 -o "peconform run --plugin .* --replay '.*'\$" "$tmp/bug.ctest.log") || true
if [[ -z $replay ]]; then
  cat "$tmp/bug.ctest.log"
  fail "the failing test printed no one-line replay command (peconform run --plugin ... --replay '...')"
fi
echo "replay line: $replay"

step "the replay line, run as printed, fails again"
set +e
(cd "$tmp" && eval "\"\$tmp/prefix/bin/peconform\" ${replay#peconform } --no-save --out \"\$tmp/replay\"") > "$tmp/replay.log" 2>&1
status=$?
set -e
[[ $status -eq 1 ]] || { cat "$tmp/replay.log"; fail "the replay exited $status, not 1 (non-conformant)"; }

step "passed"
