#!/usr/bin/env bash
# On a machine with four GPUs (nvidia-h200-x4 or nvidia-h100-x4): the NCCL labs' 4-GPU
# variants run with CUDA and as PyTorch programs (torchrun, a process per GPU), the simulator
# against the CUDA traces, and every lab verified on the GPUs. Everything lands in
# OUT_DIR/results.tgz (the device tool returns few files), with the summaries printed.
# Usage: scripts/gpu_four.sh OUT_DIR
set -uo pipefail
out=${1:?usage: gpu_four.sh OUT_DIR}
work=$(mktemp -d)
mkdir -p "$work/fixtures" "$work/torch"
. "$(dirname "$0")/gpu_build.sh"
gpu_build "$work" sim_fidelity || exit 1
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader >"$work/gpu.txt" 2>&1
nvidia-smi topo -m >"$work/topo.txt" 2>&1
profile=h200
grep -q H100 "$work/gpu.txt" && profile=h100
for lv in w3-comm-compute-overlap:overlapped-4gpu w3-comm-compute-overlap:serial-4gpu w3-straggler:straggler-4gpu; do
  lab=${lv%%:*} v=${lv#*:}
  "$cli" run "$lab" --variant "$v" --backend cuda --quiet --out "$work/fixtures/$lab.$v.json" >>"$work/capture.log" 2>&1 ||
    echo "capture failed: $lab $v" >>"$work/capture.log"
done
"$build/bench/sim_fidelity" "$work/fixtures" --profile "$profile" >"$work/fidelity.txt" 2>&1
timeout 240 "$cli" verify --backend torch w3-comm-compute-overlap w3-straggler --out-dir "$work/torch" >"$work/verify-torch.txt" 2>&1
echo "exit $?" >>"$work/verify-torch.txt"
timeout 240 "$cli" verify --all --backend cuda >"$work/verify-cuda.txt" 2>&1
echo "exit $?" >>"$work/verify-cuda.txt"
cat "$work/gpu.txt"
tail -3 "$work/fidelity.txt" "$work/verify-torch.txt" "$work/verify-cuda.txt"
tar czf "$out/results.tgz" -C "$work" .
