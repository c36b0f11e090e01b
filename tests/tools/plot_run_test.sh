#!/usr/bin/env bash
# tools/plot_run.py draws the four plots of a run directory (a CTest test; needs Debian's
# python3-matplotlib and python3-pandas, which tools/setup.sh installs).
set -euo pipefail
sluice="$1"
root="$2"
python="${3:-/usr/bin/python3}"
out="$(mktemp -d)"
ib="$(mktemp -d)"
trap 'rm -rf "$out" "$ib"' EXIT
fail() { echo "$1"; exit 1; }
pngs() {
  for png in queue_depth link_throughput flow_throughput congestion_tree; do
    [ -s "$1/$png.png" ] || fail "missing $1/$png.png"
    head -c 8 "$1/$png.png" | od -An -tx1 | grep -q "89 50 4e 47" || fail "$png.png is not a PNG"
  done
}
SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 "$sluice" run "$root/scenarios/pcn-basic.yaml" --until 500us -q --out "$out"
log="$("$python" "$root/tools/plot_run.py" "$out")"
pngs "$out"
folder_log="$log"
# The default ranks links by their peak; the bottleneck is the inter-switch link, 99% utilized.
grep -q "^links (max): " <<<"$log" || fail "default is not --links max: $log"
grep -q "bottleneck: sw0->sw1 (9[0-9]% utilized)" <<<"$log" || fail "wrong bottleneck: $log"
grep -q "congestion_tree.png (paused: [1-9][0-9]* ports)" <<<"$log" || fail "no PFC tree: $log"
# By mean the bottleneck ranks first, by peak the bursting hosts do.
grep -q "^links (mean): sw0->sw1, " <<<"$("$python" "$root/tools/plot_run.py" "$out" --links mean)" ||
  fail "--links mean does not rank sw0->sw1 first"
grep -q "^links (p99): " <<<"$("$python" "$root/tools/plot_run.py" "$out" --links p99)" || fail "--links p99"
# Names draw exactly those directions (and the bottleneck, marked).
grep -q "^links (h1->sw0,sw1->r0): h1->sw0, sw1->r0; bottleneck: sw0->sw1" \
  <<<"$("$python" "$root/tools/plot_run.py" "$out" --links 'h1->sw0,sw1->r0')" || fail "--links NAMES"
if err="$("$python" "$root/tools/plot_run.py" "$out" --links 'sw9->h0' 2>&1)"; then fail "unknown link accepted"; fi
grep -q "^plot_run.py: --links: no link direction 'sw9->h0'" <<<"$err" || fail "bad error: $err"

# An InfiniBand run draws its tree from the credit-starved shares, not from PFC's (never paused).
SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 "$sluice" run "$root/scenarios/ib-incast.yaml" --until 200us -q --out "$ib"
log="$("$python" "$root/tools/plot_run.py" "$ib" --links p99)"
pngs "$ib"
grep -q "congestion_tree.png (starved: 16 ports)" <<<"$log" || fail "ib tree not from credit: $log"
grep -q "bottleneck: sw0->r0 (9[0-9]% utilized)" <<<"$log" || fail "wrong ib bottleneck: $log"
# The same run kept in a results store with its series plots the same four images, byte for byte.
store="$out/runs.sqlite"
SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 "$sluice" run "$root/scenarios/pcn-basic.yaml" --until 500us -q \
  --store "$store" --store-series
SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 "$sluice" run "$root/scenarios/pcn-basic.yaml" --until 100us -q --store "$store"
log="$("$python" "$root/tools/plot_run.py" "$store" --run 1 --out "$out/stored")"
pngs "$out/stored"
"$python" "$root/tools/plot_run.py" "$out" >/dev/null  # the folder's plots again, with the default --links
for png in queue_depth link_throughput flow_throughput congestion_tree; do
  cmp -s "$out/$png.png" "$out/stored/$png.png" || fail "stored run's $png.png differs from the folder's"
done
[ "$(tail -1 <<<"$log")" = "$(tail -1 <<<"$folder_log")" ] || fail "stored run drew other links: $log"
# A stored run without its series, and a store that is not there, are one-line errors.
if err="$("$python" "$root/tools/plot_run.py" "$store" --run 2 2>&1)"; then fail "a run without series plotted"; fi
[ "$err" = "plot_run.py: run 2 of $store has no series (store it with --store-series)" ] || fail "bad error: $err"
if err="$("$python" "$root/tools/plot_run.py" /nonexistent/runs.sqlite 2>&1)"; then fail "a missing store plotted"; fi
[ "$err" = "plot_run.py: store: cannot open '/nonexistent/runs.sqlite': no such file" ] || fail "bad error: $err"
echo "4 plots of a PFC and an InfiniBand run, and of a stored run; --links max|p99|mean|NAMES; bottleneck marked"
