#!/usr/bin/env bash
# On the GPU machine: records the PyTorch examples whose findings are about host calls with
# the program's Python stacks read (kernels/recorder/python_stack.h), explains each, and runs
# bench/python_stack_cost.sh. Results go to OUT_DIR (recordings, raw logs, explanations).
# Usage: scripts/gpu_python_stacks.sh OUT_DIR [ROUNDS]
set -uo pipefail
out=${1:?usage: gpu_python_stacks.sh OUT_DIR [ROUNDS]}
mkdir -p "$out/rec" "$out/raw"
. "$(dirname "$0")/gpu_build.sh"
gpu_build "$out" streamlab_recorder || exit 1
python3 -c "import sys, torch; print(sys.version.split()[0], sys.executable, 'torch', torch.__version__)" >"$out/python.txt" 2>&1
nm -D "$(python3 -c 'import sys; print(sys.executable)')" 2>/dev/null | grep -E " T (_Py_DumpTraceback|PyGILState_GetThisThreadState|_?Py_IsFinalizing)$" >>"$out/python.txt"
record() {  # NAME ARGS...: records examples/pytorch/ARGS into NAME
  local name=$1
  shift
  "$cli" record --raw-dir "$out/raw/$name" --out "$out/rec/$name.json" -- python3 "$@" >"$out/rec/$name.log" 2>&1
  echo "$name: record exit $?" >>"$out/summary.txt"
  "$cli" explain "$out/rec/$name.json" >"$out/rec/$name.explain.txt" 2>&1
}
record grad_scaler_step examples/pytorch/grad_scaler_step.py
record grad_scaler_step_fused examples/pytorch/grad_scaler_step.py --fused
record data_dependent_shape examples/pytorch/data_dependent_shape.py
record data_dependent_shape_where examples/pytorch/data_dependent_shape.py --where
record item_every_step examples/pytorch/item_every_step.py
record pageable_vs_pinned examples/pytorch/pageable_vs_pinned.py
record sync_scopes examples/pytorch/sync_scopes.py
record crash_midway examples/pytorch/crash_midway.py
STREAMLAB_STEPS=2 record training_loop_w0 examples/pytorch/training_loop.py --workers 0 --layers 1 --batch 32 --log-every 10
STREAMLAB_STEPS=2 record training_loop_w2 examples/pytorch/training_loop.py --workers 2 --layers 1 --batch 32 --log-every 10
STREAMLAB_STEPS=5 record resnet50_amp examples/pytorch/resnet50_amp.py
bash bench/python_stack_cost.sh "$cli" "${2:-3}" >"$out/cost.txt" 2>&1
