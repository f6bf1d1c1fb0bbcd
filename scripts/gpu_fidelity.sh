#!/usr/bin/env bash
# On the GPU machine: calibrate the simulator's profile for this GPU, capture every lab
# variant on the GPU, and compare the simulator (with the fresh profile, and with the
# built-in one) against those traces variant by variant. Also checks every exercise's
# reference solution on the GPU.
# Usage: scripts/gpu_fidelity.sh OUT_DIR     (writes profile.json, fidelity*.txt, fixtures.tgz)
set -euo pipefail
out=${1:?usage: gpu_fidelity.sh OUT_DIR}
. "$(dirname "$0")/gpu_build.sh"
gpu_build "$out" sim_fidelity
fidelity="$build/bench/sim_fidelity"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$out/gpu.txt" || true
start=$(date +%s%N)
"$cli" calibrate --out "$out/profile.json" >"$out/calibrate.txt" 2>&1
echo "calibrate took $(( ($(date +%s%N) - start) / 1000000 )) ms" >>"$out/calibrate.txt"
capture_variants "$out"
"$fidelity" "$out/fixtures" --profile "$out/profile.json" --markdown >"$out/fidelity.txt" 2>&1 || true
"$fidelity" "$out/fixtures" >"$out/fidelity-builtin.txt" 2>&1 || true
"$cli" exercise --all --solutions tests/exercises --backend cuda --lang en >"$out/exercise.txt" 2>&1 || true
tar czf "$out/fixtures.tgz" -C "$out" fixtures && rm -rf "$out/fixtures"
tail -1 "$out/fidelity.txt" "$out/fidelity-builtin.txt" "$out/exercise.txt"
