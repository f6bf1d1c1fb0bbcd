#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) and fuzzes each input format for
# N seconds (default 60), starting from the seed corpus in tests/fuzz/corpus/.
#   scripts/fuzz.sh [seconds]
# Exits non-zero if any target finds a crash; the reproducer is left in build-fuzz/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
build=${STREAMLAB_FUZZ_BUILD_DIR:-build-fuzz}
CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DSTREAMLAB_FUZZ=ON -DSTREAMLAB_CUDA=OFF \
  -DSTREAMLAB_GUI=OFF -DSTREAMLAB_TESTS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j "$(nproc)"
status=0
for target in scenario trace profile recording kineto json; do
  corpus="$build/corpus-$target"
  mkdir -p "$corpus"
  cp -n tests/fuzz/corpus/$target/* "$corpus"/ 2>/dev/null || true
  echo "== fuzz_$target for ${seconds}s"
  # -error_exitcode: a crash, sanitizer report or uncaught exception fails the run.
  (cd "$build" && ./tests/fuzz/fuzz_$target -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -max_len=65536 -print_final_stats=1 -error_exitcode=1 "corpus-$target" >"fuzz_$target.log" 2>&1) || status=1
  grep -E "^stat::number_of_executed_units|^stat::new_units_added|ERROR|SUMMARY|runtime error" "$build/fuzz_$target.log" || true
  grep -q "runtime error" "$build/fuzz_$target.log" && status=1
done
exit $status
