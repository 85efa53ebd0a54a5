#!/usr/bin/env bash
# Remakes docs/report-top.png, the picture of a report the README shows (docs/campaign.md, "Reports"): the first screen
# (1,400 by 900 pixels) of report.html from the default campaign on our CPU kernels, as
# scripts/run-campaign.sh runs it, rendered by Debian's headless Chromium.
#
#   scripts/report-screenshot.sh            builds, runs `peconform run --backend cpu --profile ci`
#                                           into out/cpu (saving no regression), then shoots
#   scripts/report-screenshot.sh FOLDER     shoots FOLDER/report.html as it is
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --pages
folder=${1:-}
if [ -z "$folder" ]; then
  scripts/build.sh
  folder=out/cpu
  build/release/tools/peconform run --backend cpu --profile ci --no-save --quiet --out "$folder"
fi
[ -f "$folder/report.html" ] || { echo "no report.html in $folder" >&2; exit 2; }
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
# --no-sandbox: the sandbox cannot start as root or in most containers, and the page is our own.
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$profile" --window-size=1400,900 \
  --screenshot="$PWD/docs/report-top.png" "file://$(realpath "$folder/report.html")" 2>/dev/null
echo "wrote docs/report-top.png from $folder/report.html"
