#!/usr/bin/env bash
# The plain C++ build, without the RTL blocks, keeps working (docs/rtl.md, "Building"): the test
# Build.PlainTreeWithoutVerilator runs it. A whole second build takes minutes, so it checks what
# the option changes, in about 15 s:
#   1. the source configures with -DSLUICE_WITH_VERILATOR=OFF (into WORK, a scratch directory);
#   2. that configuration has no RTL target (sluice_rtl, rtl_tests, rtl_sc_gated, rtl-vectors,
#      rtl-bench, rtl-equivalence) and no Rtl* test;
#   3. no source outside models/rtl and tests/rtl includes a header of models/rtl, so every other
#      translation unit is the same with the option off;
#   4. each source that reads the option (#ifdef SLUICE_WITH_VERILATOR) compiles in that
#      configuration (its object file only: the #else branch).
# usage: tools/plain_build_check.sh SOURCE_DIR WORK_DIR [cmake options...]
set -euo pipefail
src="$(cd "$1" && pwd)"
work="$2"
shift 2
fail() {
  echo "plain build: $*" >&2
  exit 1
}

rm -rf "$work"
cmake -S "$src" -B "$work" -G "Unix Makefiles" -DSLUICE_WITH_VERILATOR=OFF "$@" >"$work.configure.log" 2>&1 ||
  fail "configure failed (log: $work.configure.log)"
grep -q '^SLUICE_WITH_VERILATOR:BOOL=OFF$' "$work/CMakeCache.txt" || fail "SLUICE_WITH_VERILATOR is not OFF"

targets="$(cmake --build "$work" --target help)"
for t in sluice_rtl rtl_tests rtl_sc_gated rtl-vectors rtl-bench rtl-equivalence; do
  if grep -qw -- "$t" <<<"$targets"; then fail "target $t exists without Verilator"; fi
done
grep -qw sluice <<<"$targets" || fail "no target sluice"
if (cd "$work" && ctest -N) | grep -qE ' Rtl[A-Za-z]*\.'; then fail "Rtl* tests are listed without Verilator"; fi

cd "$src"
sources="$(find models platforms tests bindings firmware -name '*.cpp' -o -name '*.h' -o -name '*.c')"
outside="$(grep -l '#include "models/rtl/' $sources | grep -v -e '^models/rtl/' -e '^tests/rtl/' || true)"
[ -z "$outside" ] || fail "outside the RTL layer, these include models/rtl: $outside"

readers="$(grep -l '^#if.*SLUICE_WITH_VERILATOR' $(grep '\.cpp$' <<<"$sources") || true)"
for f in $readers; do
  dir="$(dirname "$f")"
  until [ -f "$work/$dir/Makefile" ] && [ "$dir" != . ]; do dir="$(dirname "$dir")"; done
  object="${f#"$dir"/}"
  make -s -C "$work/$dir" "${object%.cpp}.o" >"$work.compile.log" 2>&1 ||
    fail "$f does not compile without Verilator (log: $work.compile.log)"
  echo "compiled without Verilator: $f"
done
echo "plain build: configures without the RTL targets; the $(wc -w <<<"$readers") source(s) reading the option compile"
