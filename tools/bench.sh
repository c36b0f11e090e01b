#!/usr/bin/env bash
# Benchmark (opt-in, not part of the test suite): incast for 20 ms simulated with 1000-byte
# payloads, five runs; prints packet-hops per wall second (of the simulation proper: setup
# and output excluded) for each run, the median and the best, and the peak memory.
#
# Second benchmark, also opt-in: `bench.sh --scale SLUICE scenarios/bench-leaf-spine-1024.yaml`
# (target bench-leaf-spine) runs a large scenario as written, once per run (BENCH_RUNS, default
# 1), and prints wall time, elaboration time, simulation rate and peak memory.
set -euo pipefail
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1  # keep the SystemC banner out of builds, tests and reports
scale=0
if [ "${1:-}" = "--scale" ]; then
  scale=1
  shift
fi
sluice="$1"
scenario="$2"
out="${TMPDIR:-/tmp}/sluice-bench-$$"
if [ "$scale" = 1 ]; then
  for run in $(seq 1 "${BENCH_RUNS:-1}"); do
    stats=$( { /usr/bin/time -f '%e %M' "$sluice" run "$scenario" -q --out "$out" ; } 2>&1 >/dev/null | tail -1)
    python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["totals"]
total_s, rss_kib = float(sys.argv[2]), int(sys.argv[3])
elab, wall, hops = t["elaboration_s"], t["wall_time_s"], t["packet_hops"]
print(f"run {sys.argv[4]}: {sys.argv[5]}: {total_s:.2f} s wall in all, elaboration {elab:.2f} s, "
      f"simulation {wall:.2f} s for {hops} packet-hops ({hops / wall / 1e6:.2f} M/s), "
      f"peak memory {rss_kib / 1024:.1f} MiB")
' "$out/summary.json" $stats "$run" "$(basename "$scenario" .yaml)"
  done
  rm -rf "$out"
  exit 0
fi
runs="${BENCH_RUNS:-5}"
results=()
for run in $(seq 1 "$runs"); do
  rss=$( { /usr/bin/time -f '%M' "$sluice" run "$scenario" --until 20ms --set '*.mtu=1000B' -q --out "$out" ; } \
         2>&1 >/dev/null | tail -1)
  results+=("$(python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["totals"]; print(t["packet_hops"], t["wall_time_s"])' \
              "$out/summary.json") $rss")
done
printf '%s\n' "${results[@]}" | python3 -c '
import statistics, sys
rows = [line.split() for line in sys.stdin if line.strip()]
rates = []
for i, (hops, wall, rss) in enumerate(rows, 1):
    rate = int(hops) / float(wall)
    rates.append(rate)
    print(f"run {i}: {hops} packet-hops in {float(wall):.3f} s = {rate / 1e6:.2f} M packet-hops/s, peak memory {int(rss) / 1024:.1f} MiB")
print(f"incast 20 ms: median {statistics.median(rates) / 1e6:.2f} M packet-hops/s, best {max(rates) / 1e6:.2f} M/s")
'
rm -rf "$out"
