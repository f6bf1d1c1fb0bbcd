#!/usr/bin/env bash
# On the GPU machine: what reading the program's Python stacks (kernels/recorder/python_stack.h)
# costs a recorded PyTorch program. Each program is recorded ROUNDS times with stacks off
# (STREAMLAB_RECORD_PYTHON=0) and on, alternately, and prints its own time per step; the
# recorder's log says how many stacks it read and what they cost on the program's threads.
# Usage: bench/python_stack_cost.sh CLI [ROUNDS]
set -uo pipefail
cli=${1:?usage: python_stack_cost.sh CLI [ROUNDS]}
rounds=${2:-3}
work=$(mktemp -d)
for program in grad_scaler_step data_dependent_shape; do
  for round in $(seq "$rounds"); do
    for stacks in 0 1; do
      dir=$work/$program.$round.$stacks
      mkdir -p "$dir"
      STREAMLAB_STEPS=${STEPS:-20} STREAMLAB_RECORD_PYTHON=$stacks "$cli" record --raw-dir "$dir" --out "$dir/t.json" \
        -- python3 "examples/pytorch/$program.py" >"$dir/out.txt" 2>&1
      step=$(sed -n 's/.*, \([0-9.]*\) ms a step, host \([0-9.]*\) ms a step.*/\1 ms a step (host \2)/p' "$dir/out.txt")
      counts=$(cat "$dir"/raw.*.jsonl | sed -n 's/.*"t":"python_stacks","taken":\([0-9]*\),"over_budget":\([0-9]*\),"cost_ns":\([0-9]*\).*/\1 \2 \3/p')
      read -r taken over cost <<<"${counts:-0 0 0}"
      per=$(awk -v c="$cost" -v n="$taken" 'BEGIN { if (n > 0) printf "%.1f", c / n / 1000; else printf "-" }')
      echo "$program round $round stacks=$stacks: ${step:-no result}; stacks read $taken (over budget $over), $per us each, $(awk -v c="$cost" 'BEGIN { printf "%.2f", c / 1e6 }') ms in all"
    done
  done
done
rm -rf "$work"
