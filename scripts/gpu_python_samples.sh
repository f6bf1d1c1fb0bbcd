#!/usr/bin/env bash
# On the GPU machine: the recorder's sampling of the main thread's Python stack outside CUDA
# (kernels/recorder/python_sampler.h). Records training_loop.py with no DataLoader workers (the
# host makes each batch itself, between CUDA calls) with the sampler on (its default) and off,
# keeps both raw logs (the fixture tests/fixtures/recorded/training_loop_sampled.raw.jsonl is the
# first), explains both, and runs bench/python_stack_cost.sh on that program for what sampling
# costs its step.
# Usage: scripts/gpu_python_samples.sh OUT_DIR CLI [ROUNDS]
set -uo pipefail
out=${1:?usage: gpu_python_samples.sh OUT_DIR CLI [ROUNDS]}
cli=${2:?usage: gpu_python_samples.sh OUT_DIR CLI [ROUNDS]}
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
for mode in sampled unsampled; do
  us=1000
  [ "$mode" = unsampled ] && us=0
  STREAMLAB_STEPS=2 STREAMLAB_RECORD_SAMPLE_US=$us "$cli" record --raw-dir "$out/raw_$mode" --out "$out/$mode.json" -- \
    python3 examples/pytorch/training_loop.py --workers 0 --layers 1 --batch 32 --log-every 10 >"$out/$mode.log" 2>&1
  echo "$mode: record exit $?" >>"$out/summary.txt"
  "$cli" explain "$out/raw_$mode"/raw.*.jsonl --lang en >"$out/$mode.explain.txt" 2>&1
  grep -h '"t":"python_samples"' "$out/raw_$mode"/raw.*.jsonl >>"$out/summary.txt"
done
bash bench/python_stack_cost.sh "$cli" "${3:-2}" training_loop >"$out/cost.txt" 2>&1
