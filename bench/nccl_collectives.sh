#!/usr/bin/env bash
# Times NCCL collectives on the GPUs here through StreamLab's CUDA executor, for the
# simulator's profile (nccl_* fields in assets/profiles): each kind and size as a scenario
# with one collective over every GPU, repeated, balanced (every rank arrives together).
# Prints, per kind and size, the median part time (ready event -> done event) and the host
# time of the group's calls; then fits time = fixed + bytes * bus factor / bus bandwidth
# for all-reduce (CollectiveBusFactor in engine/scenario/scenario.cpp).
# Usage: bench/nccl_collectives.sh CLI [GPUS] [OUT_DIR]     (NCCL_NVLS_ENABLE=0 is set)
set -euo pipefail
cli=$1
gpus=${2:-2}
out=${3:-$(mktemp -d)}
export NCCL_NVLS_ENABLE=0
mkdir -p "$out"
for kind in all_reduce reduce_scatter all_gather broadcast; do
  for mb in 1 16 64 256; do
    python3 - "$kind" "$mb" "$gpus" >"$out/$kind-$mb.json" <<'PY'
import json, sys
kind, mb, gpus = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
streams = [{"name": f"s{g}", "device": g} for g in range(gpus)]
buffers = [{"name": f"b{g}", "device": g, "bytes": mb << 20} for g in range(gpus)]
ops = []
for rep in range(5):  # five collectives back to back, each after a sync
    first = len(ops)
    for g in range(gpus):
        ops.append({"op": "collective", "name": f"c{rep}_gpu{g}", "stream": f"s{g}", "buffer": f"b{g}",
                    "bytes": mb << 20, "collective": kind, "collective_first": first})
    for g in range(gpus):
        ops.append({"op": "set_device", "device": g})
        ops.append({"op": "sync_device"})
print(json.dumps({"kind": "streamlab.scenario", "schema": 1, "name": f"nccl-{kind}-{mb}MB",
                  "device_count": gpus, "streams": streams, "events": [], "buffers": buffers, "ops": ops}))
PY
    "$cli" run "$out/$kind-$mb.json" --backend cuda --quiet --out "$out/$kind-$mb.trace.json"
  done
done
python3 - "$out" "$gpus" <<'PY'
import json, sys, glob, statistics, os
out, gpus = sys.argv[1], int(sys.argv[2])
factor = {"all_reduce": 2 * (gpus - 1) / gpus, "reduce_scatter": (gpus - 1) / gpus, "all_gather": (gpus - 1) / gpus, "broadcast": 1}
fit = []
print(f"{'collective':<16}{'MB':>6}{'part us':>10}{'host us':>10}{'bus GB/s':>10}")
for kind in factor:
    for mb in (1, 16, 64, 256):
        t = json.load(open(f"{out}/{kind}-{mb}.trace.json"))
        ops = t["scenario"]["ops"]
        part = [r["end"] - r["start"] for o, r in zip(ops, t["ops"]) if o["op"] == "collective"]
        host = [r["return"] - r["submit"] for o, r in zip(ops, t["ops"]) if o["op"] == "collective"]
        med = statistics.median(part)
        bus = (mb << 20) * factor[kind] / med
        print(f"{kind:<16}{mb:>6}{med/1e3:>10.1f}{statistics.median(host)/1e3:>10.1f}{bus:>10.1f}")
        if kind == "all_reduce": fit.append(((mb << 20) * factor[kind], med))
(x1, y1), (x2, y2) = fit[1], fit[-1]
slope = (y2 - y1) / (x2 - x1)
print(f"all_reduce fit: fixed {(y1 - slope * x1)/1e3:.1f} us, bus bandwidth {1/slope:.1f} GB/s")
for n in t.get("notes", []):
    if "NCCL" in n: print(n)
PY
