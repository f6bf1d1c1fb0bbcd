#!/usr/bin/env bash
# On the GPU machine: how StreamLab takes runs longer than one trace holds (250 000 ops).
# Records ResNet-50 (examples/pytorch/resnet50_amp.py) for 160 and 300 steps with no capture
# range, writes torch.profiler traces of 100, 160 and 260 steps, and times `explain` on each
# (wall seconds and peak memory), printing each trace's first notes (where it was cut).
# The files (up to 700 MB each) stay in WORK_DIR. README's "Longer runs" table comes from this.
# Usage: bench/long_runs.sh CLI WORK_DIR
set -uo pipefail
cli=${1:?usage: long_runs.sh CLI WORK_DIR}
work=${2:?usage: long_runs.sh CLI WORK_DIR}
mkdir -p "$work"
explain() {  # FILE LABEL
  /usr/bin/time -o "$1.time" -f "%e s, peak %M KB" "$cli" explain "$1" >"$1.explain.txt" 2>&1
  local code=$?
  echo "$2: $(( $(stat -c %s "$1") / 1000000 )) MB, explain $(cat "$1.time") (exit $code)"
  sed -n '/^About this trace/,/^\[/p' "$1.explain.txt" | grep -E "only the first|API calls logged" | cut -c1-240
}
for steps in 160 300; do
  rm -rf "$work/raw$steps"  # record refuses a --raw-dir that holds an earlier run's log
  STREAMLAB_STEPS=$steps "$cli" record --raw-dir "$work/raw$steps" --out "$work/r$steps.json" -- \
    python3 examples/pytorch/resnet50_amp.py >"$work/r$steps.log" 2>&1
  echo "record $steps steps: exit $?; $(tail -1 "$work/r$steps.log" | cut -c1-160)"
  explain "$(ls "$work/raw$steps"/raw.*.jsonl | head -1)" "recorder log, $steps steps"
  explain "$work/r$steps.json" "saved trace, $steps steps"
done
for steps in 100 160 260; do
  STREAMLAB_STEPS=$steps STREAMLAB_KINETO_OUT="$work/k$steps.json" python3 examples/pytorch/resnet50_amp.py \
    >"$work/k$steps.log" 2>&1
  explain "$work/k$steps.json" "torch.profiler, $steps steps"
done
