#!/usr/bin/env bash
# PNG screenshots of HTML reports, for the demo: scripts/screenshot-reports.sh IN.html... OUTDIR
# Each page is opened in headless Chromium by tests/tools/html_check.py, which also fails when the
# page logs a console error, breaks its Content-Security-Policy or requests anything; the PNG is
# OUTDIR/<name>.png (whole page, 1280 px wide) and OUTDIR/<name>-dark.png with DARK=1.
set -euo pipefail

if (($# < 2)); then
  echo "usage: $0 IN.html... OUTDIR" >&2
  exit 2
fi
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
check="$here/../tests/tools/html_check.py"
out="${*: -1}"
mkdir -p "$out"
status=0
for html in "${@:1:$#-1}"; do
  name=$(basename "$html" .html)
  python3 "$check" "$html" --screenshot "$out/$name.png" || status=1
  if [[ "${DARK:-0}" == 1 ]]; then
    python3 "$check" "$html" --color-scheme dark --screenshot "$out/$name-dark.png" || status=1
  fi
done
exit $status
