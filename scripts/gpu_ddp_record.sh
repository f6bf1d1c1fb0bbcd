#!/usr/bin/env bash
# On a GPU machine with 2 GPUs (NPROC=4: four, a rank each): records examples/pytorch/ddp_straggler.py under torchrun, balanced
# and with rank 1 spinning 3 ms more a step, explains both, and times 20 steps plainly, recorded
# whole and recorded with --capture-range (ROUNDS each, in turn). Results go to OUT_DIR.
# Usage: scripts/gpu_ddp_record.sh OUT_DIR [ROUNDS]
set -uo pipefail
out=${1:?usage: gpu_ddp_record.sh OUT_DIR [ROUNDS]}
mkdir -p "$out/rec"
. "$(dirname "$0")/gpu_build.sh"
gpu_build "$out" streamlab_recorder || exit 1
ddp=(torchrun --nproc_per_node="${NPROC:-2}" examples/pytorch/ddp_straggler.py)
for name in balanced straggler; do
  extra=()
  [ "$name" = straggler ] && extra=(--straggler-ms 3)
  "$cli" record --capture-range cudaProfilerApi --raw-dir "$out/rec/$name" --out "$out/rec/$name.json" -- \
    "${ddp[@]}" "${extra[@]}" >"$out/rec/$name.log" 2>&1
  echo "$name: record exit $?" >>"$out/summary.txt"
  "$cli" explain "$out/rec/$name.json" >"$out/rec/$name.explain.txt" 2>&1
done
for round in $(seq "${2:-3}"); do
  for how in plain whole range; do
    run=()
    [ "$how" = whole ] && run=("$cli" record --out /tmp/ddp-whole.json --)
    [ "$how" = range ] && run=("$cli" record --capture-range cudaProfilerApi --out /tmp/ddp-range.json --)
    rm -rf /tmp/ddp-whole.json /tmp/ddp-range.json
    line=$("${run[@]}" "${ddp[@]}" --steps 20 2>&1 | grep -m1 '^rank 0 of')
    echo "round $round $how: $line" >>"$out/summary.txt"
  done
done
cat "$out/summary.txt"
