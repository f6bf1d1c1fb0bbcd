#!/usr/bin/env bash
# On the GPU machine: guards README's claims on what recording costs per CUDA call, with the
# paired measurement of bench/launch_rate.py (batches of tiny PyTorch ops, every other one
# recorded, in one process). Fails (exit 1) if recording costs more than LIMIT_US (2.5) us per
# op, or not less than torch.profiler with CUDA activity only; exit 3 if the control (nothing
# recorded) differs by more than 0.3 us per op, i.e. the host was too noisy to tell.
# Usage: bench/check_record_cost.sh CLI
set -uo pipefail
cli=${1:?usage: check_record_cost.sh CLI}
limit=${LIMIT_US:-2.5}
results=$(PAIRS=${PAIRS:-80} CONFIGS="plain recorded torch.profiler-cuda" PROGRAMS=launch-pairs \
  bash "$(dirname "$0")/record_overhead.sh" "$cli" 1)
echo "$results"
cost() { echo "$results" | grep "round 1 $1 (pairs)" | sed -n 's/.*inside - outside \([-+0-9.]*\) us per op.*/\1/p'; }
plain=$(cost plain) recorded=$(cost recorded) profiler=$(cost torch.profiler-cuda)
if [ -z "$plain" ] || [ -z "$recorded" ] || [ -z "$profiler" ]; then
  echo "check_record_cost: a configuration printed no result" >&2
  exit 2
fi
awk -v p="$plain" -v r="$recorded" -v t="$profiler" -v limit="$limit" 'BEGIN {
  if (p > 0.3 || p < -0.3) { printf "control differs by %+.2f us per op: too noisy to tell\n", p; exit 3 }
  if (r > limit) { printf "recording costs %+.2f us per op, more than %.2f\n", r, limit; exit 1 }
  if (r >= t) { printf "recording costs %+.2f us per op, not less than torch.profiler (CUDA only) %+.2f\n", r, t; exit 1 }
  printf "ok: recording %+.2f us per op, torch.profiler (CUDA only) %+.2f, control %+.2f\n", r, t, p
}'
