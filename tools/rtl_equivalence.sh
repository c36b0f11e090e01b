#!/usr/bin/env bash
# Opt-in (docs/rtl.md): every shipped scenario with every switch port's scheduler the C++
# strict-dwrr, then the Verilated strict-dwrr-rtl in lockstep with its C++ reference; the two
# summaries must be identical (wall clock, provenance and the RTL's own counters left out).
# Prints one line per scenario with the RTL decisions checked, and the total.
#   usage: tools/rtl_equivalence.sh build/platforms/sluice [UNTIL]   (UNTIL: e.g. 2ms; default: each scenario's own)
set -uo pipefail
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
sluice="$1"
until="${2:+--until $2}"
out="${TMPDIR:-/tmp}/sluice-rtl-eq-$$"
python="$root/.venv/bin/python"
[ -x "$python" ] || python=python3
mkdir -p "$out"
failed=0
total=0
for scenario in "$root"/scenarios/*.yaml; do
  name=$(basename "$scenario" .yaml)
  if ! "$sluice" run "$scenario" $until -q --set '*.port*.scheduler=strict-dwrr' --out "$out/c" 2>"$out.err" ||
     ! "$sluice" run "$scenario" $until -q --set '*.port*.scheduler=strict-dwrr-rtl' \
        --set '*.port*.rtl.check=lockstep' --out "$out/r" 2>>"$out.err"; then
    echo "$name: FAILED to run: $(tail -1 "$out.err")"
    failed=1
    continue
  fi
  line=$("$python" - "$out/c/summary.json" "$out/r/summary.json" "$name" <<'PY'
import json, sys
def load(path):
    j = json.load(open(path))
    j["totals"].pop("wall_time_s", None); j["totals"].pop("elaboration_s", None); j.pop("provenance", None)
    rtl = {k: v for k, v in j["counters"].items() if ".rtl_" in k}
    j["counters"] = {k: v for k, v in j["counters"].items() if ".rtl_" not in k}
    return j, sum(v for k, v in rtl.items() if k.endswith(".rtl_decisions"))
a, _ = load(sys.argv[1]); b, decisions = load(sys.argv[2])
print(f"{'identical' if a == b else 'DIFFERENT'} {int(decisions)} {sys.argv[3]}")
PY
)
  read -r verdict decisions _ <<<"$line"
  echo "$name: $verdict summaries, $decisions RTL decisions in lockstep"
  [ "$verdict" = identical ] || failed=1
  total=$((total + decisions))
done
echo "total: $total RTL decisions in lockstep, $([ $failed = 0 ] && echo 'every summary identical' || echo 'SOME DIFFER')"
rm -rf "$out" "$out.err"
exit $failed
