#!/usr/bin/env bash
# tools/plot_run.py draws the four plots of a run directory (a CTest test; needs Debian's
# python3-matplotlib and python3-pandas, which tools/setup.sh installs).
set -euo pipefail
sluice="$1"
root="$2"
python="${3:-/usr/bin/python3}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 "$sluice" run "$root/scenarios/pcn-basic.yaml" --until 500us -q --out "$out"
"$python" "$root/tools/plot_run.py" "$out"
for png in queue_depth link_throughput flow_throughput congestion_tree; do
  [ -s "$out/$png.png" ] || { echo "missing $png.png"; exit 1; }
  head -c 8 "$out/$png.png" | od -An -tx1 | grep -q "89 50 4e 47" || { echo "$png.png is not a PNG"; exit 1; }
done
# An InfiniBand run draws its tree from the credit-starved shares, not from PFC's.
ib="$(mktemp -d)"
trap 'rm -rf "$out" "$ib"' EXIT
SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 "$sluice" run "$root/scenarios/ib-incast.yaml" --until 200us -q --out "$ib"
"$python" "$root/tools/plot_run.py" "$ib" | grep -q "congestion_tree.png (starved)" || { echo "ib tree not from credit"; exit 1; }
[ -s "$ib/congestion_tree.png" ] || { echo "missing ib congestion_tree.png"; exit 1; }
echo "4 plots written, and the InfiniBand tree from credit starvation"
