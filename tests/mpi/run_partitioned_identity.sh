#!/usr/bin/env bash
# A partitioned run gives the single-process run's outputs (docs/parallel.md): runs SCENARIO for
# UNTIL in one process and under mpirun -np P with --partitions P (MPIEXEC "windows": in one
# process with --window-partitions P; "threads": the same on 2 threads, --window-threads 2), then compares summary.json (apart from wall time,
# elaboration time, the host, the date and the per-process payload peak) and every CSV byte for
# byte. Prints the lookahead, windows and both wall times.
# usage: run_partitioned_identity.sh MPIEXEC SLUICE PYTHON SCENARIO UNTIL P [--set ...]
set -uo pipefail
mpiexec="$1" sluice="$2" python="$3" scenario="$4" until="$5" parts="$6"
shift 6
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
"$sluice" run "$scenario" --until "$until" -q --out "$dir/one" "$@" || { echo "FAILED: the single run" >&2; exit 1; }
if [ "$mpiexec" = windows ] || [ "$mpiexec" = threads ]; then
  threads=1
  [ "$mpiexec" = threads ] && threads=2
  timeout 300 "$sluice" run "$scenario" --until "$until" --window-partitions "$parts" --window-threads "$threads" \
    --out "$dir/parts" "$@" >"$dir/parts.txt" 2>&1
else
  timeout 300 "$mpiexec" --quiet -np "$parts" "$sluice" run "$scenario" --until "$until" --partitions "$parts" \
    --out "$dir/parts" "$@" >"$dir/parts.txt" 2>&1
fi
status=$?
grep -E "^(window )?partitions:" "$dir/parts.txt"
[ "$status" -eq 0 ] || { echo "FAILED: $parts partitions exited $status" >&2; cat "$dir/parts.txt" >&2; exit 1; }
"$python" - "$dir/one" "$dir/parts" <<'PY'
import json, os, sys
one, parts = sys.argv[1], sys.argv[2]
a, b = (json.load(open(os.path.join(d, "summary.json"))) for d in (one, parts))
for s in (a, b):
    for k in ("wall_time_s", "elaboration_s"):
        s["totals"].pop(k)
    for k in ("host", "date"):
        s["provenance"].pop(k)
    s["counters"].pop("sluice.packet_pool.allocated", None)  # a per-process peak (docs/parallel.md)
    s.pop("windows", None)  # how a windowed run ran: its plan, its threads' wall time
print("single: %d counters, %d flows, %d ports, %d packet-hops" % (
    len(a["counters"]), len(a["flows"]), len(a["ports"]), a["totals"]["packet_hops"]))
bad = [k for k in a if a[k] != b.get(k)] + [k for k in b if k not in a]
for k in bad:
    x, y = a.get(k), b.get(k)
    if isinstance(x, dict) and isinstance(y, dict):
        keys = [j for j in sorted(set(x) | set(y)) if x.get(j) != y.get(j)]
        print("summary.json %s differs in %d keys, e.g. %s" % (k, len(keys), [(j, x.get(j), y.get(j)) for j in keys[:3]]))
    else:
        print("summary.json %s differs" % k)
csvs = sorted(f for f in os.listdir(one) if f.endswith(".csv"))
for f in csvs:
    if open(os.path.join(one, f), "rb").read() != open(os.path.join(parts, f), "rb").read():
        print("%s differs" % f); bad.append(f)
if sorted(f for f in os.listdir(parts) if f.endswith(".csv")) != csvs:
    print("the CSV files differ"); bad.append("csv files")
sys.exit(1 if bad else 0)
PY
status=$?
[ "$status" -eq 0 ] && echo "identical: summary.json and $(ls "$dir/one" | grep -c csv) CSVs" || echo "FAILED: outputs differ" >&2
exit "$status"
