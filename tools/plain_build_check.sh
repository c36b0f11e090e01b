#!/usr/bin/env bash
# The plain C++ build, without an optional part, keeps working: without the RTL blocks (docs/rtl.md,
# "Building"; the test Build.PlainTreeWithoutVerilator) or without MPI and METIS (docs/parallel.md;
# Build.PlainTreeWithoutMpi). A whole second build takes minutes, so it checks what the option
# changes, in about 15 s:
#   1. the source configures with the part's options OFF (into WORK, a scratch directory);
#   2. that configuration has none of the part's targets and tests;
#   3. no source outside the part's own files includes its headers, so every other translation
#      unit is the same with the option off;
#   4. each source that reads the option (#ifdef), and each compiled only without the part,
#      compiles in that configuration (its object file only).
# usage: tools/plain_build_check.sh [--without verilator|mpi] SOURCE_DIR WORK_DIR [cmake options...]
set -euo pipefail
part=verilator
if [ "${1:-}" = --without ]; then
  part="$2"
  shift 2
fi
src="$(cd "$1" && pwd)"
work="$2"
shift 2
fail() {
  echo "plain build: $*" >&2
  exit 1
}

case "$part" in
  verilator)
    options=(SLUICE_WITH_VERILATOR)
    targets=(sluice_rtl rtl_tests rtl_sc_gated rtl-vectors rtl-bench rtl-equivalence)
    tests=' Rtl[A-Za-z]*\.'
    headers='#include "models/rtl/'
    owners=(-e '^models/rtl/' -e '^tests/rtl/')
    option_regex='SLUICE_WITH_VERILATOR'
    only_without=()
    ;;
  mpi)
    options=(SLUICE_WITH_MPI SLUICE_WITH_METIS)
    targets=(mpi_checks)
    tests=' Mpi\.'
    headers='#include (<mpi\.h>|<metis\.h>|"platforms/mpi_session\.h")'
    owners=(-e '^platforms/mpi_session\.' -e '^platforms/partition\.cpp$')
    option_regex='SLUICE_WITH_(MPI|METIS)'
    only_without=(platforms/no_mpi.cpp)
    ;;
  *) fail "--without: '$part' is not verilator or mpi" ;;
esac

defines=()
for o in "${options[@]}"; do defines+=("-D$o=OFF"); done
rm -rf "$work"
cmake -S "$src" -B "$work" -G "Unix Makefiles" "${defines[@]}" "$@" >"$work.configure.log" 2>&1 ||
  fail "configure failed (log: $work.configure.log)"
for o in "${options[@]}"; do
  grep -q "^$o:BOOL=OFF$" "$work/CMakeCache.txt" || fail "$o is not OFF"
done

listed="$(cmake --build "$work" --target help)"
for t in "${targets[@]}"; do
  if grep -qw -- "$t" <<<"$listed"; then fail "target $t exists without $part"; fi
done
grep -qw sluice <<<"$listed" || fail "no target sluice"
if (cd "$work" && ctest -N) | grep -qE "$tests"; then fail "tests matching '$tests' are listed without $part"; fi

cd "$src"
sources="$(find models platforms tests bindings firmware -name '*.cpp' -o -name '*.h' -o -name '*.c')"
outside="$(grep -lE "$headers" $sources | grep -v "${owners[@]}" || true)"
[ -z "$outside" ] || fail "outside the $part files, these include its headers: $outside"

readers="$(grep -lE "^#if.*$option_regex" $(grep '\.cpp$' <<<"$sources") || true)"
for f in $readers "${only_without[@]}"; do
  dir="$(dirname "$f")"
  until [ -f "$work/$dir/Makefile" ] && [ "$dir" != . ]; do dir="$(dirname "$dir")"; done
  object="${f#"$dir"/}"
  make -s -C "$work/$dir" "${object%.cpp}.o" >"$work.compile.log" 2>&1 ||
    fail "$f does not compile without $part (log: $work.compile.log)"
  echo "compiled without $part: $f"
done
echo "plain build: configures without the $part targets; the $(wc -w <<<"$readers ${only_without[*]}") source(s) reading the option or made for its absence compile"
