#!/usr/bin/env bash
# On the GPU machine: build the CLI and the recorder (no GUI), record the examples whose GPU
# idle time has a known cause (launch_bound: launching op by op; item_every_step: host syncs)
# and write their Kineto traces; explain each. Results go to OUT_DIR/idle.tgz.
# Usage: scripts/gpu_idle_examples.sh OUT_DIR [EXAMPLE...]
set -uo pipefail
out=${1:?usage: gpu_idle_examples.sh OUT_DIR [EXAMPLE...]}
shift
examples=("$@")
[ ${#examples[@]} -gt 0 ] || examples=(item_every_step launch_bound)
mkdir -p "$out/idle"
. "$(dirname "$0")/gpu_build.sh"
gpu_build "$out" analyze_scale || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$out/idle/gpu.txt"
for ex in "${examples[@]}"; do
  "$cli" record --out "$out/idle/$ex.json" -- python3 "examples/pytorch/$ex.py" >"$out/idle/$ex.log" 2>&1
  echo "$ex: record exit $?"
  "$cli" explain "$out/idle/$ex.json" --lang en >"$out/idle/$ex.explain.txt" 2>&1
  STREAMLAB_KINETO_OUT="$out/idle/$ex.kineto.json" python3 "examples/pytorch/$ex.py" >"$out/idle/$ex.kineto.log" 2>&1
  echo "$ex: kineto exit $?"
  "$cli" explain "$out/idle/$ex.kineto.json" --lang en >"$out/idle/$ex.kineto.explain.txt" 2>&1
  grep -h "GPU idle" "$out/idle/$ex.explain.txt" "$out/idle/$ex.kineto.explain.txt"
done
"$build/bench/analyze_scale" | head -3
tar czf "$out/idle.tgz" -C "$out" idle && rm -rf "$out/idle"
