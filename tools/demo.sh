#!/usr/bin/env bash
# Installs, builds, runs the default scenario (pcn-basic: the PFC congestion tree of the PCN
# paper), prints the summary and writes plots to out/pcn-basic/.
set -euo pipefail
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1  # keep the SystemC banner out of builds, tests and reports
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/tools/setup.sh"
scenario="${1:-$root/scenarios/pcn-basic.yaml}"
out="$root/out/$(basename "$scenario" .yaml)"
"$root/build/platforms/sluice" run "$scenario" --out "$out"
"$root/.venv/bin/python" "$root/tools/plot_run.py" "$out"
