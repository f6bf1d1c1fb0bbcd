#!/usr/bin/env bash
# On the GPU machine: build the CLI and the recorder (no GUI), record every example with
# `streamlab-cli record`, explain each recording, and time ResNet-50 steps with and without
# the recorder (interleaved). Results (traces, explanations, timings) go to OUT_DIR.
# Usage: scripts/gpu_record_examples.sh OUT_DIR
set -uo pipefail
out=${1:?usage: gpu_record_examples.sh OUT_DIR}
mkdir -p "$out/rec"
build=${BUILD_DIR:-/tmp/streamlab-build}
deps=()
[ -d .deps ] && deps=(-DSTREAMLAB_DEPS_DIR="$PWD/.deps")
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
cmake -S . -B "$build" -G Ninja -DSTREAMLAB_TESTS=OFF -DSTREAMLAB_GUI=OFF "${deps[@]}" \
  -DCMAKE_CUDA_ARCHITECTURES=90 >"$out/cmake.log" 2>&1
cmake --build "$build" -j "$(nproc)" --target streamlab-cli streamlab_example_legacy_stall >>"$out/cmake.log" 2>&1 || { tail -30 "$out/cmake.log"; exit 1; }
cli="$build/app/cli/streamlab-cli"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$out/gpu.txt"
for ex in "$@"; do :; done
for ex in event_chain wait_stream_before_work default_plus_side_stream one_tensor_two_streams pageable_vs_pinned \
          sync_scopes record_stream fan_out_fan_in launch_bound crash_midway; do
  "$cli" record --out "$out/rec/$ex.json" -- python3 "examples/pytorch/$ex.py" >"$out/rec/$ex.log" 2>&1
  echo "$ex: record exit $?" >>"$out/summary.txt"
  "$cli" explain "$out/rec/$ex.json" >"$out/rec/$ex.explain.txt" 2>&1
done
"$cli" record --out "$out/rec/legacy_stall.json" -- "$build/examples/cuda/legacy_stall" >"$out/rec/legacy_stall.log" 2>&1
echo "legacy_stall: record exit $?" >>"$out/summary.txt"
"$cli" explain "$out/rec/legacy_stall.json" >"$out/rec/legacy_stall.explain.txt" 2>&1
"$cli" record --out "$out/rec/nothing.json" -- python3 -c "print('no cuda')" >>"$out/summary.txt" 2>&1
echo "no-cuda program: record exit $?" >>"$out/summary.txt"
# Overhead on a training step: plain and recorded runs interleaved, 20 steps each.
for i in 1 2 3; do
  STREAMLAB_STEPS=20 python3 examples/pytorch/resnet50_amp.py 2>&1 | tail -1 | sed "s/^/plain $i: /" >>"$out/summary.txt"
  STREAMLAB_STEPS=20 "$cli" record --out "$out/rec/resnet50_amp.$i.json" -- python3 examples/pytorch/resnet50_amp.py 2>&1 | grep -v "^streamlab" | tail -1 | sed "s/^/recorded $i: /" >>"$out/summary.txt"
done
cat "$out/summary.txt"
tar czf "$out/rec.tgz" -C "$out" rec summary.txt gpu.txt && rm -rf "$out/rec"
