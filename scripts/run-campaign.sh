#!/usr/bin/env bash
# The main job: the default conformance campaign (`peconform run --profile ci`) on every
# backend available (our CPU kernels, the fast and exact reference tiers, and our OpenCL kernels
# where an OpenCL device with fp64 is listed: PoCL's CPU device here), each writing
# report.json, junit.xml, summary.md and report.html into out/<backend>/. Exits 0 when every
# backend conforms, 1 when one does not, 2 or 3 on bad usage or a harness failure.
# Extra arguments go to every `peconform run` (e.g. --seed N --threads N --time-budget S).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
backends=(cpu fast exact)
# The first OpenCL device with fp64, unless PECONFORM_OPENCL_DEVICE names one.
opencl_device=${PECONFORM_OPENCL_DEVICE:-$(build/release/tools/peconform devices --json |
  python3 -c 'import json, sys; print(next((d["index"] for d in json.load(sys.stdin)["opencl"]["devices"] if d["fp64"]), ""))')}
if [ -n "$opencl_device" ]; then
  backends+=(opencl)
else
  echo "no OpenCL device with fp64 (peconform devices): the opencl backend is left out" >&2
fi
status=0
for backend in "${backends[@]}"; do
  code=0
  device=()
  [ "$backend" = opencl ] && device=(--device "$opencl_device")
  build/release/tools/peconform run --backend "$backend" "${device[@]}" --profile ci --out "out/$backend" "$@" || code=$?
  if [ "$code" -ge 2 ]; then exit "$code"; fi
  [ "$code" -eq 0 ] || status=1
  echo "report for $backend: out/$backend/report.html (also report.json, junit.xml, summary.md)"
done
exit "$status"
