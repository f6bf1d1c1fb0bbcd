#!/usr/bin/env bash
# On the GPU machine: what recording costs a training step. ResNet-50 (bf16 autocast,
# batch 64) runs 20 measured steps per process in each configuration - plain, under
# `streamlab-cli record`, under record with every runtime callback (STREAMLAB_RECORD_RUNTIME=all),
# and under torch.profiler - once per round, configurations interleaved so drift hits all
# alike. Prints each run's sorted step times and median; the cost is the ratio of medians.
# Usage: bench/record_overhead.sh CLI [ROUNDS]   (CLI = a built streamlab-cli)
# CONFIGS="plain recorded" limits the configurations; STREAMLAB_STEPS sets the steps per run.
set -uo pipefail
cli=${1:?usage: record_overhead.sh CLI [ROUNDS]}
rounds=${2:-3}
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1 STREAMLAB_STEPS=${STREAMLAB_STEPS:-20}
model=examples/pytorch/resnet50_amp.py
run() { "$@" 2>&1 | grep -E "^(step times|resnet50)" | tr '\n' ' '; echo; }
configs=${CONFIGS:-plain recorded recorded-all-runtime torch.profiler}
for i in $(seq "$rounds"); do
  for c in $configs; do
    case $c in
      plain) echo "round $i plain: $(run python3 $model)" ;;
      recorded) echo "round $i recorded: $(run "$cli" record --out /tmp/overhead.json -- python3 $model)" ;;
      recorded-all-runtime) echo "round $i recorded-all-runtime: $(STREAMLAB_RECORD_RUNTIME=all run "$cli" record --out /tmp/overhead.json -- python3 $model)" ;;
      torch.profiler) echo "round $i torch.profiler: $(STREAMLAB_KINETO_OUT=/tmp/overhead.kineto.json run python3 $model)" ;;
      *) echo "unknown configuration $c" >&2; exit 2 ;;
    esac
  done
done
