#!/usr/bin/env bash
# On the GPU machine: what recording costs a real step, against plain runs and torch.profiler
# (issue 66). Each model runs plain, recorded (`streamlab-cli record`) and under torch.profiler
# in turn, ROUNDS times (interleaved, so the host's drift hits all alike); for each recording
# the trace's own estimate (explain's account: the recorder's own work a step) is printed
# beside the measured cost (recorded step - plain step of the same round).
# Usage: bench/record_cost_steps.sh CLI [ROUNDS] [MODELS]   (MODELS: "bert resnet")
set -uo pipefail
cli=${1:?usage: record_cost_steps.sh CLI [ROUNDS] [MODELS]}
rounds=${2:-2}
models=${3:-bert resnet}
here=$(dirname "$0")
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
step_of() { grep -o 'step [0-9.]* ms' | head -1 | awk '{print $2}'; }
for round in $(seq "$rounds"); do
  for model in $models; do
    plain=$(python3 "$here/record_cost_steps.py" "$model" 2>/dev/null | step_of)
    recorded=$("$cli" record --out /tmp/rc.json -- python3 "$here/record_cost_steps.py" "$model" 2>/dev/null | step_of)
    estimate=$("$cli" explain /tmp/rc.json --json 2>/dev/null | python3 -c '
import json, sys
v = json.load(sys.stdin)["verdict"]
a = v["account"]
own = a["categories"].get("recording", 0)
step, found = a["step_ns"], v["steps"]["found"]
print(f"{own / 1e6:.3f} ms of a {step / 1e6:.3f} ms step walked ({found} steps)")')
    profiled=$(PROFILE=1 python3 "$here/record_cost_steps.py" "$model" 2>/dev/null | step_of)
    echo "round $round $model: plain $plain ms, recorded $recorded ms, torch.profiler $profiled ms; the trace's estimate: $estimate"
  done
done
