#!/usr/bin/env bash
# Builds the libFuzzer targets (clang-14, ASan + UBSan, build-fuzz/) and runs each for a bounded
# time on the committed corpus (opt-in, not part of the test suite; docs/testing.md#fuzzing).
#   tools/fuzz.sh [--time SECONDS] [--jobs N] [TARGET ...]
# --time: seconds per target (default 60); --jobs: targets run at once (default 1); TARGETs:
# fuzz_scenario, fuzz_set, fuzz_frames (default all). New inputs go to build-fuzz/corpus/TARGET,
# findings to build-fuzz/artifacts/; a crash, sanitizer report, hang (> 10 s on one input),
# leak or memory blow-up (> 2 GiB) fails the script.
#   tools/fuzz.sh --seeds     rewrites tests/fuzz/corpus/frames from the encoders
set -euo pipefail
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
seconds=60 jobs=1 seeds=0 targets=()
while (($#)); do
  case "$1" in
    --time) seconds="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --seeds) seeds=1; shift ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) targets+=("$1"); shift ;;
  esac
done
((${#targets[@]})) || targets=(fuzz_scenario fuzz_set fuzz_frames)

# The fuzzing toolchain is not part of the default install (tools/setup.sh).
bash tools/apt_install.sh clang-14 libclang-rt-14-dev

# The targets need no RTL block: leave the Verilated models out of the instrumented build.
cmake -S . -B build-fuzz -DSLUICE_FUZZ=ON -DSLUICE_WITH_VERILATOR=OFF -DSLUICE_WITH_MPI=OFF -DCMAKE_CXX_COMPILER=clang++-14 >/dev/null
echo "fuzz: building ${targets[*]} (log: build-fuzz/build.log)"
if ! cmake --build build-fuzz -j2 --target "${targets[@]}" >build-fuzz/build.log 2>&1; then
  tail -n 40 build-fuzz/build.log
  echo "fuzz: build failed" >&2
  exit 1
fi
if [ "$seeds" = 1 ]; then
  rm -f tests/fuzz/corpus/frames/*
  SLUICE_FUZZ_WRITE_SEEDS=tests/fuzz/corpus/frames build-fuzz/tests/fuzz/fuzz_frames
  ls tests/fuzz/corpus/frames
  exit 0
fi

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
mkdir -p build-fuzz/artifacts
run_one() {
  local t="$1" corpus="tests/fuzz/corpus/${1#fuzz_}"
  local extra=()
  [ -f "tests/fuzz/${1#fuzz_}.dict" ] && extra+=("-dict=tests/fuzz/${1#fuzz_}.dict")
  mkdir -p "build-fuzz/corpus/$t"
  # The first folder receives new inputs; the committed corpus is only read.
  if build-fuzz/tests/fuzz/"$t" "build-fuzz/corpus/$t" "$corpus" "${extra[@]}" -max_total_time="$seconds" \
      -timeout=10 -rss_limit_mb=2048 -max_len=16384 -print_final_stats=1 \
      -artifact_prefix="build-fuzz/artifacts/$t-" >"build-fuzz/$t.log" 2>&1; then
    echo "fuzz: $t: no finding in ${seconds} s ($(grep -o 'stat::number_of_executed_units: *[0-9]*' "build-fuzz/$t.log" | grep -o '[0-9]*$') inputs, log build-fuzz/$t.log)"
  else
    echo "fuzz: $t: FINDING (log build-fuzz/$t.log, input in build-fuzz/artifacts/)"
    grep -m5 -E 'ERROR|SUMMARY|runtime error|Test unit written' "build-fuzz/$t.log" || true
    return 1
  fi
}
export -f run_one
export seconds
printf '%s\n' "${targets[@]}" | xargs -P "$jobs" -I{} bash -c 'run_one {}'
