#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) and fuzzes each input format for
# N seconds (default 60), starting from the seed corpus in tests/fuzz/corpus/, one fuzzer a core
# at a time (STREAMLAB_FUZZ_JOBS to choose).
#   scripts/fuzz.sh [seconds]
# Exits non-zero if any target finds a crash; the reproducer is left in build-fuzz/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
build=${STREAMLAB_FUZZ_BUILD_DIR:-build-fuzz}
targets=(scenario trace profile recording kineto json)
# A folder that is already a fuzzing build (CI's sanitizer build, scripts/setup.sh test) is
# reused as configured; otherwise it is configured as the engine and the fuzz targets only.
if ! grep -q '^STREAMLAB_FUZZ:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
  CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DSTREAMLAB_FUZZ=ON -DSTREAMLAB_CUDA=OFF \
    -DSTREAMLAB_GUI=OFF -DSTREAMLAB_TESTS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" >/dev/null
fi
cmake --build "$build" -j "$(nproc)" --target "${targets[@]/#/fuzz_}"
# One fuzzer a core (each is single-threaded): the same seconds for each format, sooner.
jobs=${STREAMLAB_FUZZ_JOBS:-$(nproc)}
fuzz_one() {  # TARGET: fuzz it, keep its log; exit 1 on a crash, sanitizer report or uncaught exception
  local target=$1 corpus="$build/corpus-$1"
  mkdir -p "$corpus"
  cp -n tests/fuzz/corpus/$target/* "$corpus"/ 2>/dev/null || true
  # -error_exitcode: a crash, sanitizer report or uncaught exception fails the run.
  (cd "$build" && ./tests/fuzz/fuzz_$target -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -max_len=65536 -print_final_stats=1 -error_exitcode=1 "corpus-$target" >"fuzz_$target.log" 2>&1) || return 1
  ! grep -q "runtime error" "$build/fuzz_$target.log"
}
export -f fuzz_one
export build seconds
status=0
printf '%s\n' "${targets[@]}" |
  xargs -P "$jobs" -I{} bash -c 'fuzz_one {} || { echo "fuzz_{}: FAILED"; exit 1; }' || status=1
for target in "${targets[@]}"; do
  echo "== fuzz_$target for ${seconds}s"
  grep -E "^stat::number_of_executed_units|^stat::new_units_added|ERROR|SUMMARY|runtime error" "$build/fuzz_$target.log" || true
done
exit $status
