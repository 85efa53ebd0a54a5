#!/usr/bin/env bash
# Rebuilds reports/upstream/ggml/: ggml's CPU RoPE (ggml_rope_ext, and ggml_rope_multi's MROPE,
# IMROPE and VISION modes) held by `peconform run --plugin` to the class that describes it
# (fp32-angle, theta=ggml) and to one it does not meet (exact-angle). It downloads nothing: give
# it a ggml source tree at the pinned commit.
#
#   examples/ggml-plugin/rebuild-report.sh GGML_SOURCE_DIR
#
# Getting the pinned commit (PINNED below), either way:
#   git clone https://github.com/ggml-org/ggml && git -C ggml checkout d99724f2b141fed9e1a9f402213506c081433465
#   curl -L https://github.com/ggml-org/ggml/archive/d99724f2b141fed9e1a9f402213506c081433465.tar.gz | tar -xz
# A git checkout states its own commit; an unpacked archive has none, so set GGML_COMMIT to the
# commit it came from. Another commit runs too, with a warning, and the report names it.
#
# Environment (all optional):
#   PECONFORM   the peconform binary (default build/release/tools/peconform; build it first:
#               cmake --preset release && cmake --build --preset release)
#   WORK        scratch folder for the ggml and adapter builds (default build/ggml-upstream)
#   JOBS        parallel build jobs (default 2)
#   PROFILE     campaign profile (default ci); SEED the campaign seed (default peconform's)
#   OUT         report folder (default reports/upstream/ggml)
#   PECONFORM_GGML_THREADS  ggml's threads per call (default 1; README.md beside this file)
# Exit status: 0 when every campaign ran (whatever its verdict), 2 on bad usage, 3 when a
# build or a campaign could not run.
set -euo pipefail

PINNED=d99724f2b141fed9e1a9f402213506c081433465

usage() { sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
[ $# -eq 1 ] || usage
GGML_SRC=$(cd "$1" && pwd) || usage
[ -f "$GGML_SRC/include/ggml.h" ] && [ -f "$GGML_SRC/src/ggml-cpu/ops.cpp" ] || { echo "error: $GGML_SRC is not a ggml source tree" >&2; exit 2; }

REPO=$(cd "$(dirname "$0")/../.." && pwd)
cd "$REPO"
PECONFORM=${PECONFORM:-build/release/tools/peconform}
WORK=${WORK:-build/ggml-upstream}
JOBS=${JOBS:-2}
PROFILE=${PROFILE:-ci}
OUT=${OUT:-reports/upstream/ggml}
SEED_ARGS=()
[ -n "${SEED:-}" ] && SEED_ARGS=(--seed "$SEED")
[ -x "$PECONFORM" ] || { echo "error: no peconform at $PECONFORM (build it, or set PECONFORM)" >&2; exit 2; }

if git -C "$GGML_SRC" rev-parse --verify -q HEAD >/dev/null 2>&1 && [ "$(git -C "$GGML_SRC" rev-parse --show-toplevel)" = "$GGML_SRC" ]; then
  COMMIT=$(git -C "$GGML_SRC" rev-parse HEAD)
  [ -z "$(git -C "$GGML_SRC" status --porcelain --untracked-files=no)" ] || COMMIT="$COMMIT-dirty"
else
  COMMIT=${GGML_COMMIT:-unknown}
fi
[ "$COMMIT" = "$PINNED" ] || echo "warning: ggml commit $COMMIT is not the pinned $PINNED; the report will name $COMMIT" >&2

mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
WORK_DISPLAY=$WORK
case "$WORK_DISPLAY" in "$REPO"/*) WORK_DISPLAY=${WORK_DISPLAY#"$REPO"/} ;; esac
# The campaigns' report.json records the tree's HEAD when each ran; this is the one the script
# started from, and the binary's own date.
START_COMMIT=$(git rev-parse HEAD 2>/dev/null || echo unknown)
START_DIRTY=$(git status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo " (with uncommitted changes in the tree)" || true)
BINARY_DATE=$(date -u -r "$PECONFORM" '+%Y-%m-%d %H:%M UTC')
LOG="$WORK/log"
mkdir -p "$LOG"

# 1. ggml's CPU backend only, static and position-independent so that the plugin carries it.
GGML_CONFIGURE=(cmake -S "$GGML_SRC" -B "$WORK/ggml-build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=OFF
  -DGGML_BUILD_TESTS=OFF -DGGML_BUILD_EXAMPLES=OFF -DBUILD_SHARED_LIBS=OFF -DCMAKE_POSITION_INDEPENDENT_CODE=ON
  -DGGML_OPENMP=OFF -DGGML_CCACHE=OFF -DCMAKE_INSTALL_PREFIX="$WORK/ggml-install")
GGML_BUILD=(cmake --build "$WORK/ggml-build" -j "$JOBS")
GGML_INSTALL=(cmake --install "$WORK/ggml-build")
echo "building ggml $COMMIT in $WORK/ggml-build (log: $LOG/ggml.txt)" >&2
start=$(date +%s)
{ "${GGML_CONFIGURE[@]}" && "${GGML_BUILD[@]}" && "${GGML_INSTALL[@]}"; } >"$LOG/ggml.txt" 2>&1 || { tail -30 "$LOG/ggml.txt" >&2; exit 3; }
GGML_SECONDS=$(( $(date +%s) - start ))
if grep -q 'no work to do' "$LOG/ggml.txt"; then GGML_BUILT="already built in $WORK_DISPLAY/ggml-build (remove it for a clean build)"; else GGML_BUILT="built in $GGML_SECONDS s with -j $JOBS"; fi
GGML_VARIANT=$(grep -m1 'Adding CPU backend variant' "$LOG/ggml.txt" | sed 's/.*variant //' || true)

# 2. The adapter.
PLUGIN_CONFIGURE=(cmake -S examples/ggml-plugin -B "$WORK/plugin-build" -G Ninja -DCMAKE_BUILD_TYPE=Release
  -DGGML_DIR="$WORK/ggml-install" -DGGML_COMMIT="$COMMIT")
PLUGIN_BUILD=(cmake --build "$WORK/plugin-build" -j "$JOBS")
echo "building the adapter in $WORK/plugin-build" >&2
{ "${PLUGIN_CONFIGURE[@]}" && "${PLUGIN_BUILD[@]}"; } >"$LOG/plugin.txt" 2>&1 || { tail -30 "$LOG/plugin.txt" >&2; exit 3; }
# Repository-relative when WORK is inside the repository, so that the reports' replay commands
# name no one's home folder.
PLUGIN="$WORK/plugin-build/libpeconform_ggml.so"
case "$PLUGIN" in "$REPO"/*) PLUGIN=${PLUGIN#"$REPO"/} ;; esac

# 3. What the library declares, then one campaign per class.
mkdir -p "$OUT"
"$PECONFORM" plugin-info "$PLUGIN" >"$OUT/plugin-info.txt" || { cat "$OUT/plugin-info.txt" >&2; exit 3; }

declare -A KERNELS=(
  [fp32-angle]="ggml-rope-norm ggml-rope-neox ggml-mrope ggml-imrope ggml-vision"
  [exact-angle]="ggml-rope-norm-exact ggml-rope-neox-exact ggml-mrope-exact ggml-imrope-exact ggml-vision-exact"
)
declare -A COMMANDS CODES SECONDS_OF
for class in fp32-angle exact-angle; do
  args=(run --plugin "$PLUGIN")
  for k in ${KERNELS[$class]}; do args+=(--kernel "$k"); done
  args+=(--profile "$PROFILE" "${SEED_ARGS[@]}" --no-save --quiet --out "$OUT/$class")
  shown=("$PECONFORM" "${args[@]}")
  COMMANDS[$class]=$(printf '%q ' "${shown[@]}" | sed "s# \$##")
  echo "campaign $class: ${COMMANDS[$class]}" >&2
  rm -rf "${OUT:?}/$class"
  start=$(date +%s)
  code=0
  "$PECONFORM" "${args[@]}" >"$LOG/$class.txt" 2>&1 || code=$?
  SECONDS_OF[$class]=$(( $(date +%s) - start ))
  CODES[$class]=$code
  tail -3 "$LOG/$class.txt" >&2
  [ "$code" -le 1 ] || { echo "error: the $class campaign exited $code" >&2; tail -30 "$LOG/$class.txt" >&2; exit 3; }
  # report.html only while it stays small enough to commit.
  if [ -f "$OUT/$class/report.html" ] && [ "$(stat -c %s "$OUT/$class/report.html")" -gt 1048576 ]; then
    rm "$OUT/$class/report.html"
  fi
done

# 4. README.md: the commit, the commands, the machine, the verdicts.
export OUT COMMIT PINNED PROFILE GGML_VARIANT
export CMD_FP32="${COMMANDS[fp32-angle]}" CMD_EXACT="${COMMANDS[exact-angle]}"
export SECONDS_FP32="${SECONDS_OF[fp32-angle]}" SECONDS_EXACT="${SECONDS_OF[exact-angle]}"
export CODE_FP32="${CODES[fp32-angle]}" CODE_EXACT="${CODES[exact-angle]}"
export GGML_CONFIGURE_TEXT=$(printf '%q ' "${GGML_CONFIGURE[@]}" | sed "s#$GGML_SRC#GGML_SOURCE_DIR#g; s#$WORK#\$WORK#g; s# \$##")
export GGML_BUILD_TEXT=$(printf '%q ' "${GGML_BUILD[@]}" "&&" "${GGML_INSTALL[@]}" | sed "s#$WORK#\$WORK#g; s#\\\\&\\\\&#\&\&#; s# \$##")
export PLUGIN_TEXT=$(printf '%q ' "${PLUGIN_CONFIGURE[@]}" "&&" "${PLUGIN_BUILD[@]}" | sed "s#$WORK#\$WORK#g; s#\\\\&\\\\&#\&\&#; s# \$##")
export GGML_THREADS=${PECONFORM_GGML_THREADS:-1}
export WORK_SHOWN=$WORK_DISPLAY GGML_BUILT START_COMMIT START_DIRTY BINARY_DATE PECONFORM
export OS_TEXT=$(. /etc/os-release 2>/dev/null; echo "${PRETTY_NAME:-unknown}, $(uname -sr)")
export CC_TEXT=$(cc --version | head -1)
export DATE_TEXT=$(date -u +%Y-%m-%d)
python3 - <<'PY'
import json, os

out = os.environ["OUT"]

def fmt_ratio(x):
    return x if isinstance(x, str) else f"{x:.3g}"

def cells_table(report):
    rows = ["| kernel | dtype | class | cases | failed cases | elements | bounded | identical | unconstrained | failed elements | worst ratio | max ulp |",
            "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for c in report["cells"]:
        rows.append(f"| {c['backend']} | {c['dtype']} | {c['precision']} | {c['cases']} | {c['failed_cases']} | {c['elements']:,} | "
                    f"{c['bounded_elements']:,} | {c['identical_elements']:,} | {c['unconstrained_elements']:,} | {c['failed_elements']:,} | "
                    f"{fmt_ratio(c['worst_ratio'])} | {fmt_ratio(c['max_ulp'])} |")
    return "\n".join(rows)

def failure_kinds(report):
    kinds = {}
    for f in report["failures"]:
        first = f.get("first_failure") or {}
        kind = first.get("kind", "error") if isinstance(first, dict) else "error"
        kinds.setdefault((f.get("family", ""), kind), []).append(f)
    return kinds

sections = []
for cls, cmd, secs, code in (("fp32-angle", os.environ["CMD_FP32"], os.environ["SECONDS_FP32"], os.environ["CODE_FP32"]),
                             ("exact-angle", os.environ["CMD_EXACT"], os.environ["SECONDS_EXACT"], os.environ["CODE_EXACT"])):
    report = json.load(open(os.path.join(out, cls, "report.json")))
    run = report["run"]
    lines = [f"### `{cls}`: {report['verdict']}", "",
             "```sh", cmd, "```", "",
             f"Exit status {code}; {run['cases_run']} cases of {run['cases_planned']} planned, "
             f"{report['total_elements']:,} elements, seed {run['seed']}, {run['threads']} verifier threads, "
             f"{secs} s wall ({run['kernel_seconds']:.2f} s in ggml, {run['verify_seconds']:.1f} s verifying); "
             f"peconform's tree at {run['commit'][:12]} when it ran.", "",
             cells_table(report), ""]
    kinds = failure_kinds(report)
    if report["failures"]:
        # By family too: rope, mrope and rope2d fail for different reasons.
        lines.append(f"{len(report['failures'])} failing cases, by family and first failing element's kind: " +
                     ", ".join(f"{family} {kind} {len(v)}" for (family, kind), v in sorted(kinds.items())) +
                     ". The first of each:")
        lines.append("")
        for (family, kind), fs in sorted(kinds.items()):
            f = fs[0]
            first = f.get("first_failure") or {}
            where = (f" (ratio {fmt_ratio(first['ratio'])} to the bound at position {first['position']})"
                     if kind not in ("out-of-bounds", "error") and "ratio" in first else "")
            lines.append(f"- {family} `{kind}`{where}: `{f['case']}`")
            lines.append(f"  replay: `{f['replay']}`")
        lines.append("")
    lines.append(f"Files: [`summary.md`]({cls}/summary.md), [`report.json`]({cls}/report.json), [`junit.xml`]({cls}/junit.xml)"
                 + (f", [`report.html`]({cls}/report.html)" if os.path.exists(os.path.join(out, cls, "report.html")) else "")
                 + ". The console output stays in the build folder (`$WORK/log/`).")
    sections.append("\n".join(lines))
    machine, compiler = run["machine"], run["compiler"]

pinned = os.environ["COMMIT"] == os.environ["PINNED"]
text = f"""# ggml's CPU RoPE, held by peconform

Generated by `examples/ggml-plugin/rebuild-report.sh` on {os.environ['DATE_TEXT']}; the findings, written by hand, are in
[`FINDINGS.md`](FINDINGS.md). Do not edit this file: run the script again.

- **ggml**: [ggml-org/ggml@{os.environ['COMMIT']}](https://github.com/ggml-org/ggml/tree/{os.environ['COMMIT']})
  {'(the pinned commit)' if pinned else '(NOT the pinned commit ' + os.environ['PINNED'] + ')'}, CPU backend only,
  x86 variant `{os.environ['GGML_VARIANT']}`; {os.environ['GGML_BUILT']}.
- **Kernels under test**: `ggml_rope_ext` and `ggml_rope_multi` (both `ggml_compute_forward_rope_flt`,
  `src/ggml-cpu/ops.cpp`) through a CPU graph: modes 0 (GPT-J pairs, `layout=interleaved`) and `GGML_ROPE_TYPE_NEOX`
  (`layout=half`) as `rope`, `GGML_ROPE_TYPE_MROPE` (`section_mode=blocked`) and `GGML_ROPE_TYPE_IMROPE`
  (`section_mode=interleaved`) as `mrope` on NeoX pairs with the fourth position stream and its section 0, and
  `GGML_ROPE_TYPE_VISION` as `rope2d` (`layout=half`: `n_dims` = d/2, sections d/4 each, as llama.cpp's vision towers
  call it); F32 and F16,
  partial rotary (`n_dims` = rot), linear scaling (`freq_scale = 1.0f/(float)factor`), on peconform's own buffers,
  {os.environ['GGML_THREADS']} ggml thread(s) per call (`PECONFORM_GGML_THREADS`; adapter:
  [`examples/ggml-plugin/`](../../../examples/ggml-plugin/)).
- **peconform**: `{os.environ['PECONFORM']}` (built {os.environ['BINARY_DATE']}), the tree at {os.environ['START_COMMIT']}{os.environ['START_DIRTY']}
  when the script started; profile `{os.environ['PROFILE']}`.
- **Machine**: {machine}; {os.environ['OS_TEXT']}; peconform built with {compiler}, ggml and the adapter with {os.environ['CC_TEXT']}.

What the library declares: [`plugin-info.txt`](plugin-info.txt).

## Build

`GGML_SOURCE_DIR` is a checkout of the commit above; `$WORK` was `{os.environ['WORK_SHOWN']}`.

```sh
{os.environ['GGML_CONFIGURE_TEXT']}
{os.environ['GGML_BUILD_TEXT']}
{os.environ['PLUGIN_TEXT']}
```

## Verdicts

{(chr(10) + chr(10)).join(sections)}
"""
open(os.path.join(out, "README.md"), "w").write(text)
PY
echo "report: $OUT/README.md" >&2
