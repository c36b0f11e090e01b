#!/usr/bin/env bash
# Installs, builds and runs the whole default test suite (each test in its own process).
set -euo pipefail
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1  # keep the SystemC banner out of builds, tests and reports
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/tools/setup.sh"
cd "$root/build"
ctest -j2 --output-on-failure --timeout 600
