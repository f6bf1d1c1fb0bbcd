#!/usr/bin/env bash
# On the GPU machine: build the CLI (no GUI), verify every lab on the GPU, and capture a
# real-GPU trace of every variant of the labs named (all labs if none) into $OUT/fixtures.
# Usage: scripts/gpu_capture.sh OUT_DIR [LAB...]
set -euo pipefail
out=${1:?usage: gpu_capture.sh OUT_DIR [LAB...]}; shift
mkdir -p "$out/fixtures"
. "$(dirname "$0")/gpu_build.sh"
gpu_build "$out" all
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$out/gpu.txt" || true
"$cli" verify --all --backend cuda >"$out/verify.txt" 2>&1 || true
capture_variants "$out" "$@"
