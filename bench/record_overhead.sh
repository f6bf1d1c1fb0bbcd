#!/usr/bin/env bash
# On the GPU machine: what recording costs. Each program runs in each configuration once per
# round, configurations interleaved so drift hits all alike. Programs (PROGRAMS=...):
#  - resnet: examples/pytorch/resnet50_amp.py, ResNet-50 (bf16 autocast, batch 64),
#    STREAMLAB_STEPS measured steps; the median step and the host's median time to issue one;
#  - launch-rate: bench/launch_rate.py, the host's time per tiny op;
#  - launch-ab: the same, recorded with --capture-range cudaProfilerApi: the middle batches are
#    recorded, and inside minus outside is the recorder's cost per op within one process;
#  - launch-pairs: the same, PAIRS (40) pairs of short batches, one in each pair recorded (every
#    cudaProfilerStart/Stop a range: STREAMLAB_RECORD_RANGE_REPEAT=1), the median difference;
#    under torch.profiler* the recorded batch of each pair runs inside torch.profiler instead;
#  - resnet-pairs: ResNet-50, PAIRS (40) pairs of steps, one in each pair recorded the same way:
#    the median of the pairs' step ratios, with the host's dispatch time and the GPU time;
#  - bert-pairs: bench/record_cost_steps.py's BERT training step (AMP, GradScaler: ~500 launches,
#    the host sets the pace), PAIRS (40) pairs of steps, one in each pair recorded the same way;
#  - resnet-ab: ResNet-50, 60 steps, steps 20..39 inside torch.cuda.profiler.start()/stop()
#    and recorded with --capture-range cudaProfilerApi: the steps inside and outside the range
#    compared within one process. Run plain, the same program is the control.
# Configurations (CONFIGS=...): plain; recorded (`streamlab-cli record`); all-runtime (every
# runtime callback); no-driver-calls; activity-only (no callbacks); calls-only (no activity);
# no-addresses (kernel arguments not read: what the race check's addresses cost);
# write-at-exit (no writer thread: the log is written at exit); writer-idle (the writer thread
# at SCHED_IDLE); empty-callbacks (subscribed as recorded, the callback returns at once:
# CUPTI's own dispatch and activity); launch-records (kernel launches from CUPTI's API activity
# records, not callbacks); no-launch-callbacks (launches not recorded at all, kernel records
# only: what a launch's callback costs); driver-launches (only the driver's launch callbacks, not
# the runtime's around them); no-python-stacks (a Python program's stacks not read);
# cupti:SPEC (recorded with CUPTI's activity attributes
# STREAMLAB_RECORD_CUPTI=SPEC, e.g. cupti:zeroed=1,per_thread=0); torch.profiler (CPU and CUDA activity); torch.profiler-cuda
# (CUDA activity only); plain@K (plain, pinned to core K with taskset). Costs are ratios to plain in the same round (or, for
# resnet-ab, inside/outside the range in one process).
# Usage: bench/record_overhead.sh CLI [ROUNDS]   (CLI = a built streamlab-cli)
set -uo pipefail
cli=${1:?usage: record_overhead.sh CLI [ROUNDS]}
rounds=${2:-3}
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1 STREAMLAB_STEPS=${STREAMLAB_STEPS:-20}
configs=${CONFIGS:-plain recorded all-runtime no-driver-calls activity-only calls-only torch.profiler}
programs=${PROGRAMS:-resnet launch-rate}
run_in() {  # CONFIG PROGRAM...: runs PROGRAM in CONFIG, prints its result lines on one line
  local config=$1
  shift
  local record=("$cli" record --out /tmp/overhead.json ${RANGE:+--capture-range "$RANGE"} --)
  case $config in
    plain) "$@" ;;
    plain@*) taskset -c "${config#plain@}" "$@" ;;  # plain, pinned to one core
    recorded) "${record[@]}" "$@" ;;
    all-runtime) STREAMLAB_RECORD_RUNTIME=all "${record[@]}" "$@" ;;
    no-driver-calls) STREAMLAB_RECORD_DRIVER=none "${record[@]}" "$@" ;;
    activity-only) STREAMLAB_RECORD_RUNTIME=none STREAMLAB_RECORD_DRIVER=none "${record[@]}" "$@" ;;
    calls-only) STREAMLAB_RECORD_ACTIVITY=0 "${record[@]}" "$@" ;;
    no-addresses) STREAMLAB_RECORD_ADDRESSES=0 "${record[@]}" "$@" ;;
    write-at-exit) STREAMLAB_RECORD_FLUSH_MS=0 "${record[@]}" "$@" ;;
    writer-idle) STREAMLAB_RECORD_WRITER_IDLE=1 "${record[@]}" "$@" ;;
    empty-callbacks) STREAMLAB_RECORD_EMPTY_CALLBACKS=1 "${record[@]}" "$@" ;;
    launch-records) STREAMLAB_RECORD_LAUNCHES=records "${record[@]}" "$@" ;;
    no-launch-callbacks) STREAMLAB_RECORD_LAUNCHES=none "${record[@]}" "$@" ;;
    driver-launches) STREAMLAB_RECORD_LAUNCHES=driver "${record[@]}" "$@" ;;
    no-python-stacks) STREAMLAB_RECORD_PYTHON=0 "${record[@]}" "$@" ;;
    cupti:*) STREAMLAB_RECORD_CUPTI=${config#cupti:} "${record[@]}" "$@" ;;
    torch.profiler) STREAMLAB_KINETO_OUT=/tmp/overhead.kineto.json "$@" ;;
    torch.profiler-cuda) STREAMLAB_KINETO_CUDA_ONLY=1 STREAMLAB_KINETO_OUT=/tmp/overhead.kineto.json "$@" ;;
    *) echo "unknown configuration $config" >&2; return 2 ;;
  esac 2>&1 | grep -E "^(resnet50|launch rate|capture range|step pairs|streamlab record: [0-9]+ API)" | tr '\n' ' '
}
for i in $(seq "$rounds"); do
  for c in $configs; do
    for p in $programs; do
      case $p in
        resnet) echo "round $i $c: $(run_in "$c" python3 examples/pytorch/resnet50_amp.py)" ;;
        launch-rate) echo "round $i $c: $(run_in "$c" python3 bench/launch_rate.py)" ;;
        launch-pairs) echo "round $i $c (pairs): $(STREAMLAB_AB_PAIRS=${PAIRS:-40} STREAMLAB_RECORD_RANGE_REPEAT=1 \
          RANGE=cudaProfilerApi run_in "$c" python3 bench/launch_rate.py)" ;;
        resnet-pairs) echo "round $i $c (pairs): $(STREAMLAB_AB_STEPS=${PAIRS:-40} STREAMLAB_RECORD_RANGE_REPEAT=1 \
          RANGE=cudaProfilerApi run_in "$c" python3 examples/pytorch/resnet50_amp.py)" ;;
        bert-pairs) echo "round $i $c (pairs): $(STREAMLAB_AB_STEPS=${PAIRS:-40} STREAMLAB_RECORD_RANGE_REPEAT=1 \
          RANGE=cudaProfilerApi run_in "$c" python3 bench/record_cost_steps.py bert)" ;;
        launch-ab) echo "round $i $c (range): $(RANGE=cudaProfilerApi run_in "$c" python3 bench/launch_rate.py)" ;;
        resnet-ab) echo "round $i $c (range): $(STREAMLAB_STEPS=60 STREAMLAB_CAPTURE_STEPS=20:40 RANGE=cudaProfilerApi \
          run_in "$c" python3 examples/pytorch/resnet50_amp.py)" ;;
      esac
    done
  done
done
