#!/usr/bin/env bash
# On the GPU machine: what reading the program's Python stacks (kernels/recorder/python_stack.h)
# costs a recorded PyTorch program. Each program runs ROUNDS times in each of five ways, in turn:
# not recorded, recorded without stacks (STREAMLAB_RECORD_PYTHON=0), with stacks at the calls that
# hold the host only (STREAMLAB_RECORD_RESUME_US=0), with stacks at calls made after 1 ms outside
# CUDA too, and with the main thread's stack also sampled every millisecond it spends outside CUDA
# (kernels/recorder/python_sampler.h; the recorder's default); each prints its own time per step,
# and the recorder's log says how many stacks it read and what they cost on the program's threads
# (the samples' cost is the sampler thread's).
# Usage: bench/python_stack_cost.sh CLI [ROUNDS] [PROGRAM...]   (PROGRAM: e.g. training_loop)
set -uo pipefail
cli=${1:?usage: python_stack_cost.sh CLI [ROUNDS]}
rounds=${2:-3}
shift $(($# < 2 ? $# : 2))
only=" $* "
work=$(mktemp -d)
# Each program with its arguments; training_loop.py without DataLoader workers leaves the CUDA
# calls for a millisecond or more each step (the host makes the batch), where a stack is read.
programs=("grad_scaler_step" "data_dependent_shape" "training_loop --workers 0 --layers 1 --batch 32")
for entry in "${programs[@]}"; do
  read -r program args <<<"$entry"
  [ "$only" != "  " ] && [[ "$only" != *" $program "* ]] && continue
  for round in $(seq "$rounds"); do
    # none: not recorded; off: recorded without stacks; held: stacks at calls that hold the host
    # only; all: and at calls made after 1 ms or more outside CUDA; sampled: and the samples
    # (the recorder's default).
    for mode in none off held all sampled; do
      dir=$work/$program.$round.$mode
      mkdir -p "$dir"
      run=("$cli" record --raw-dir "$dir" --out "$dir/t.json" --)
      [ "$mode" = none ] && run=()
      stacks=1 resume_us=1000 sample_us=0
      [ "$mode" = off ] && stacks=0
      [ "$mode" = held ] && resume_us=0
      [ "$mode" = sampled ] && sample_us=1000
      # shellcheck disable=SC2086  # the arguments are words
      STREAMLAB_STEPS=${STEPS:-20} STREAMLAB_RECORD_PYTHON=$stacks STREAMLAB_RECORD_RESUME_US=$resume_us STREAMLAB_RECORD_SAMPLE_US=$sample_us \
        "${run[@]}" python3 "examples/pytorch/$program.py" $args >"$dir/out.txt" 2>&1
      step=$(sed -n -e 's/.*, \([0-9.]*\) ms a step, host \([0-9.]*\) ms a step.*/\1 ms a step (host \2)/p' \
                    -e 's/.* steps, \([0-9.]*\) ms a step (.*/\1 ms a step/p' "$dir/out.txt")
      counts=$(cat "$dir"/raw.*.jsonl 2>/dev/null | sed -n 's/.*"t":"python_stacks","taken":\([0-9]*\),"over_budget":\([0-9]*\),"cost_ns":\([0-9]*\).*/\1 \2 \3/p')
      read -r taken over cost <<<"${counts:-0 0 0}"
      per=$(awk -v c="$cost" -v n="$taken" 'BEGIN { if (n > 0) printf "%.1f", c / n / 1000; else printf "-" }')
      samples=$(cat "$dir"/raw.*.jsonl 2>/dev/null | sed -n 's/.*"t":"python_samples","taken":\([0-9]*\),"reads":\([0-9]*\),"cost_ns":\([0-9]*\).*/; samples \1 of \2 reads, sampler thread \3 ns/p')
      echo "$program round $round $mode: ${step:-no result}; stacks read $taken (over budget $over), $per us each, $(awk -v c="$cost" 'BEGIN { printf "%.2f", c / 1e6 }') ms in all$samples"
    done
  done
done
rm -rf "$work"
