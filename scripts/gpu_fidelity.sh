#!/usr/bin/env bash
# On the GPU machine: calibrate the simulator's profile for this GPU, capture every lab
# variant on the GPU, and compare the simulator (with the fresh profile, and with the
# built-in one) against those traces variant by variant. Also checks every exercise's
# reference solution on the GPU.
# Out of sample: run it on two machine starts and compare one start's captures with the
# other's profile (docs/evidence/simulator-fidelity.md).
# Usage: scripts/gpu_fidelity.sh OUT_DIR     (writes profile.json, fidelity*.txt, fixtures.tgz)
set -euo pipefail
out=${1:?usage: gpu_fidelity.sh OUT_DIR}
. "$(dirname "$0")/gpu_build.sh"
gpu_build "$out" sim_fidelity
fidelity="$build/bench/sim_fidelity"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$out/gpu.txt" || true
start=$(date +%s%N)
"$cli" calibrate --out "$out/profile.json" --traces "$out/calibration-traces" >"$out/calibrate.txt" 2>&1
echo "calibrate took $(( ($(date +%s%N) - start) / 1000000 )) ms" >>"$out/calibrate.txt"
# Three captures: the host's speed drifts between processes, so each variant's run with the
# median GPU time is compared (sim_fidelity takes the three folders).
for r in 1 2 3; do capture_variants "$out/run$r"; done
runs=("$out/run1/fixtures" "$out/run2/fixtures" "$out/run3/fixtures")
"$fidelity" "${runs[@]}" --profile "$out/profile.json" --markdown >"$out/fidelity.txt" 2>&1 || true
"$fidelity" "${runs[@]}" >"$out/fidelity-builtin.txt" 2>&1 || true
"$cli" exercise --all --solutions tests/exercises --backend cuda --lang en >"$out/exercise.txt" 2>&1 || true
tar czf "$out/fixtures.tgz" -C "$out" run1 run2 run3 calibration-traces && rm -rf "$out"/run? "$out/calibration-traces"
tail -1 "$out/fidelity.txt" "$out/fidelity-builtin.txt" "$out/exercise.txt"
