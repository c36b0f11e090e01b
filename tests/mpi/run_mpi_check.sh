#!/usr/bin/env bash
# Runs tests/mpi/mpi_checks under mpirun and checks how the run ends (docs/parallel.md#when-a-rank-fails):
# the exit status (0 or not), a line of its output (stdout or stderr) matching PATTERN, and a wall time within SECONDS
# (ctest's TIMEOUT catches a hang; this bound is tighter). Prints what it saw and the time taken.
# With ABSENT, no line may match it.
# usage: run_mpi_check.sh MPIEXEC RANKS BINARY MODE ok|fail PATTERN SECONDS [ABSENT]
set -uo pipefail
mpiexec="$1" ranks="$2" binary="$3" mode="$4" expect="$5" pattern="$6" limit="$7" absent="${8:-}"
# As root (CI containers) mpirun needs both; 3 or 4 ranks on a 2-core machine need --oversubscribe.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
# In the sanitizer build, Open MPI's own allocations at MPI_Finalize are not ours to report.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
out="$(mktemp)" err="$(mktemp)"
trap 'rm -f "$out" "$err"' EXIT
start=$(date +%s.%N)
timeout 60 "$mpiexec" -np "$ranks" "$binary" "$mode" >"$out" 2>"$err"
status=$?
elapsed=$(echo "$(date +%s.%N) - $start" | bc)
echo "mpirun -np $ranks mpi_checks $mode: exit $status after ${elapsed} s; stdout, then stderr:"
sed 's/^/  | /' "$out"
sed 's/^/  ! /' "$err"
fail() {
  echo "FAILED: $*" >&2
  exit 1
}
[ "$status" -ne 124 ] || fail "still running after 60 s (a hang)"
if [ "$expect" = ok ]; then
  [ "$status" -eq 0 ] || fail "exit status $status, expected 0"
else
  [ "$status" -ne 0 ] || fail "exit status 0, expected a failure"
fi
cat "$out" "$err" | grep -qE -- "$pattern" || fail "no line of the output matches '$pattern'"
if [ -n "$absent" ] && cat "$out" "$err" | grep -qE -- "$absent"; then fail "a line matches '$absent'"; fi
(($(echo "$elapsed <= $limit" | bc))) || fail "took ${elapsed} s, more than $limit s"
