#!/usr/bin/env bash
# On the GPU machine: build the CLI and the recorder (no GUI), record every example with
# `streamlab-cli record`, write a torch.profiler (Kineto) trace of each, explain both, and
# measure what recording costs a ResNet-50 step (bench/record_overhead.sh).
# Results (recordings, Kineto traces, explanations, timings) go to OUT_DIR/rec.tgz.
# Usage: scripts/gpu_record_examples.sh OUT_DIR [ROUNDS]
set -uo pipefail
out=${1:?usage: gpu_record_examples.sh OUT_DIR [ROUNDS]}
rounds=${2:-3}
mkdir -p "$out/rec" "$out/kineto"
. "$(dirname "$0")/gpu_build.sh"
gpu_build "$out" streamlab_example_legacy_stall streamlab_example_graph_by_hand streamlab_example_graph_exec_update || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$out/gpu.txt"
python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda)" >>"$out/gpu.txt" 2>&1
for ex in event_chain wait_stream_before_work default_plus_side_stream one_tensor_two_streams pageable_vs_pinned \
          sync_scopes record_stream fan_out_fan_in prefetch_overlap graph_replay launch_bound crash_midway nvtx_ranges; do
  "$cli" record --out "$out/rec/$ex.json" -- python3 "examples/pytorch/$ex.py" >"$out/rec/$ex.log" 2>&1
  echo "$ex: record exit $?" >>"$out/summary.txt"
  "$cli" explain "$out/rec/$ex.json" >"$out/rec/$ex.explain.txt" 2>&1
  STREAMLAB_KINETO_OUT="$out/kineto/$ex.json" python3 "examples/pytorch/$ex.py" >"$out/kineto/$ex.log" 2>&1
  echo "$ex: kineto exit $?" >>"$out/summary.txt"
  "$cli" explain "$out/kineto/$ex.json" >"$out/kineto/$ex.explain.txt" 2>&1
done
# The hazard record_stream prevents (a possible race at x's reused address).
"$cli" record --out "$out/rec/record_stream_without.json" -- python3 examples/pytorch/record_stream.py \
  --without-record-stream >"$out/rec/record_stream_without.log" 2>&1
"$cli" explain "$out/rec/record_stream_without.json" >"$out/rec/record_stream_without.explain.txt" 2>&1
for without in wait record-stream; do
  "$cli" record --out "$out/rec/prefetch_overlap_without_${without//-/_}.json" -- python3 examples/pytorch/prefetch_overlap.py \
    "--without-$without" >"$out/rec/prefetch_overlap_without_${without//-/_}.log" 2>&1
done
# A CUDA graph's replay read while it still runs (the replayed nodes' captured addresses).
"$cli" record --out "$out/rec/graph_replay_without_wait.json" -- python3 examples/pytorch/graph_replay.py \
  --without-wait >"$out/rec/graph_replay_without_wait.log" 2>&1
"$cli" explain "$out/rec/graph_replay_without_wait.json" >"$out/rec/graph_replay_without_wait.explain.txt" 2>&1
# The same with the replays alone in a profiler range: the graph is captured before the range.
for without in "" --without-wait; do
  name=graph_replay_range${without:+_without_wait}
  "$cli" record --capture-range cudaProfilerApi --out "$out/rec/$name.json" -- python3 examples/pytorch/graph_replay.py \
    --range $without >"$out/rec/$name.log" 2>&1
done
# torch.compile: eagerly, compiled, and compiled with CUDA graph trees (mode="reduce-overhead"),
# the timed steps in a profiler range (the compilation and the graph's capture come before it).
for mode in eager default reduce-overhead; do
  name=compiled_step_${mode//-/_}
  "$cli" record --capture-range cudaProfilerApi --out "$out/rec/$name.json" -- python3 examples/pytorch/compiled_step.py \
    --mode $mode >"$out/rec/$name.log" 2>&1
  echo "$name: record exit $?" >>"$out/summary.txt"
  "$cli" explain "$out/rec/$name.json" >"$out/rec/$name.explain.txt" 2>&1
done
STREAMLAB_KINETO_OUT="$out/kineto/compiled_step_reduce_overhead.json" python3 examples/pytorch/compiled_step.py \
  >"$out/kineto/compiled_step_reduce_overhead.log" 2>&1
# PyTorch's other allocators: expandable segments (cuMemMap) and cudaMallocAsync (stream-ordered reuse).
PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True "$cli" record --out "$out/rec/one_tensor_two_streams_expandable.json" \
  -- python3 examples/pytorch/one_tensor_two_streams.py >"$out/rec/one_tensor_two_streams_expandable.log" 2>&1
for without in "" --without-record-stream; do
  name=record_stream${without:+_without}_async
  PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync "$cli" record --out "$out/rec/$name.json" \
    -- python3 examples/pytorch/record_stream.py $without >"$out/rec/$name.log" 2>&1
  "$cli" explain "$out/rec/$name.json" >"$out/rec/$name.explain.txt" 2>&1
done
"$cli" record --out "$out/rec/legacy_stall.json" -- "$build/examples/cuda/legacy_stall" >"$out/rec/legacy_stall.log" 2>&1
echo "legacy_stall: record exit $?" >>"$out/summary.txt"
"$cli" explain "$out/rec/legacy_stall.json" >"$out/rec/legacy_stall.explain.txt" 2>&1
# A CUDA graph built node by node (cudaGraphAdd*Node), with and without the upload's edge,
# recorded whole and with only its replays in a capture range (built before it).
for without in "" --missing-edge; do
  name=graph_by_hand${without:+_missing_edge}
  "$cli" record --out "$out/rec/$name.json" -- "$build/examples/cuda/graph_by_hand" $without >"$out/rec/$name.log" 2>&1
  echo "$name: record exit $?" >>"$out/summary.txt"
  "$cli" explain "$out/rec/$name.json" >"$out/rec/$name.explain.txt" 2>&1
  name=graph_by_hand_range${without:+_missing_edge}
  "$cli" record --capture-range cudaProfilerApi --out "$out/rec/$name.json" -- "$build/examples/cuda/graph_by_hand" \
    --range $without >"$out/rec/$name.log" 2>&1
done
# Two instances of that graph side by side, the second pointed at its own buffers with
# cudaGraphExec*SetParams (--forget-node: one node left on the first's buffers).
for forget in "" --forget-node; do
  name=graph_by_hand_second${forget:+_forget}
  "$cli" record --raw-dir "$out/raw/$name" --out "$out/rec/$name.json" -- "$build/examples/cuda/graph_by_hand" \
    --second-instance $forget >"$out/rec/$name.log" 2>&1
  echo "$name: record exit $?" >>"$out/summary.txt"
done
# One step captured again each step and the instance updated with it (cudaGraphExecUpdate);
# --shared-output: the second buffer set's two branches write one buffer.
for shared in "" --shared-output; do
  name=graph_exec_update${shared:+_shared}
  "$cli" record --raw-dir "$out/raw/$name" --out "$out/rec/$name.json" -- "$build/examples/cuda/graph_exec_update" \
    $shared >"$out/rec/$name.log" 2>&1
  echo "$name: record exit $?" >>"$out/summary.txt"
  "$cli" explain "$out/rec/$name.json" >"$out/rec/$name.explain.txt" 2>&1
done
# GradScaler.step's read of found_inf, and none with AdamW(fused=True); with Python frames.
for fused in "" --fused; do
  name=grad_scaler_step${fused:+_fused}
  "$cli" record --out "$out/rec/$name.json" -- python3 examples/pytorch/grad_scaler_step.py $fused >"$out/rec/$name.log" 2>&1
  echo "$name: record exit $?" >>"$out/summary.txt"
  "$cli" explain "$out/rec/$name.json" >"$out/rec/$name.explain.txt" 2>&1
done
for fused in "" --fused; do
  name=grad_scaler_step${fused:+_fused}_stack
  STREAMLAB_KINETO_STACK=1 STREAMLAB_KINETO_OUT="$out/kineto/$name.json" \
    python3 examples/pytorch/grad_scaler_step.py $fused >"$out/kineto/$name.log" 2>&1
done
# x[x > 0] reads the count of selected elements back each step; torch.where keeps the shape.
for where in "" --where; do
  name=data_dependent_shape${where:+_where}
  "$cli" record --out "$out/rec/$name.json" -- python3 examples/pytorch/data_dependent_shape.py $where >"$out/rec/$name.log" 2>&1
  echo "$name: record exit $?" >>"$out/summary.txt"
done
for where in "" --where; do
  name=data_dependent_shape${where:+_where}_stack
  STREAMLAB_KINETO_STACK=1 STREAMLAB_KINETO_OUT="$out/kineto/$name.json" \
    python3 examples/pytorch/data_dependent_shape.py $where >"$out/kineto/$name.log" 2>&1
done
# A training loop whose host makes every batch (--workers 0), small enough for a fixture: its
# profiler range recorded with every PyTorch op as an NVTX range (emit_nvtx).
STREAMLAB_STEPS=2 STREAMLAB_PROFILER_RANGE=1 STREAMLAB_EMIT_NVTX=1 "$cli" record --capture-range cudaProfilerApi \
  --out "$out/rec/training_loop_nvtx.json" -- python3 examples/pytorch/training_loop.py --workers 0 --layers 1 \
  --batch 32 --log-every 10 >"$out/rec/training_loop_nvtx.log" 2>&1
echo "training_loop_nvtx: record exit $?" >>"$out/summary.txt"
"$cli" explain "$out/rec/training_loop_nvtx.json" >"$out/rec/training_loop_nvtx.explain.txt" 2>&1
# The same with and without workers, each step in its range "step", for `compare --per step`.
for w in 0 2; do
  STREAMLAB_STEPS=2 STREAMLAB_PROFILER_RANGE=1 STREAMLAB_EMIT_NVTX=1 "$cli" record --capture-range cudaProfilerApi \
    --out "$out/rec/training_loop_nvtx_w$w.json" -- python3 examples/pytorch/training_loop.py --workers $w --layers 1 \
    --batch 32 --log-every 10 >"$out/rec/training_loop_nvtx_w$w.log" 2>&1
done
"$cli" record --out "$out/rec/nothing.json" -- python3 -c "print('no cuda')" >>"$out/summary.txt" 2>&1
echo "no-cuda program: record exit $?" >>"$out/summary.txt"
STREAMLAB_STEPS=5 STREAMLAB_KINETO_OUT="$out/kineto/resnet50_amp.json" python3 examples/pytorch/resnet50_amp.py >"$out/kineto/resnet50_amp.log" 2>&1
STREAMLAB_STEPS=5 "$cli" record --out "$out/rec/resnet50_amp.json" -- python3 examples/pytorch/resnet50_amp.py >"$out/rec/resnet50_amp.log" 2>&1
# Overhead on a training step (bench/record_overhead.sh).
bash bench/record_overhead.sh "$cli" "$rounds" >"$out/overhead.txt" 2>&1
# The cost per CUDA call that README states, guarded (paired batches in one process).
bash bench/check_record_cost.sh "$cli" >>"$out/overhead.txt" 2>&1
echo "check_record_cost: exit $?" >>"$out/summary.txt"
# Time to explain the ResNet recordings (5 steps; 20 steps from the overhead runs).
TIMEFORMAT="%R s"
{ echo -n "explain resnet50_amp (5 steps): "; time "$cli" explain "$out/rec/resnet50_amp.json" >"$out/rec/resnet50_amp.explain.txt" 2>&1; } 2>>"$out/summary.txt"
{ echo -n "explain resnet50_amp (20 steps): "; time "$cli" explain /tmp/overhead.json >/dev/null 2>&1; } 2>>"$out/summary.txt"
{ echo -n "explain resnet50_amp torch.profiler trace (5 steps): "; time "$cli" explain "$out/kineto/resnet50_amp.json" \
  >"$out/kineto/resnet50_amp.explain.txt" 2>&1; } 2>>"$out/summary.txt"
ls -l "$out/rec/resnet50_amp.json" "$out/kineto/resnet50_amp.json" /tmp/overhead.json >>"$out/summary.txt" 2>&1
cat "$out/summary.txt" "$out/overhead.txt"
tar czf "$out/rec.tgz" -C "$out" rec kineto summary.txt overhead.txt gpu.txt && rm -rf "$out/rec" "$out/kineto"
