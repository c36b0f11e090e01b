#!/usr/bin/env bash
# Renders an HTML report (`sluice run ... --report FILE`) to a PNG with headless Chromium, for the
# docs: tools/report_screenshot.sh REPORT.html OUT.png [WIDTH [HEIGHT]]   (default 1100 x 1400 px,
# the top of the page). Needs Debian's chromium, which tools/setup.sh does not install (~300 MB).
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: tools/report_screenshot.sh REPORT.html OUT.png [WIDTH [HEIGHT]]" >&2
  exit 2
fi
report="$1" out="$2" width="${3:-1100}" height="${4:-1400}"
[ -f "$report" ] || { echo "report_screenshot.sh: no report '$report'" >&2; exit 1; }
browser="$(command -v chromium || command -v chromium-browser || true)"
if [ -z "$browser" ]; then
  echo "report_screenshot.sh: chromium is not installed; install it with 'bash tools/apt_install.sh chromium'" \
    "(Debian's chromium, ~300 MB), or open $report in any browser and take the screenshot there" >&2
  exit 1
fi
sandbox=()
[ "$(id -u)" -ne 0 ] || sandbox=(--no-sandbox)  # Chromium refuses to run as root with its sandbox
# Chromium's own complaints (no D-Bus, no GPU) go to a log, not the terminal.
rm -f "$out"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if ! "$browser" --headless "${sandbox[@]}" --disable-gpu --hide-scrollbars --window-size="$width,$height" \
  --screenshot="$(realpath -m "$out")" "file://$(realpath "$report")" >"$log" 2>&1 || [ ! -s "$out" ]; then
  tail -3 "$log" >&2
  echo "report_screenshot.sh: chromium did not write $out" >&2
  exit 1
fi
echo "screenshot of $report written to $out (${width}x${height})"
