#!/usr/bin/env bash
# Benchmark (opt-in, not part of the test suite): incast for 20 ms simulated with 1000-byte
# payloads; prints packet-hops per wall second and peak memory.
set -euo pipefail
sluice="$1"
scenario="$2"
for run in 1 2 3; do
  out=$( { /usr/bin/time -f 'peak_rss_kb %M' "$sluice" run "$scenario" --until 20ms --set '*.mtu=1000B' -q \
           --out "${TMPDIR:-/tmp}/sluice-bench" ; } 2>&1 >/dev/null | grep peak_rss_kb)
  python3 - "${TMPDIR:-/tmp}/sluice-bench/summary.json" "$out" "$run" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["totals"]
rss = int(sys.argv[2].split()[1])
print(f"run {sys.argv[3]}: {s['packet_hops']} packet-hops in {s['wall_time_s']:.3f} s wall = "
      f"{s['packet_hops'] / s['wall_time_s'] / 1e6:.2f} M packet-hops/s, peak memory {rss / 1024:.1f} MiB")
PY
done
