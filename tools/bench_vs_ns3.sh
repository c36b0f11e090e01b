#!/usr/bin/env bash
# Sluice against ns-3 on the incast (opt-in, not part of the test suite; docs/performance.md,
# "Against ns-3"). Builds the ns-3 anchor tools/anchors/ns3_incast.cpp with the system's ns-3
# (Debian 12: apt-get install libns3-dev; not part of tools/setup.sh) and runs it and the incast
# benchmark's Sluice command (tools/bench.sh) alternately, RUNS rounds (default 5), the first of
# the two swapped each round so that the order falls on both alike. Prints each run's packet-hops
# per wall second (the simulation proper in both), the medians, the ranges and the ratio of the
# medians.
#   usage: tools/bench_vs_ns3.sh SLUICE [RUNS]
#   NS3_ARGS: the anchor's options (e.g. --senderRate=2.5Gbps); NS3_ANCHOR_DIR: where it is built
#   (default build/anchors).
set -euo pipefail
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
sluice="${1:?usage: tools/bench_vs_ns3.sh SLUICE [RUNS]}"
runs="${2:-5}"
modules=(ns3-point-to-point ns3-internet ns3-applications ns3-traffic-control ns3-network ns3-core)
if ! pkg-config --exists "${modules[@]}" 2>/dev/null; then
  echo "bench_vs_ns3: ns-3 not found (pkg-config ${modules[*]}): install it with apt-get install libns3-dev" >&2
  exit 1
fi
source="$root/tools/anchors/ns3_incast.cpp"
anchor="${NS3_ANCHOR_DIR:-$root/build/anchors}/ns3_incast"
if [ ! -x "$anchor" ] || [ "$source" -nt "$anchor" ]; then
  mkdir -p "$(dirname "$anchor")"
  # Only -l/-L: Debian's .pc files also name libgsl.so and libsqlite3.so of -dev packages that the
  # ns-3 libraries, linked to them already, do not need, and a broken "-I/usr\;".
  libs=$(pkg-config --libs "${modules[@]}" | tr ' ' '\n' | grep -E '^-[lL]' | awk '!seen[$0]++' | tr '\n' ' ')
  g++ -O2 -std=c++17 "$source" -o "$anchor" $libs
fi
out="${TMPDIR:-/tmp}/sluice-vs-ns3-$$"
trap 'rm -rf "$out"' EXIT
run_sluice() {
  "$sluice" run "$root/scenarios/incast.yaml" --until 20ms --set '*.mtu=1000B' -q --out "$out"
  python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["totals"]; print("sluice", t["packet_hops"], t["wall_time_s"])' \
    "$out/summary.json"
}
run_ns3() {
  # The heap on huge pages as the sluice CLI runs its own (platforms/huge_pages.h), unless the
  # caller chose GLIBC_TUNABLES for both.
  # shellcheck disable=SC2086  # NS3_ARGS is a list of options
  GLIBC_TUNABLES="${GLIBC_TUNABLES:-glibc.malloc.hugetlb=1}" "$anchor" ${NS3_ARGS:-} | awk '$1 == "packet_hops" { print "ns-3", $2, $4 }'
}
for round in $(seq 1 "$runs"); do
  if [ $((round % 2)) = 1 ]; then run_sluice; run_ns3; else run_ns3; run_sluice; fi
done | python3 -c '
import statistics, sys
rates = {"sluice": [], "ns-3": []}
for line in sys.stdin:
    who, hops, wall = line.split()
    rate = int(hops) / float(wall)
    rates[who].append(rate)
    print(f"{who} run {len(rates[who])}: {hops} packet-hops in {float(wall):.3f} s = {rate / 1e6:.3f} M packet-hops/s")
for who, r in rates.items():
    print(f"{who}: median {statistics.median(r) / 1e6:.3f} M packet-hops/s, range {min(r) / 1e6:.3f}-{max(r) / 1e6:.3f} M/s")
ours, theirs = (statistics.median(r) for r in rates.values())
print(f"sluice / ns-3, ratio of the medians: {ours / theirs:.1f}x")
'
