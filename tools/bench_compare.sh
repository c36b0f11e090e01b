#!/usr/bin/env bash
# Compares two builds on one scenario (opt-in, not part of the test suite):
#   tools/bench_compare.sh SLUICE_A SLUICE_B [SCENARIO] [ROUNDS]
# Each round starts both builds at the same moment, one per core, so that the host's load
# (other tenants' use of the shared cache and memory) falls on both alike; half of the rounds
# start A first and half B first, since the order alone moves a run by up to +-30 % here.
# Prints each pair's packet-hops per wall second and the geometric mean of A/B over all rounds.
set -euo pipefail
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
a="$1"
b="$2"
scenario="${3:-$(dirname "$0")/../scenarios/bench-leaf-spine-1024.yaml}"
rounds="${4:-8}"
work="${TMPDIR:-/tmp}/sluice-compare-$$"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
rate() {  # packet-hops per wall second of the simulation proper, from a run's summary
  python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["totals"]; print(t["packet_hops"] / t["wall_time_s"])' "$1/summary.json"
}
for round in $(seq 1 "$rounds"); do
  if [ $((round % 2)) = 1 ]; then first="$a" second="$b"; else first="$b" second="$a"; fi
  "$first" run "$scenario" -q --out "$work/first" >/dev/null &
  "$second" run "$scenario" -q --out "$work/second" >/dev/null &
  wait
  if [ "$first" = "$a" ]; then ra=$(rate "$work/first") rb=$(rate "$work/second"); else ra=$(rate "$work/second") rb=$(rate "$work/first"); fi
  echo "$round $ra $rb"
done | python3 -c '
import math, sys
logs = []
for line in sys.stdin:
    r, ra, rb = line.split()
    ra, rb = float(ra), float(rb)
    logs.append(math.log(ra / rb))
    print(f"round {r}: A {ra / 1e6:.3f} M/s, B {rb / 1e6:.3f} M/s, A/B {ra / rb:.2f}")
print(f"A/B geometric mean over {len(logs)} rounds: {math.exp(sum(logs) / len(logs)):.3f}")
'
