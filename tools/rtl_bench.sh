#!/usr/bin/env bash
# The cost of RTL in the loop (opt-in; docs/rtl.md, "Measured costs"). Incast for 20 ms with
# 1000-byte payloads, every switch port's scheduler the C++ strict-dwrr or the Verilated
# strict-dwrr-rtl, the two alternating (RTL_BENCH_RUNS pairs, default 5) so that both see the same
# host load; prints each run's packet-hops per wall second, the medians and their ratio. Then,
# with RTL_BENCH_CALLGRIND=1, instructions per packet-hop of each (callgrind, 2 ms), and the
# per-call cost of the block against the C++ policy (rtl_tests' RtlEgressSched.DISABLED_PerCallCost).
#   usage: tools/rtl_bench.sh build/platforms/sluice build/tests/rtl_tests
set -euo pipefail
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
sluice="$1"
rtl_tests="${2:-}"
scenario="$root/scenarios/incast.yaml"
out="${TMPDIR:-/tmp}/sluice-rtl-bench-$$"
python="$root/.venv/bin/python"
[ -x "$python" ] || python=python3
rows=()
for run in $(seq 1 "${RTL_BENCH_RUNS:-5}"); do
  for sched in strict-dwrr strict-dwrr-rtl; do
    "$sluice" run "$scenario" --until 20ms --set '*.mtu=1000B' --set "sw*.port*.scheduler=$sched" -q --out "$out"
    rows+=("$sched $("$python" -c 'import json,sys; t=json.load(open(sys.argv[1]))["totals"]; print(t["packet_hops"], t["wall_time_s"])' "$out/summary.json")")
  done
done
printf '%s\n' "${rows[@]}" | "$python" -c '
import statistics, sys
rates = {}
for line in sys.stdin:
    sched, hops, wall = line.split()
    rate = int(hops) / float(wall)
    rates.setdefault(sched, []).append(rate)
    print(f"{sched:16} {hops} packet-hops in {float(wall):.3f} s = {rate / 1e6:.3f} M packet-hops/s")
cpp, rtl = statistics.median(rates["strict-dwrr"]), statistics.median(rates["strict-dwrr-rtl"])
print(f"median: C++ {cpp / 1e6:.3f} M/s, RTL {rtl / 1e6:.3f} M/s, RTL / C++ = {rtl / cpp:.3f}")
'
if [ "${RTL_BENCH_CALLGRIND:-0}" = 1 ]; then
  for sched in strict-dwrr strict-dwrr-rtl; do
    valgrind --tool=callgrind --callgrind-out-file="$out.cg" "$sluice" run "$scenario" --until 2ms \
      --set '*.mtu=1000B' --set "sw*.port*.scheduler=$sched" -q --out "$out" 2>/dev/null
    instr=$(callgrind_annotate "$out.cg" 2>/dev/null | grep "PROGRAM TOTALS" | awk '{gsub(",", "", $1); print $1}')
    hops=$("$python" -c 'import json,sys; print(json.load(open(sys.argv[1]))["totals"]["packet_hops"])' "$out/summary.json")
    echo "$sched callgrind, 2 ms: $instr instructions, $hops packet-hops, $((instr / hops)) instructions per packet-hop"
  done
  rm -f "$out.cg"
fi
if [ -n "$rtl_tests" ]; then
  "$rtl_tests" --gtest_also_run_disabled_tests --gtest_filter=RtlEgressSched.DISABLED_PerCallCost | grep -E "per call|cycles"
fi
rm -rf "$out"
